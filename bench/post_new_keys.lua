-- wrk: a POST with a fresh Idempotency-Key every time, so every request is a new
-- operation (and, under a chaos plan, may meet a fault). Keys are unique per thread.
local counter = 0
local thread_id = 0
local threads = 0

function setup(thread)
  thread:set("thread_id", threads)
  threads = threads + 1
end

function request()
  counter = counter + 1
  local key = "soak-" .. thread_id .. "-" .. counter
  return wrk.format("POST", "/jobs", {
    ["Content-Type"] = "application/json",
    ["Idempotency-Key"] = key,
  }, '{"orderId":"' .. key .. '","amount":120}')
end
