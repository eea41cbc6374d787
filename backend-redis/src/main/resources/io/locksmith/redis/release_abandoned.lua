-- Cleans up after an acquire whose outcome the client does not know (it timed out): deletes the lock
-- if the attempt took it (or a release handed it to the attempt's owner), takes the owner's place out of the queue,
-- and marks the attempt abandoned so that, should the acquire request still be on its way (a paused or slow server,
-- another connection), it is refused when it arrives.
-- KEYS[1] the lock hash, KEYS[2] the owner's "abandoned" marker, KEYS[3] the fencing counter, KEYS[4] the waiter
-- queue, KEYS[5] the waiting hash
-- ARGV[1] owner id, ARGV[2] how long to keep the marker, in milliseconds
-- Returns 1 if a lock of this owner was deleted, 0 otherwise.
redis.call('set', KEYS[2], '1', 'px', ARGV[2])
queue_functions().leave_queue(KEYS[4], KEYS[5], ARGV[1])
return release_if_owner(KEYS[1], KEYS[3], KEYS[4], KEYS[5], ARGV[1], true)
