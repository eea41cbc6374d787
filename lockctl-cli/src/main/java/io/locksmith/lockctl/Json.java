package io.locksmith.lockctl;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.UncheckedIOException;

/** The {@code --json} output of every command: documents of maps, lists, strings, numbers, booleans and null. */
final class Json {

    private static final ObjectMapper MAPPER = new ObjectMapper();

    private Json() {
    }

    static String write(Object document) {
        try {
            return MAPPER.writeValueAsString(document);
        } catch (JsonProcessingException e) {
            // Only plain maps, lists and scalars reach here; a failure is a bug in the command, not bad input.
            throw new UncheckedIOException("cannot write the --json document", e);
        }
    }
}
