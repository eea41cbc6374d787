package io.locksmith.micrometer;

import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * Maps lock names to a bounded set of metric tag values, so that {@code order:1001}, {@code order:1002}, ...
 * share one time series instead of creating one each.
 *
 * <p>A grouping function picks the group of a name (by default the part before the first {@code ':'});
 * the first {@code maxGroups} distinct groups are kept, and every later one is reported as
 * {@value #OTHER}. Thread-safe.
 */
public final class NameGroups {

    /** The group reported once {@code maxGroups} distinct groups have been seen. */
    public static final String OTHER = "other";
    /** The default cap on distinct groups. */
    public static final int DEFAULT_MAX_GROUPS = 50;

    private final Function<String, String> grouping;
    private final int maxGroups;
    private final Set<String> seen = ConcurrentHashMap.newKeySet();

    private NameGroups(Function<String, String> grouping, int maxGroups) {
        this.grouping = Objects.requireNonNull(grouping, "grouping cannot be null");
        if (maxGroups < 1) {
            throw new IllegalArgumentException("maxGroups must be at least 1, was " + maxGroups);
        }
        this.maxGroups = maxGroups;
    }

    /** Groups by the part of the name before the first {@code ':'}, at most {@value #DEFAULT_MAX_GROUPS} groups. */
    public static NameGroups byPrefix() {
        return byPrefix(":", DEFAULT_MAX_GROUPS);
    }

    /**
     * Groups by the part of the name before the first {@code separator} (the whole name if it has none).
     *
     * @throws NullPointerException     if {@code separator} is null
     * @throws IllegalArgumentException if {@code separator} is empty or {@code maxGroups} is less than 1
     */
    public static NameGroups byPrefix(String separator, int maxGroups) {
        Objects.requireNonNull(separator, "separator cannot be null");
        if (separator.isEmpty()) {
            throw new IllegalArgumentException("separator must not be empty");
        }
        return new NameGroups(name -> {
            int end = name.indexOf(separator);
            return end < 0 ? name : name.substring(0, end);
        }, maxGroups);
    }

    /**
     * Groups with a function of the lock name. A null or blank result counts as the group {@value #OTHER}.
     *
     * @throws NullPointerException     if {@code grouping} is null
     * @throws IllegalArgumentException if {@code maxGroups} is less than 1
     */
    public static NameGroups of(Function<String, String> grouping, int maxGroups) {
        return new NameGroups(grouping, maxGroups);
    }

    /** The tag value for a lock name: its group, or {@value #OTHER} past the cap. */
    public String groupOf(String lockName) {
        String group = grouping.apply(lockName);
        if (group == null || group.isBlank()) {
            return OTHER;
        }
        if (seen.contains(group)) {
            return group;
        }
        synchronized (seen) {
            if (seen.size() < maxGroups) {
                seen.add(group);
                return group;
            }
        }
        return OTHER;
    }

    /** The cap on distinct groups. */
    public int maxGroups() {
        return maxGroups;
    }
}
