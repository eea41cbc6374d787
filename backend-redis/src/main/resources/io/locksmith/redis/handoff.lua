-- Included before acquire.lua, release.lua, release_abandoned.lua and cancel.lua (LuaScript.load): granting a
-- lock, and handing a freed lock to the first live waiter of the name's queue. A waiter that will wait takes a
-- place in the queue (a sorted set of owner ids scored by arrival, KEYS named by the caller) and an entry in the
-- name's waiting hash, "LIVE_UNTIL_MS:TTL_MS:HOLDER", refreshed by each of its attempts. A dead waiter's entry
-- stops being live on its own; a live one is removed by its cancel when its wait ends without the lock. While the queue
-- has a place, the lock hash carries the field "queued", so that a release looks at the queue only then: the scripts'
-- fast paths (a free lock nobody waits for, a release nobody waits for) make no more calls than without a queue.

-- Grants the lock to an owner with a new fencing token and returns the token. The token comes from the name's counter,
-- which has no TTL, only grows, and never falls behind the server clock in microseconds (max(counter + 1, now)), so a
-- replica promoted after losing the primary's last increments still draws tokens above the ones the lost primary
-- handed out, as long as its clock is not behind by more than the failover took. The clock is nearly always ahead of
-- the counter, so the counter is set to it and its old value read in one call (SET ... GET); only when the old value
-- is not below the clock (two grants in one microsecond, a clock set back) is it set again, one above. Every redis.call
-- costs the server about 1 us beyond its command (PERFORMANCE.md), so a grant makes four: TIME (by the caller), SET,
-- HSET, PEXPIRE. Tokens (about 1.8e15) are exact in Lua's doubles (below 2^53), and Redis writes a number argument in full.
local function grant(lock, fence, owner, holder, ttl, now)
  local token = now[1] * 1000000 + now[2]
  local previous = tonumber(redis.call('set', fence, token, 'get') or 0)
  if previous >= token then
    token = previous + 1
    redis.call('set', fence, token)
  end
  redis.call('hset', lock, 'owner', owner, 'holder', holder, 'token', token)
  redis.call('pexpire', lock, ttl)
  return token
end

-- The waiter queue's functions, built only by the calls that meet a queue: every function a script defines costs the
-- server time on every call of the script (about 0.3 µs each, measured), and most calls meet no queue.
local function queue_functions()
  local q = {}
  -- The lock (just written) says that waiters are left in the queue, if there are.
  function q.mark_queued(lock, queue)
    if redis.call('exists', queue) == 1 then
      redis.call('hset', lock, 'queued', '1')
    end
  end

  -- The lock is free: gives it to the first waiter whose entry is live, dropping dead ones on the way, with the TTL the
  -- waiter asked for, and tells the name's channel (the lock key and ':released', RedisLockKeys.releaseChannel) whom
  -- it went to, for how long and with which token. The waiter's client may take it from that message
  -- (LockNode.acquire) or confirm it with its next attempt (acquire.lua's "same holding" answer); a waiter that died
  -- holds it until its TTL runs out, as a queued ZooKeeper or etcd waiter whose session has not expired yet. Returns
  -- the owner id of the waiter it went to, or nil when nobody waits (nothing is published then).
  function q.hand_over(lock, fence, queue, waiting)
    local now
    while true do
      local head = redis.call('zrange', queue, 0, 0)[1]
      if not head then
        return nil
      end
      now = now or redis.call('time')
      redis.call('zrem', queue, head)
      local entry = redis.call('hget', waiting, head)
      redis.call('hdel', waiting, head)
      if entry then
        local live_until, ttl, holder = string.match(entry, '^(%d+):(%d+):(.*)$')
        if live_until and tonumber(live_until) > tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000) then
          local token = grant(lock, fence, head, holder, ttl, now)
          q.mark_queued(lock, queue)
          -- Only that waiter's client wakes a thread, and every client's expiry watch knows the new TTL without
          -- reading it (LockNode.subscribe).
          redis.call('publish', lock .. ':released',
            'granted ' .. head .. ' ' .. ttl .. ' ' .. string.format('%d', token))
          return head
        end
      end
    end
  end

  -- Takes the owner's place out of the queue, if it has one.
  function q.leave_queue(queue, waiting, owner)
    if redis.call('hdel', waiting, owner) == 1 then
      redis.call('zrem', queue, owner)
    end
  end
  return q
end

-- Frees the lock if it is still the owner's, and hands it on if its "queued" field is set, or publishes the release:
-- always when tell_all is true; otherwise only if the field is set (it lost its waiters meanwhile), since on a store
-- where every waiter keeps a place in the queue (one node, Sentinel, Cluster) a lock without the field has no waiter to
-- tell, and a PUBLISH costs the server a call on every release. Waiters keep their place from the attempt that found
-- the lock taken, before they subscribe (DefaultDistributedLock), and refresh it with every attempt.
-- Returns 1 if it freed the owner's lock, 0 if the lock was not the owner's (expired, taken over, never granted).
local function release_if_owner(lock, fence, queue, waiting, owner, tell_all)
  local fields = redis.call('hmget', lock, 'owner', 'queued')
  if fields[1] ~= owner then
    return 0
  end
  redis.call('del', lock)
  if fields[2] then
    if not queue_functions().hand_over(lock, fence, queue, waiting) then
      redis.call('publish', lock .. ':released', 'released')
    end
  elseif tell_all then
    redis.call('publish', lock .. ':released', 'released')
  end
  return 1
end
