-- Takes the lock if it is free, setting owner, holder, TTL and a new fencing token in one atomic step.
-- KEYS[1] the lock hash, KEYS[2] the per-name fencing counter, KEYS[3] this owner's "abandoned" marker
-- (all with the same {name} hash tag, so in one Cluster slot)
-- ARGV[1] owner id, ARGV[2] holder identity, ARGV[3] TTL in milliseconds
-- Returns {1, token} when granted, {0, remaining TTL in ms} when another owner holds it, and {0, -3}
-- when the owner gave this attempt up already (see release_abandoned.lua).
if redis.call('exists', KEYS[3]) == 1 then
  -- This request arrived after its sender timed out and cleaned up: granting it would leave a lock
  -- behind that nobody thinks it holds.
  return {0, -3}
end
local owner = redis.call('hget', KEYS[1], 'owner')
if owner then
  if owner == ARGV[1] then
    -- The same holding asked again (a retry after a lost answer): it keeps its token.
    redis.call('pexpire', KEYS[1], ARGV[3])
    return {1, tonumber(redis.call('hget', KEYS[1], 'token'))}
  end
  return {0, redis.call('pttl', KEYS[1])}
end
-- The counter has no TTL and only grows. It also never falls behind the server clock in microseconds:
-- a replica promoted after losing the primary's last increments still draws tokens above the ones the
-- lost primary handed out, as long as its clock is not behind by more than the failover took.
local now = redis.call('time')
local floor = now[1] .. string.format('%06d', tonumber(now[2]))
local token = redis.call('incr', KEYS[2])
if token < tonumber(floor) then
  redis.call('set', KEYS[2], floor)
  token = tonumber(floor)
end
-- Numbers are written as strings built by %d: Lua would print large ones in exponent form.
redis.call('hset', KEYS[1], 'owner', ARGV[1], 'holder', ARGV[2], 'token', string.format('%d', token))
redis.call('pexpire', KEYS[1], ARGV[3])
return {1, token}
