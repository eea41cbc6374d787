-- Extends many locks in one round trip, each only if it is still its owner's.
-- KEYS[i] the lock hash of lock i; ARGV[2i-1] its owner id, ARGV[2i] its TTL in milliseconds
-- Returns one 1 (extended) or 0 (lost) per key, in order.
-- Keys of several names hash to several Cluster slots: on Cluster, call it once per slot.
local results = {}
for i, key in ipairs(KEYS) do
  if redis.call('hget', key, 'owner') == ARGV[2 * i - 1] then
    redis.call('pexpire', key, ARGV[2 * i])
    results[i] = 1
  else
    results[i] = 0
  end
end
return results
