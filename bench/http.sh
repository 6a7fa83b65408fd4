#!/usr/bin/env bash
# HTTP load benchmark: tooltable's `serve` (POST /mcp tools/call in a session and stateless in
# revision 2026-07-28, GET /add) against a hyper floor and rmcp's Streamable HTTP server, with wrk
# as the load generator. Everything on 127.0.0.1.
#   bench/http.sh                   # builds (release), then about 8 minutes of load
#   bench/http.sh --duration 3 --rounds 1 --pairs 3 --pair-duration 1   # quicker (2 min), noisier
#   bench/http.sh --help
# See bench/README.md ("HTTP load") for what is measured and the figures.
set -euo pipefail

bench="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(dirname "$bench")"
source "$bench/tools.sh"

duration=5      # seconds of load per point
rounds=2        # rounds over all points (fresh order each); each point's best round is reported
pairs=5         # back-to-back pairs per target ratio and level; the ratio reported is their median
pair_duration=2 # seconds of load per point of a pair
threads=2       # wrk threads at concurrency 64 (concurrency 1 always uses one)
rss_step=100000 # RSS read after this many and twice this many tools/call on a fresh server
warmup=1        # seconds of load before a server's first point at each concurrency
build=1
baseline=""    # another conformance-server binary (the previous main, say), measured beside

usage() {
  sed -n '2,7p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
  cat <<EOF
options:
  --duration S     seconds of load per point (default $duration)
  --rounds N       rounds over all points, best round per point reported (default $rounds)
  --threads N      wrk threads at concurrency 64 (default $threads)
  --pairs N        back-to-back pairs per target ratio and level, median reported (default $pairs)
  --pair-duration S  seconds of load per point of a pair (default $pair_duration)
  --rss-step N     requests per RSS phase (default $rss_step)
  --no-build       use the binaries already built
  --baseline PATH  also measure this conformance-server binary (the previous main, say) as
                   "baseline", /mcp in a session and without, so a change is compared in one run
EOF
}

while [[ $# -gt 0 ]]; do
  case "$1" in
    --duration) duration="$2"; shift 2 ;;
    --rounds) rounds="$2"; shift 2 ;;
    --pairs) pairs="$2"; shift 2 ;;
    --pair-duration) pair_duration="$2"; shift 2 ;;
    --threads) threads="$2"; shift 2 ;;
    --rss-step) rss_step="$2"; shift 2 ;;
    --no-build) build=0; shift ;;
    --baseline) baseline="$2"; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) echo "unknown argument: $1" >&2; usage >&2; exit 2 ;;
  esac
done

# --- tools: wrk (Debian package) and curl --------------------------------------------------------
require wrk curl

# --- builds --------------------------------------------------------------------------------------
tooltable_bin="$repo/target/release/conformance-server"
[[ $build -eq 0 ]] || build_release --bin http-floor --bin rmcp-http --features rmcp-server/http
floor_bin="$bench/target/release/http-floor"
rmcp_bin="$bench/target/release/rmcp-http"

# --- servers -------------------------------------------------------------------------------------
tmp="$(mktemp -d /tmp/http-bench.XXXXXX)"
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  rm -rf "$tmp"
}
trap cleanup EXIT

declare -A url pid_of
# start NAME CMD...: starts a server on a free port (port 0), waits for "listening on http://ADDR"
# and keeps the base address (tooltable's line goes on with "/mcp (REST ..., OpenAPI ...)").
start() {
  local name="$1"; shift
  "$@" 2>"$tmp/$name.err" >/dev/null &
  local pid=$!
  pids+=("$pid"); pid_of[$name]=$pid
  for _ in $(seq 100); do
    url[$name]="$(listening_url "$tmp/$name.err")"
    [[ -z "${url[$name]}" ]] || return 0
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  log "$name did not start:"; cat "$tmp/$name.err" >&2; exit 1
}

