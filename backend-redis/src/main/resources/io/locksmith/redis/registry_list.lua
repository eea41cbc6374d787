-- Lists the live registry records whose key starts with a prefix, dropping expired index entries.
-- KEYS[1] the index; ARGV[1] the full key prefix
-- Returns {key1, value1, key2, value2, ...}
local now = redis.call('time')
local nowMs = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
redis.call('zremrangebyscore', KEYS[1], '-inf', '(' .. nowMs)
local result = {}
for _, key in ipairs(redis.call('zrange', KEYS[1], 0, -1)) do
  if string.sub(key, 1, string.len(ARGV[1])) == ARGV[1] then
    local value = redis.call('get', key)
    if value then
      table.insert(result, key)
      table.insert(result, value)
    else
      redis.call('zrem', KEYS[1], key)
    end
  end
end
return result
