-- Which of the commands a lock client sends may this connection's user not run, on which keys and channels?
-- ARGV: groups of (word count, command, arguments...). Returns the 1-based numbers of the refused groups.
-- Redis before 7.0 cannot be asked (no redis.acl_check_cmd): nothing is reported, and a refused command fails
-- when it is first sent.
if redis.acl_check_cmd == nil then
    return {}
end
local refused = {}
local i = 1
local group = 0
while i <= #ARGV do
    local n = tonumber(ARGV[i])
    group = group + 1
    if not redis.acl_check_cmd(unpack(ARGV, i + 1, i + n)) then
        refused[#refused + 1] = group
    end
    i = i + n + 1
end
return refused