json_h=(-H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream')
init_body='{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"http-bench","version":"0.1.0"}}}'
call_body='{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add_numbers","arguments":{"a":1,"b":2}}}'
stateless_body='{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add_numbers","arguments":{"a":1,"b":2},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}'

# session URL: initialize + notifications/initialized; prints the Mcp-Session-Id ("-" if none) and
# checks that one tools/call answers sum 3.
session() {
  local u="$1" sid
  sid="$(curl -sS -o /dev/null -D - "${json_h[@]}" -d "$init_body" "$u" | tr -d '\r' |
    awk 'tolower($1) == "mcp-session-id:" { print $2 }')"
  [[ -n "$sid" ]] || sid="-"
  local sid_h=(); [[ "$sid" == "-" ]] || sid_h=(-H "Mcp-Session-Id: $sid")
  curl -sS -o /dev/null "${json_h[@]}" "${sid_h[@]}" -H 'MCP-Protocol-Version: 2025-11-25' \
    -d '{"jsonrpc":"2.0","method":"notifications/initialized"}' "$u"
  local answer
  answer="$(curl -sS "${json_h[@]}" "${sid_h[@]}" -H 'MCP-Protocol-Version: 2025-11-25' -d "$call_body" "$u")"
  if [[ "$answer" != *'"sum":3'* ]]; then log "unexpected tools/call answer from $u: $answer"; exit 1; fi
  echo "$sid"
}

# stateless URL: checks that one tools/call of revision 2026-07-28, with no session, answers sum 3.
stateless() {
  local answer
  answer="$(curl -sS "${json_h[@]}" -H 'MCP-Protocol-Version: 2026-07-28' -H 'Mcp-Method: tools/call' \
    -H 'Mcp-Name: add_numbers' -d "$stateless_body" "$1")"
  if [[ "$answer" != *'"sum":3'* ]]; then log "unexpected stateless tools/call answer from $1: $answer"; exit 1; fi
}

start floor "$floor_bin" 127.0.0.1:0
start floor-stateless "$floor_bin" 127.0.0.1:0 stateless
start tooltable env RUST_LOG=warn "$tooltable_bin" serve --listen 127.0.0.1:0
start rmcp-json "$rmcp_bin" json 127.0.0.1:0
start rmcp-session "$rmcp_bin" session 127.0.0.1:0

tt_sid="$(session "${url[tooltable]}/mcp")"
stateless "${url[tooltable]}/mcp"
rj_sid="$(session "${url[rmcp-json]}/mcp")"
rs_sid="$(session "${url[rmcp-session]}/mcp")"
if [[ -n "$baseline" ]]; then
  start baseline env RUST_LOG=warn "$baseline" serve --listen 127.0.0.1:0
  base_sid="$(session "${url[baseline]}/mcp")"
  stateless "${url[baseline]}/mcp"
fi
[[ "$(curl -sS "${url[tooltable]}/add?a=1&b=2")" == *'"sum":3'* ]] || { log "GET /add does not answer sum 3"; exit 1; }

# Points: KEY|SERVER|URL|MODE|SESSION (MODE: bench/http/load.lua's get, mcp or stateless). The floor
# is measured three times: with wrk's pre-built GET (the floor for GET /add), with the very
# Lua-built POSTs sent to tooltable's /mcp, its session's id included (the floor for /mcp), and,
# answering as revision 2026-07-28 does, with the stateless POSTs (the floor of a stateless call,
# whose request and answer are longer).
points=(
  "floor-get|floor|${url[floor]}/|get|"
  "floor-post|floor|${url[floor]}/mcp|mcp|$tt_sid"
  "floor-stateless|floor-stateless|${url[floor-stateless]}/mcp|stateless|"
  "tt-rest|tooltable|${url[tooltable]}/add?a=1&b=2|get|"
  "tt-mcp|tooltable|${url[tooltable]}/mcp|mcp|$tt_sid"
  "tt-stateless|tooltable|${url[tooltable]}/mcp|stateless|"
  "rmcp-json|rmcp-json|${url[rmcp-json]}/mcp|mcp|$rj_sid"
  "rmcp-session|rmcp-session|${url[rmcp-session]}/mcp|mcp|$rs_sid"
)
[[ -z "$baseline" ]] || points+=(
  "base-mcp|baseline|${url[baseline]}/mcp|mcp|$base_sid"
  "base-stateless|baseline|${url[baseline]}/mcp|stateless|"
)

