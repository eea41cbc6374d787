-- RedLock: after a quorum granted the lock, gives the holding the token chosen over the quorum (the
-- highest of their counters) and raises this node's counter to it, so that a later holder, whose quorum
-- shares at least one node with this one, draws a higher token.
-- KEYS[1] the lock hash, KEYS[2] the fencing counter; ARGV[1] owner id, ARGV[2] token
-- Returns 1 if done, 0 if the lock is no longer the owner's on this node.
if redis.call('hget', KEYS[1], 'owner') ~= ARGV[1] then
  return 0
end
local token = tonumber(ARGV[2])
if tonumber(redis.call('get', KEYS[2]) or '0') < token then
  redis.call('set', KEYS[2], ARGV[2])
end
redis.call('hset', KEYS[1], 'token', ARGV[2])
return 1
