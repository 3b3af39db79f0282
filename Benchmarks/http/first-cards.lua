-- wrk script: the first read of each card, GET /v1/members/{uuid}/card.png once for each member listed in
-- PEEZ_BENCH_UUIDS from PEEZ_BENCH_FIRST to PEEZ_BENCH_LAST (1-based, inclusive), none read before: each request
-- signs the member's card, draws its QR PNG and keeps it (the miss path). Thread i of wrk's PEEZ_BENCH_THREADS
-- (-t, 2 by default) takes every such member i, i + threads, …; its connections take them in turn, then wait
-- while the last are answered. Once its share has been answered a thread stops and creates the file
-- PEEZ_BENCH_DONE .. i: wrk's own clock runs to the end of -d, so the caller sends wrk SIGINT once every thread's
-- file exists, and wrk's figures are then those of the pass alone.
local uuids = dofile(os.getenv("PEEZ_BENCH_UUIDS"))
local secret = os.getenv("PEEZ_BENCH_BACKEND_SECRET")
local first = tonumber(os.getenv("PEEZ_BENCH_FIRST"))
local last = tonumber(os.getenv("PEEZ_BENCH_LAST"))
local threads = tonumber(os.getenv("PEEZ_BENCH_THREADS") or "2")
local created = 0

function setup(thread)
  created = created + 1
  thread:set("index", created)
end

local mine = {}
local sent = 0
local answered = 0
-- wrk makes one request when a thread starts and sends it nowhere (a script's requests are made again for each
-- connection): that first one takes no member.
local started = false

function init(args)
  for i = first + index - 1, last, threads do
    table.insert(mine, uuids[i])
  end
end

function delay()
  -- Every card of this thread's share asked for: nothing more is sent while the last answers come.
  if sent >= #mine then return 3600000 end
  return 0
end

request = function()
  if not started then
    started = true
    return wrk.format("GET", "/health")
  end
  sent = sent + 1
  local uuid = mine[math.min(sent, #mine)]
  return wrk.format("GET", "/v1/members/" .. uuid .. "/card.png", { ["Authorization"] = "Bearer " .. secret })
end

function response(status, headers, body)
  answered = answered + 1
  if answered == #mine then
    io.open(os.getenv("PEEZ_BENCH_DONE") .. index, "w"):close()
    wrk.thread:stop()
  end
end