results="$tmp/results"; : >"$results"
# Levels: 1 and 64 connections wherever the scheduler puts wrk and the server; and 1cpu: one
# connection with wrk and the server's threads pinned to one CPU. At concurrency 1 every request
# is a ping-pong, and on a VM a wake-up across CPUs costs tens of microseconds: whether the
# scheduler keeps the two side by side swings a free c=1 figure 3x between runs (floor included),
# while 1cpu measures the work per request.
levels=(1 1cpu 64)
all_cpus="0-$(($(nproc) - 1))"
# load KEY SERVER URL MODE SESSION LEVEL SECONDS -> prints load.lua's RESULT line (key=value ...)
load() {
  local key="$1" server="$2" u="$3" mode="$4" sid="$5" level="$6" secs="$7" conc t=1 pin=()
  case "$level" in
    1cpu) conc=1; pin=(taskset -c 0); taskset -a -p -c 0 "${pid_of[$server]}" >/dev/null ;;
    *) conc="$level"; [[ "$conc" -gt 1 ]] && t="$threads" ;;
  esac
  local args=(-- "$mode"); [[ "$mode" == mcp ]] && args+=("$sid")
  "${pin[@]}" wrk -t"$t" -c"$conc" -d"${secs}s" --timeout 5s -s "$bench/http/load.lua" "$u" "${args[@]}" |
    grep '^RESULT' || { log "wrk failed on $key"; echo "RESULT requests=0 duration_us=1 errors=-1"; }
  [[ ${#pin[@]} -eq 0 ]] || taskset -a -p -c "$all_cpus" "${pid_of[$server]}" >/dev/null
}

log "servers: floor ${url[floor]} and ${url[floor-stateless]}, tooltable ${url[tooltable]}, rmcp-json ${url[rmcp-json]}, rmcp-session ${url[rmcp-session]}"
log "load: ${duration}s per point, levels ${levels[*]}, $rounds round(s), wrk threads 1 / $threads; load average $(cut -d' ' -f1-3 /proc/loadavg)"
for level in 1 64; do
  for p in "${points[@]}"; do
    IFS='|' read -r key server u mode sid <<<"$p"
    load "$key" "$server" "$u" "$mode" "$sid" "$level" "$warmup" >/dev/null
  done
done
n=${#points[@]}
for ((round = 1; round <= rounds; round++)); do
  for level in "${levels[@]}"; do
    for ((i = 0; i < n; i++)); do
      # rotate the order each round, so a burst of load elsewhere does not always hit the same server
      IFS='|' read -r key server u mode sid <<<"${points[$(((i + round - 1) % n))]}"
      line="$(load "$key" "$server" "$u" "$mode" "$sid" "$level" "$duration")"
      echo "$key $level $round $line" >>"$results"
      log "round $round $level $key: $(awk '{for(i=1;i<=NF;i++){split($i,kv,"=");if(kv[1]=="requests")r=kv[2];if(kv[1]=="duration_us")d=kv[2];if(kv[1]=="errors")e=kv[2]}} END{printf "%.0f req/s, %d errors", r/(d/1e6), e}' <<<"$line")"
    done
  done
done

# --- target ratios, from points run back to back ---------------------------------------------------
# A target is a ratio of two points. In the rounds above the two run up to a round apart, and on a
# shared machine a burst of load elsewhere moves one and not the other: the same build's c=64
# /mcp / floor POST came out 0.77x in one run and 0.90x in another. Here the two points of each
# ratio run back to back, `pairs` times, in alternating order, and the report gives the median of
# the pairs' ratios with their range.
pair_results="$tmp/pairs"; : >"$pair_results"
# RATIO|NUMERATOR|DENOMINATOR (the points' keys)
target_ratios=(
  "rest-floor|tt-rest|floor-get"
  "mcp-floor|tt-mcp|floor-post"
  "mcp-rmcp|tt-mcp|rmcp-json"
  "stateless-session|tt-stateless|tt-mcp"
  "wire-stateless-session|floor-stateless|floor-post"
)
[[ -z "$baseline" ]] || target_ratios+=("mcp-base|tt-mcp|base-mcp" "stateless-base|tt-stateless|base-stateless")
declare -A point_of
for p in "${points[@]}"; do point_of[${p%%|*}]="$p"; done
log "target ratios: $pairs pair(s) of ${pair_duration}s points each, per ratio and level"
for level in "${levels[@]}"; do
  for r in "${target_ratios[@]}"; do
    IFS='|' read -r ratio_key numerator denominator <<<"$r"
    for ((k = 1; k <= pairs; k++)); do
      order=("$numerator" "$denominator")
      ((k % 2 == 1)) || order=("$denominator" "$numerator")
      for key in "${order[@]}"; do
        IFS='|' read -r _ server u mode sid <<<"${point_of[$key]}"
        line="$(load "$key" "$server" "$u" "$mode" "$sid" "$level" "$pair_duration")"
        side=den; [[ $key != "$numerator" ]] || side=num
        echo "$ratio_key $level $k $side $line" >>"$pair_results"
      done
    done
  done
done

# --- RSS of a fresh tooltable server, between load phases ------------------------------------------
rss() { awk '/^VmRSS:/ { print $2 }' "/proc/$1/status"; }
start tooltable-rss env RUST_LOG=warn "$tooltable_bin" serve --listen 127.0.0.1:0
rss_pid=${pid_of[tooltable-rss]}
rss_sid="$(session "${url[tooltable-rss]}/mcp")"
rss_idle="$(rss "$rss_pid")"
# phase N: rss_step tools/call at concurrency 64 (one wrk thread, every response checked), then
# SIGINT to wrk once its script says it has seen them all.
rss_phase() {
  local out="$tmp/rss-phase-$1"
  wrk -t1 -c64 -d600s --timeout 5s -s "$bench/http/load.lua" "${url[tooltable-rss]}/mcp" -- mcp "$rss_sid" "$rss_step" \
    >"$out.out" 2>"$out.err" &
  local wrk_pid=$!
  while ! grep -q STOPPED "$out.err" 2>/dev/null; do
    kill -0 "$wrk_pid" 2>/dev/null || { log "wrk ended early in RSS phase $1"; cat "$out.err" >&2; break; }
    sleep 0.1
  done
  kill -INT "$wrk_pid" 2>/dev/null || true
  wait "$wrk_pid" || true
  sleep 0.2
  grep '^RESULT' "$out.out" | sed "s/^/rss$1 64 1 /" >>"$results"
}
rss_phase 1; rss_1="$(rss "$rss_pid")"
rss_phase 2; rss_2="$(rss "$rss_pid")"
tt_rss_after="$(rss "${pid_of[tooltable]}")"

# --- report --------------------------------------------------------------------------------------
echo
echo "HTTP load on 127.0.0.1: wrk $(wrk -v 2>&1 | awk 'NR==1{print $2}'), ${duration}s per point after ${warmup}s of warm-up, best of $rounds round(s);"
echo "concurrency 1: 1 wrk thread, 1 connection; concurrency 64: $threads wrk thread(s), 64 keep-alive connections; $(nproc) cores"
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
awk -v baseline="$baseline" -v pair_file="$pair_results" -v rss_idle="$rss_idle" -v rss_1="$rss_1" -v rss_2="$rss_2" -v step="$rss_step" \
    -v tt_after="$tt_rss_after" '
function field(name,   i, kv) {
  for (i = 4; i <= NF; i++) { split($i, kv, "="); if (kv[1] == name) return kv[2] }
  return 0
}
# The line of a pair: RATIO LEVEL K num|den RESULT ...
FILENAME == pair_file {
  id = $1 SUBSEP $2 SUBSEP $3
  rps = field("requests") / (field("duration_us") / 1e6)
  if ($4 == "num") num[id] = rps; else den[id] = rps
  if ($3 > npairs[$1, $2]) npairs[$1, $2] = $3
  pair_errors += field("errors") + field("bad")
  next
}
{
  key = $1; conc = $2; id = key SUBSEP conc
  rps = field("requests") / (field("duration_us") / 1e6)
  errs[id] += field("errors") + field("bad"); reqs[id] += field("requests")
  if (!(id in best) || rps > best[id]) {
    best[id] = rps
    # concurrency 1: times taken by load.lua itself; 64: the interval-sampled estimate of wrk
    p50[id] = conc != "64" ? field("own_p50_us") : field("wrk_p50_us")
    p99[id] = conc != "64" ? field("own_p99_us") : field("wrk_p99_us")
  }
}
function ratio(a, b, conc) { return best[b, conc] > 0 ? best[a, conc] / best[b, conc] : 0 }
function verdict(x, target) { return x >= target ? "met" : "MISSED" }
# The median of the pairs of a target ratio, with their range and the verdict on the median.
function paired(key, conc, label, target,   n, k, id, v, i, j, t, median) {
  n = 0
  for (k = 1; k <= npairs[key, conc]; k++) {
    id = key SUBSEP conc SUBSEP k
    if (den[id] > 0) v[++n] = num[id] / den[id]
  }
  if (n == 0) { printf "  c=%-4s %-44s    (no pairs)\n", conc, label; return }
  for (i = 2; i <= n; i++) { t = v[i]; for (j = i - 1; j >= 1 && v[j] > t; j--) v[j + 1] = v[j]; v[j + 1] = t }
  median = n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
  printf "  c=%-4s %-44s %5.2fx (%.2f-%.2f)", conc, label, median, v[1], v[n]
  if (target > 0) printf "   target >= %.1f   %s", target, verdict(median, target)
  printf "\n"
}
END {
  name["floor-get"] = "floor        GET  /            (wrk pre-built request)"
  name["floor-post"] = "floor        POST /mcp         (the session POSTs below, byte for byte)"
  name["floor-stateless"] = "floor        POST /mcp         (the 2026-07-28 POSTs below)"
  name["tt-rest"] = "tooltable    GET  /add?a=1&b=2 (REST)"
  name["tt-mcp"] = "tooltable    POST /mcp tools/call (session, application/json)"
  name["tt-stateless"] = "tooltable    POST /mcp tools/call (2026-07-28, no session, JSON)"
  name["rmcp-json"] = "rmcp         POST /mcp tools/call (stateless, json_response)"
  name["rmcp-session"] = "rmcp         POST /mcp tools/call (session, SSE response)"
  name["base-mcp"] = "baseline     POST /mcp tools/call (session, application/json)"
  name["base-stateless"] = "baseline     POST /mcp tools/call (2026-07-28, no session, JSON)"
  npoints = split("floor-get floor-post floor-stateless tt-rest tt-mcp tt-stateless rmcp-json rmcp-session" \
    (baseline != "" ? " base-mcp base-stateless" : ""), order, " ")
  split("1 1cpu 64", levels, " ")
  printf "%-64s %5s %10s %9s %9s %9s %7s\n", "server / request", "conc", "req/s", "mean µs", "p50 µs", "p99 µs", "errors"
  total_errors = 0
  for (c = 1; c <= 3; c++) {
    conc = levels[c]
    for (i = 1; i <= npoints; i++) {
      id = order[i] SUBSEP conc
      printf "%-64s %5s %10.0f %9.1f %9d %9d%s %6d\n", name[order[i]], conc, best[id], \
        (best[id] > 0 ? (conc == "64" ? 64 : 1) / best[id] * 1e6 : 0), p50[id], p99[id], (conc != "64" ? " " : "*"), errs[id]
      total_errors += errs[id]
    }
  }
  print "mean: concurrency / req/s (Little\047s law, exact for a closed loop). p50/p99 at concurrency 1: every"
  print "round trip timed by bench/http/load.lua; * at 64: wrk\047s own latency statistics, which wrk 4.1 samples per"
  print "~10 ms slice rather than per request, so on a busy machine they overweight the slow slices: rough."
  print "1cpu: one connection, wrk and the server pinned to one CPU (the work per request, no cross-CPU wake-ups)."
  print ""
  printf "target ratios of req/s: the median of %d pairs of their two points run back to back, in\n", npairs["mcp-floor", "64"]
  print "alternating order (the pairs\047 range in brackets); targets are reported, not asserted:"
  for (c = 1; c <= 3; c++) {
    conc = levels[c]
    paired("rest-floor", conc, "tooltable REST / floor GET", 0.7)
    paired("mcp-floor", conc, "tooltable /mcp / floor POST", 0.8)
    paired("mcp-rmcp", conc, "tooltable /mcp / rmcp (stateless JSON)", 1.5)
    paired("stateless-session", conc, "tooltable stateless / session /mcp", 1.0)
    paired("wire-stateless-session", conc, "  the floor: stateless / session POST", 0)
    if (baseline != "") {
      paired("mcp-base", conc, "tooltable /mcp / baseline /mcp (the change)", 0)
      paired("stateless-base", conc, "tooltable stateless / baseline stateless", 0)
    }
  }
  print "other ratios, of the table\047s best rounds:"
  for (c = 1; c <= 3; c++) {
    conc = levels[c]
    printf "  c=%-4s tooltable /mcp / floor GET %.2fx; /mcp / rmcp session SSE %.2fx; stateless / rmcp stateless JSON %.2fx\n", \
      conc, ratio("tt-mcp", "floor-get", conc), ratio("tt-mcp", "rmcp-session", conc), ratio("tt-stateless", "rmcp-json", conc)
    if (baseline != "") {
      printf "         baseline /mcp / floor POST %.2fx; baseline stateless / session /mcp %.2fx\n", \
        ratio("base-mcp", "floor-post", conc), ratio("base-stateless", "base-mcp", conc)
    }
  }
  print ""
  rss_errs = errs["rss1", 64] + errs["rss2", 64]
  growth = rss_1 > 0 ? (rss_2 - rss_1) / rss_1 * 100 : 0
  printf "tooltable RSS (fresh server, one session, tools/call at c=64, every response checked):\n"
  printf "  after initialize %.1f MB; after %d calls %.1f MB; after %d calls %.1f MB: %+.1f%% between the two, %s (target: flat, within 10%%); %d errors\n", \
    rss_idle / 1024, reqs["rss1", 64], rss_1 / 1024, reqs["rss1", 64] + reqs["rss2", 64], rss_2 / 1024, growth, \
    ((growth <= 10 && growth >= -10) ? "flat" : "NOT flat"), rss_errs
  printf "  (the server measured above, after all its points: %.1f MB)\n", tt_after / 1024
  total_errors += rss_errs + pair_errors
  printf "errors over every round, warm-up excluded (socket errors, timeouts, HTTP status >= 400, bad bodies): %d%s\n", \
    total_errors, (total_errors == 0 ? "" : "   target 0: MISSED")
}' "$pair_results" "$results"
