-- wrk script for bench/http.sh.
--   wrk ... -s load.lua URL -- get                         # GET URL (REST /add, floor)
--   wrk ... -s load.lua URL -- mcp SESSION_ID [STOP_AFTER] # POST tools/call add_numbers {"a":1,"b":2}
--   wrk ... -s load.lua URL -- stateless                   # the same call in revision 2026-07-28
-- SESSION_ID is sent as Mcp-Session-Id ("-" for none). `stateless` sends no session: the request
-- carries its revision and client capabilities in `_meta`, and the headers that mirror the body
-- (MCP-Protocol-Version, Mcp-Method, Mcp-Name). Every POST carries its own JSON-RPC id
-- (thread number * 1e9 + a per-thread counter), so no two requests in flight share an id (a server
-- may refuse a duplicate in-flight id: tooltable answers 400).
--
-- Every point, GET or POST, goes through request() (the GET one returns a string built once),
-- so wrk's per-request cost is alike across servers.
--
-- Latency: wrk 4.1's own latency statistics are interval-sampled (a fixed number of samples per
-- ~10 ms slice, whatever the number of requests in it), which on a busy machine overweights the
-- slow slices by far (measured: wrk's mean 800 µs against a real 18 µs). So the script keeps its
-- own: with one connection per thread, the time between two request() calls is one whole round
-- trip (the response is complete, wrk writes the next request at once), read with
-- clock_gettime(CLOCK_MONOTONIC) through LuaJIT's ffi, into a histogram of 1 µs buckets. It is
-- exact at concurrency 1 (plus wrk's own few µs per request), and meaningless with several
-- connections per thread: http.sh uses it at concurrency 1 only.
--
-- STOP_AFTER (mcp, optional): check every response (status 200 and a body holding "sum":3; misses
-- are counted as `bad=`), and after that many responses print "STOPPED" on stderr and stop the
-- thread (wrk would still sleep out -d: http.sh sends it SIGINT). For the RSS phases, one thread.

local ffi = require("ffi")
ffi.cdef [[
  typedef struct { long tv_sec; long tv_nsec; } bench_timespec;
  int clock_gettime(int clk_id, bench_timespec *tp);
]]
local ts = ffi.new("bench_timespec")
local function now_us()
  ffi.C.clock_gettime(1, ts)
  return tonumber(ts.tv_sec) * 1000000 + tonumber(ts.tv_nsec) / 1000
end

local threads = {}
function setup(thread)
  thread:set("thread_no", #threads)
  table.insert(threads, thread)
end

-- Globals, read by done() through thread:get().
bad, hist = 0, {}

local mode, base, counter, last, seen, stop_after = "get", 0, 0, nil, 0, nil
local fixed -- the GET request, built once
local prefix = '{"jsonrpc":"2.0","id":'
local suffix = ',"method":"tools/call","params":{"name":"add_numbers","arguments":{"a":1,"b":2}}}'
local stateless_suffix = ',"method":"tools/call","params":{"name":"add_numbers","arguments":{"a":1,"b":2},'
  .. '"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",'
  .. '"io.modelcontextprotocol/clientCapabilities":{}}}}'

function init(args)
  mode = args[1] or "get"
  base = (thread_no or 0) * 1000000000
  if mode == "mcp" then
    wrk.method = "POST"
    wrk.headers["Content-Type"] = "application/json"
    wrk.headers["Accept"] = "application/json, text/event-stream"
    wrk.headers["MCP-Protocol-Version"] = "2025-11-25"
    if args[2] and args[2] ~= "-" then wrk.headers["Mcp-Session-Id"] = args[2] end
    if args[3] then
      stop_after = tonumber(args[3])
      response = function(status, headers, body)
        seen = seen + 1
        if status ~= 200 or not string.find(body, '"sum":3', 1, true) then
          bad = bad + 1
          if bad <= 3 then io.stderr:write("bad response: " .. status .. " " .. tostring(body) .. "\n") end
        end
        if seen == stop_after then
          io.stderr:write("STOPPED after " .. seen .. " responses\n")
          io.stderr:flush()
          wrk.thread:stop()
        end
      end
    end
  elseif mode == "stateless" then
    wrk.method = "POST"
    wrk.headers["Content-Type"] = "application/json"
    wrk.headers["Accept"] = "application/json, text/event-stream"
    wrk.headers["MCP-Protocol-Version"] = "2026-07-28"
    wrk.headers["Mcp-Method"] = "tools/call"
    wrk.headers["Mcp-Name"] = "add_numbers"
    suffix = stateless_suffix
  else
    fixed = wrk.format()
  end
end

function request()
  local t = now_us()
  if last then
    local us = math.floor(t - last)
    hist[us] = (hist[us] or 0) + 1
  end
  last = t
  if fixed then return fixed end
  counter = counter + 1
  return wrk.format(nil, nil, nil, prefix .. (base + counter) .. suffix)
end

function done(summary, latency, requests)
  local e = summary.errors
  local bad_total, merged, count = 0, {}, 0
  for _, thread in ipairs(threads) do
    bad_total = bad_total + (thread:get("bad") or 0)
    for us, n in pairs(thread:get("hist") or {}) do
      merged[us] = (merged[us] or 0) + n
      count = count + n
    end
  end
  local keys = {}
  for us in pairs(merged) do keys[#keys + 1] = us end
  table.sort(keys)
  local function percentile(p)
    local rank, total = math.ceil(count * p / 100), 0
    for _, us in ipairs(keys) do
      total = total + merged[us]
      if total >= rank then return us end
    end
    return 0
  end
  io.write(string.format(
    "RESULT requests=%d duration_us=%d own_p50_us=%d own_p99_us=%d wrk_p50_us=%d wrk_p99_us=%d errors=%d connect=%d read=%d write=%d status=%d timeout=%d bad=%d\n",
    summary.requests, summary.duration, percentile(50), percentile(99),
    latency:percentile(50), latency:percentile(99),
    e.connect + e.read + e.write + e.status + e.timeout, e.connect, e.read, e.write, e.status, e.timeout, bad_total))
end
