-- Takes the lock if it is free and nobody queued before the caller, setting owner, holder, TTL and a new fencing
-- token in one atomic step; else, for a caller that will wait, keeps its place in the name's queue.
-- KEYS[1] the lock hash, KEYS[2] the per-name fencing counter, KEYS[3] this owner's "abandoned" marker, KEYS[4] the
-- waiter queue, KEYS[5] the waiting hash (all with the same {name} hash tag, so in one Cluster slot)
-- ARGV[1] owner id, ARGV[2] holder identity, ARGV[3] TTL in milliseconds, ARGV[4] how long the caller's place
-- stays live after this attempt, in milliseconds, or 0 to take no place (a caller that will not wait, RedLock)
-- Returns {1, token} when granted, {0, remaining TTL in ms, fencing counter} when another owner holds it (the counter
-- tells a later handoff message from an earlier one: LockNode.acquire), and {0, -3} when the owner gave this attempt
-- up already (see release_abandoned.lua).
if redis.call('exists', KEYS[1], KEYS[3], KEYS[4]) == 0 then
  -- The common case in one call: free, not given up, nobody queued. Every redis.call costs the server about 1 us beyond
  -- its command, more than most commands themselves, so the other cases pay the calls that tell them apart.
  return {1, grant(KEYS[1], KEYS[2], ARGV[1], ARGV[2], ARGV[3], redis.call('time'))}
end
local owner = redis.call('hget', KEYS[1], 'owner')
if owner == ARGV[1] then
  -- The same holding asked again (a retry after a lost answer), or a waiter confirming the lock a release handed it:
  -- it keeps its token, and the TTL counts from now. An attempt given up never gets here: release_abandoned.lua deletes
  -- its lock and its place in the step that marks it.
  redis.call('pexpire', KEYS[1], ARGV[3])
  return {1, tonumber(redis.call('hget', KEYS[1], 'token'))}
end
if (not owner or ARGV[4] ~= '0') and redis.call('exists', KEYS[3]) == 1 then
  -- This request arrived after its sender timed out and cleaned up: granting it, or queueing it, would leave a lock
  -- behind that nobody thinks it holds.
  return {0, -3}
end
if not owner then
  local head = redis.call('zrange', KEYS[4], 0, 0)[1]
  local q = head and queue_functions()
  if head and head ~= ARGV[1] then
    -- Free, but waiters queued before this caller (the lock expired rather than being released, or was free when
    -- they queued): the first live one gets it, and the caller takes its place behind them.
    owner = q.hand_over(KEYS[1], KEYS[2], KEYS[4], KEYS[5])
  end
  if not owner then
    local token = grant(KEYS[1], KEYS[2], ARGV[1], ARGV[2], ARGV[3], redis.call('time'))
    if head then
      q.leave_queue(KEYS[4], KEYS[5], ARGV[1])
      q.mark_queued(KEYS[1], KEYS[4])
    end
    return {1, token}
  end
end
local held_for = redis.call('pttl', KEYS[1])
if ARGV[4] ~= '0' then
  local now = redis.call('time')
  local now_ms = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
  -- NX: a waiter keeps the place of its first attempt; its entry says how long it stays live.
  redis.call('zadd', KEYS[4], 'NX', now[1] .. string.format('%06d', tonumber(now[2])), ARGV[1])
  redis.call('hset', KEYS[5], ARGV[1], string.format('%d', now_ms + tonumber(ARGV[4])) .. ':' .. ARGV[3] .. ':' .. ARGV[2])
  redis.call('hset', KEYS[1], 'queued', '1')
  -- The queue outlives its last live entry by nothing: an abandoned queue goes on its own.
  if redis.call('pttl', KEYS[4]) < tonumber(ARGV[4]) then
    redis.call('pexpire', KEYS[4], ARGV[4])
    redis.call('pexpire', KEYS[5], ARGV[4])
  end
  return {0, held_for, tonumber(redis.call('get', KEYS[2]) or '0')}
end
return {0, held_for}
