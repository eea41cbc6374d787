package io.locksmith.bench;

import org.junit.jupiter.api.Test;

import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;

class RedisServerCostTest {

    private static final String COMMANDSTATS = String.join("\r\n",
            "# Commandstats",
            "cmdstat_set:calls=100,usec=120,usec_per_call=1.20,rejected_calls=0,failed_calls=0",
            "cmdstat_get:calls=100,usec=40,usec_per_call=0.40,rejected_calls=0,failed_calls=0",
            "cmdstat_evalsha:calls=200,usec=2000,usec_per_call=10.00,rejected_calls=0,failed_calls=0",
            "cmdstat_eval:calls=1,usec=30,usec_per_call=30.00,rejected_calls=0,failed_calls=0",
            "cmdstat_config|resetstat:calls=1,usec=50,usec_per_call=50.00,rejected_calls=0,failed_calls=0", "");

    @Test
    void scriptsAlwaysCountAndTheCommandsTheyRunNever() {
        // a script's time includes the commands it runs (set, get here), which commandstats lists again on their own
        assertEquals(2030, RedisServerCost.topLevelMicros(COMMANDSTATS, Set.of()));
    }

    @Test
    void plainCommandsCountWhenTheSubjectSendsThem() {
        assertEquals(2150, RedisServerCost.topLevelMicros(COMMANDSTATS, Set.of("set")));
    }
}
