-- wrk script: GET /v1/members/{uuid}/card.png spread at random over the members listed in PEEZ_BENCH_UUIDS
-- (written by Benchmarks/http/run), once every one of them has been read (drawn) before: in memory or on disk.
local uuids = dofile(os.getenv("PEEZ_BENCH_UUIDS"))
local secret = os.getenv("PEEZ_BENCH_BACKEND_SECRET")

function setup(thread)
  thread:set("seed", math.random(1, 1000000))
end

function init(args)
  math.randomseed(seed)
end

request = function()
  local uuid = uuids[math.random(1, #uuids)]
  return wrk.format("GET", "/v1/members/" .. uuid .. "/card.png", { ["Authorization"] = "Bearer " .. secret })
end
