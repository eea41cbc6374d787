-- Cleans up after an acquire whose outcome the client does not know (it timed out): deletes the lock
-- if the attempt took it, and marks the attempt abandoned so that, should the acquire request still be
-- on its way (a paused or slow server, another connection), it is refused when it arrives.
-- KEYS[1] the lock hash, KEYS[2] the owner's "abandoned" marker
-- ARGV[1] owner id, ARGV[2] release channel, ARGV[3] how long to keep the marker, in milliseconds
-- Returns 1 if a lock of this owner was deleted, 0 otherwise.
redis.call('set', KEYS[2], '1', 'px', ARGV[3])
if redis.call('hget', KEYS[1], 'owner') == ARGV[1] then
  redis.call('del', KEYS[1])
  redis.call('publish', ARGV[2], 'released')
  return 1
end
return 0
