-- A wait ended without the lock: takes the owner's place out of the queue and, if a release handed the owner the
-- lock before it could confirm it, frees that lock and hands it on (handoff.lua).
-- KEYS[1] the lock hash, KEYS[2] the fencing counter, KEYS[3] the waiter queue, KEYS[4] the waiting hash
-- ARGV[1] owner id
-- Returns 1 if a lock handed to the owner was freed, 0 otherwise.
queue_functions().leave_queue(KEYS[3], KEYS[4], ARGV[1])
return release_if_owner(KEYS[1], KEYS[2], KEYS[3], KEYS[4], ARGV[1], true)
