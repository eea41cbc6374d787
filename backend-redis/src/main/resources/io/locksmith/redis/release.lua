-- Deletes the lock only if it is still this owner's, and hands it to the first live waiter of the name's queue
-- (handoff.lua), or tells waiters on the name's channel that it is free.
-- KEYS[1] the lock hash, KEYS[2] the fencing counter, KEYS[3] the waiter queue, KEYS[4] the waiting hash
-- ARGV[1] owner id, ARGV[2] (optional) '1' to publish the release even when nobody queued: RedLock, whose waiters keep
-- no place in a queue
-- Returns 1 if this call removed the owner's lock, 0 if it was not the owner's (expired, taken over).
return release_if_owner(KEYS[1], KEYS[2], KEYS[3], KEYS[4], ARGV[1], ARGV[2] == '1')
