-- Removes a registry record and its index entry.
-- KEYS[1] the record key, KEYS[2] the index
redis.call('del', KEYS[1])
redis.call('zrem', KEYS[2], KEYS[1])
return 1
