-- Reads the holder of a lock in one consistent step.
-- KEYS[1] the lock hash
-- Returns {owner id, holder identity, token, remaining TTL in ms}, or an empty array if the lock is free.
local fields = redis.call('hmget', KEYS[1], 'owner', 'holder', 'token')
if not fields[1] then
  return {}
end
return {fields[1], fields[2] or '', fields[3] or '0', redis.call('pttl', KEYS[1])}
