-- One SCAN step over the lock hashes whose key matches a pattern: SCAN walks the keyspace in small steps, so a
-- listing does not block the server as KEYS would. The caller loops until the cursor is back at 0.
-- ARGV[1] the cursor; ARGV[2] the MATCH pattern (locksmith:{PREFIX*}, glob characters of the prefix escaped)
-- Returns {next cursor, key1, key2, ...}
local page = redis.call('scan', ARGV[1], 'match', ARGV[2], 'count', 500, 'type', 'hash')
local result = {page[1]}
for _, key in ipairs(page[2]) do
  table.insert(result, key)
end
return result
