-- Writes a registry record (see io.locksmith.spi.Registry) and indexes it for listing without SCAN.
-- KEYS[1] the record key, KEYS[2] the index (a sorted set: member = record key, score = expiry in ms)
-- ARGV[1] the value, ARGV[2] the TTL in ms, or '' for a record that stays until removed
local now = redis.call('time')
local nowMs = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
if ARGV[2] == '' then
  redis.call('set', KEYS[1], ARGV[1])
  redis.call('zadd', KEYS[2], '+inf', KEYS[1])
else
  redis.call('set', KEYS[1], ARGV[1], 'px', ARGV[2])
  redis.call('zadd', KEYS[2], nowMs + tonumber(ARGV[2]), KEYS[1])
end
return 1
