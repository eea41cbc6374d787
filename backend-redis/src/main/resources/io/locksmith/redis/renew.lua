-- Extends the lock only if it is still this owner's.
-- KEYS[1] the lock hash; ARGV[1] owner id, ARGV[2] TTL in milliseconds
-- Returns 1 if extended, 0 if the lock is no longer the owner's.
if redis.call('hget', KEYS[1], 'owner') == ARGV[1] then
  redis.call('pexpire', KEYS[1], ARGV[2])
  return 1
end
return 0
