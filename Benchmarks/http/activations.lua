-- wrk script: POST /v1/activations with a distinct Idempotency-Key per request, spread over the members
-- listed in PEEZ_BENCH_MEMBERS (written by Benchmarks/http/run): membership ids, or card tokens when
-- PEEZ_BENCH_BY is card_token.
local members = dofile(os.getenv("PEEZ_BENCH_MEMBERS"))
local by = os.getenv("PEEZ_BENCH_BY") or "membership_id"
local run = os.getenv("PEEZ_BENCH_RUN") or tostring(os.time())
local threads = {}
local counter = 0

function setup(thread)
  thread:set("thread_number", #threads + 1)
  table.insert(threads, thread)
end

request = function()
  counter = counter + 1
  local member = members[(counter % #members) + 1]
  local body = '{"' .. by .. '":"' .. member .. '","months":1,"amount_dzd":300}'
  local headers = {
    ["Authorization"] = "Bearer " .. os.getenv("PEEZ_BENCH_VENDOR_SECRET"),
    ["Content-Type"] = "application/json",
    ["Idempotency-Key"] = run .. "-" .. tostring(thread_number) .. "-" .. tostring(counter),
  }
  return wrk.format("POST", "/v1/activations", headers, body)
end
