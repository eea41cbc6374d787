-- Takes the lock if it is free, setting owner, holder, TTL and a new fencing token in one atomic step.
-- KEYS[1] the lock hash, KEYS[2] the per-name fencing counter, KEYS[3] this owner's "abandoned" marker
-- (all with the same {name} hash tag, so in one Cluster slot)
-- ARGV[1] owner id, ARGV[2] holder identity, ARGV[3] TTL in milliseconds
-- Returns {1, token} when granted, {0, remaining TTL in ms} when another owner holds it, and {0, -3}
-- when the owner gave this attempt up already (see release_abandoned.lua).
-- Every command here is there for a rule; the order keeps each path to the commands it needs (the server's
-- time per call is most of what this costs over a plain SET NX PX).
local owner = redis.call('hget', KEYS[1], 'owner')
if owner then
  if owner == ARGV[1] then
    -- The same holding asked again (a retry after a lost answer): it keeps its token. An abandoned attempt
    -- never gets here: release_abandoned.lua deletes the owner's lock when it sets the marker.
    redis.call('pexpire', KEYS[1], ARGV[3])
    return {1, tonumber(redis.call('hget', KEYS[1], 'token'))}
  end
  -- Held by another owner: nothing is granted, so the marker needs no look.
  return {0, redis.call('pttl', KEYS[1])}
end
if redis.call('exists', KEYS[3]) == 1 then
  -- This request arrived after its sender timed out and cleaned up: granting it would leave a lock
  -- behind that nobody thinks it holds (R9.5).
  return {0, -3}
end
-- The counter has no TTL and only grows. It also never falls behind the server clock in microseconds:
-- a replica promoted after losing the primary's last increments still draws tokens above the ones the
-- lost primary handed out, as long as its clock is not behind by more than the failover took (R5).
-- The clock is nearly always ahead of the counter, so the counter is set to it and its old value read in the
-- same command (SET ... GET); only when the old value is not below the clock is it set again, one above.
-- Microseconds since 1970 (about 1.8e15) are exact in Lua's doubles (up to 2^53); %d writes them in full.
local now = redis.call('time')
local token = tonumber(now[1]) * 1000000 + tonumber(now[2])
local previous = tonumber(redis.call('set', KEYS[2], string.format('%d', token), 'get') or '0')
if previous and previous >= token then
  token = previous + 1
  redis.call('set', KEYS[2], string.format('%d', token))
end
redis.call('hset', KEYS[1], 'owner', ARGV[1], 'holder', ARGV[2], 'token', string.format('%d', token))
redis.call('pexpire', KEYS[1], ARGV[3])
return {1, token}
