-- Deletes the lock only if it is still this owner's, and tells waiters on the name's channel.
-- KEYS[1] the lock hash; ARGV[1] owner id
-- The channel is the lock key followed by ':released' (RedisLockKeys.releaseChannel), built here rather than sent.
-- Returns 1 if this call removed the owner's lock, 0 if it was not the owner's (expired, taken over).
if redis.call('hget', KEYS[1], 'owner') == ARGV[1] then
  redis.call('del', KEYS[1])
  redis.call('publish', KEYS[1] .. ':released', 'released')
  return 1
end
return 0
