-- perflab: POST /data with a body {"data": "<key>"} whose key is unique per request.
-- key = <run prefix>-<thread id>-<per thread counter>, at most 100 characters (the contract's
-- limit). The prefix comes from the script arguments (wrk ... -- prefix=<p>) so that a warm-up
-- run and the measured run never collide (a duplicate would answer 409, not 201). An API that
-- takes the same body elsewhere names its path (-- path=/api, KT-2020's); default /data.

local thread_count = 0

function setup(thread)
  thread_count = thread_count + 1
  thread:set("thread_id", thread_count)
end

function init(args)
  prefix = tostring(os.time())
  path = "/data"
  for _, arg in ipairs(args) do
    local name, value = arg:match("^([%w_]+)=(.*)$")
    if name == "prefix" then prefix = value end
    if name == "path" then path = value end
  end
  counter = 0
  wrk.method = "POST"
  wrk.headers["Content-Type"] = "application/json"
end

function request()
  counter = counter + 1
  local key = string.sub(prefix, 1, 60) .. "-" .. thread_id .. "-" .. counter
  return wrk.format("POST", path, nil, '{"data": "' .. key .. '"}')
end
