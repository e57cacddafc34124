-- perflab: GET /data/{key} (the contract's read by key), key from the script arguments
-- (wrk ... -- key=<k>), default the seeded data object "SlimShady". The request is static, so
-- wrk builds it once per thread and this costs no Lua work per request.

function init(args)
  local key = "SlimShady"
  for _, arg in ipairs(args) do
    local name, value = arg:match("^([%w_]+)=(.*)$")
    if name == "key" then key = value end
  end
  wrk.method = "GET"
  wrk.path = "/data/" .. key
end
