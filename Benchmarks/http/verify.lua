-- wrk script: POST /v1/verify with a vendor's secret, over the card tokens listed in PEEZ_BENCH_MEMBERS (written by
-- Benchmarks/http/run), as the web counter asks for every scan while online.
local cards = dofile(os.getenv("PEEZ_BENCH_MEMBERS"))
local counter = 0

request = function()
  counter = counter + 1
  local body = '{"token":"' .. cards[(counter % #cards) + 1] .. '"}'
  local headers = {
    ["Authorization"] = "Bearer " .. os.getenv("PEEZ_BENCH_VENDOR_SECRET"),
    ["Content-Type"] = "application/json",
  }
  return wrk.format("POST", "/v1/verify", headers, body)
end
