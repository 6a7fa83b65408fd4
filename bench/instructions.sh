#!/usr/bin/env bash
# Instructions per request, counted by callgrind: exact where times on a shared machine are not,
# so a change of 1% shows. Each kind of request is sent N times, then N/4 times, to a fresh
# server under callgrind; (count(N) - count(N/4)) / (3N/4) is one request, start and stop cancelled
# out. Over HTTP only the connection's task is counted (hyper reading and writing, the answer):
# the runtime's timers fire with the time a run takes under callgrind, which moves a whole-program
# count by up to ~1,000 instructions a request from one run of a build to the next, while the
# connection's task repeats within ~50. Requests come as the SDKs write them (bench/instructions/
# requests.py).
#   bench/instructions.sh                    # builds (release), then about a minute
#   bench/instructions.sh --baseline OLD     # also OLD (the previous main's conformance-server)
# See bench/README.md ("Instructions per request").
set -euo pipefail

bench="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(dirname "$bench")"
source "$bench/tools.sh"

http_requests=1600 # N over HTTP
stdio_requests=20000 # N over stdio
build=1
baseline=""

usage() {
  sed -n '2,11p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
  cat <<EOF
options:
  --http-requests N   requests per HTTP count (default $http_requests)
  --stdio-requests N  requests per stdio count (default $stdio_requests)
  --no-build          use the binaries already built
  --baseline PATH     also count this conformance-server binary (the previous main, say)
EOF
}

while [[ $# -gt 0 ]]; do
  case "$1" in
    --http-requests) http_requests="$2"; shift 2 ;;
    --stdio-requests) stdio_requests="$2"; shift 2 ;;
    --no-build) build=0; shift ;;
    --baseline) baseline="$2"; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) echo "unknown argument: $1" >&2; usage >&2; exit 2 ;;
  esac
done

require valgrind python3

tooltable_bin="$repo/target/release/conformance-server"
[[ $build -eq 0 ]] || build_release --bin http-floor --bin floor-server
http_floor_bin="$bench/target/release/http-floor"
stdio_floor_bin="$bench/target/release/floor-server"
requests_py="$bench/instructions/requests.py"

tmp="$(mktemp -d /tmp/instructions.XXXXXX)"
server_pid=""
cleanup() {
  [[ -z "$server_pid" ]] || kill "$server_pid" 2>/dev/null || true
  rm -rf "$tmp"
}
trap cleanup EXIT

# The function whose instructions are counted over HTTP: the connection's task of each server.
toggle_of() {
  case "$1" in
    "$http_floor_bin") echo 'http_floor::main::{{closure}}::{{closure}}' ;;
    *) echo 'tooltable_transports::http::listener::serve::{{closure}}::{{closure}}' ;;
  esac
}

# count BIN TRANSPORT KIND ORDER N -> the instructions callgrind counted
count() {
  local bin="$1" transport="$2" kind="$3" order="$4" n="$5" out="$tmp/callgrind.out"
  rm -f "$out"
  if [[ $transport == stdio ]]; then
    python3 "$requests_py" stdio "$order" "$n" >"$tmp/in"
    local args=(); [[ $bin == "$stdio_floor_bin" ]] || args=(mcp)
    RUST_LOG=off valgrind --tool=callgrind --callgrind-out-file="$out" "$bin" "${args[@]}" \
      <"$tmp/in" >"$tmp/answers" 2>"$tmp/server.err"
    # The calls' answers (the floor answers `initialize`, id 0, as it answers any request).
    local answered; answered="$(grep -v '"id":0,' "$tmp/answers" | grep -c '"sum":3' || true)"
    [[ "$answered" == "$n" ]] || { log "$bin answered $answered of $n calls"; exit 1; }
  else
    local args=(serve --listen 127.0.0.1:0); [[ $bin != "$http_floor_bin" ]] || args=(127.0.0.1:0)
    RUST_LOG=off valgrind --tool=callgrind --collect-atstart=no --toggle-collect="$(toggle_of "$bin")" \
      --callgrind-out-file="$out" "$bin" "${args[@]}" >"$tmp/server.err" 2>&1 &
    server_pid=$!
    local url=""
    for _ in $(seq 300); do
      url="$(listening_url "$tmp/server.err")"
      [[ -z "$url" ]] || break
      kill -0 "$server_pid" 2>/dev/null || break
      sleep 0.1
    done
    [[ -n "$url" ]] || { log "$bin did not start:"; cat "$tmp/server.err" >&2; exit 1; }
    python3 "$requests_py" http "$kind" "$order" "${url##*:}" "$n"
    kill -TERM "$server_pid"
    wait "$server_pid" || true
    server_pid=""
  fi
  awk '/^(summary|totals):/ { print $2; exit }' "$out"
}

# per_request BIN TRANSPORT KIND ORDER -> instructions per request
per_request() {
  local n=$http_requests; [[ $2 != stdio ]] || n=$stdio_requests
  local quarter=$((n / 4)) all some
  all="$(count "$@" "$n")"; some="$(count "$@" "$quarter")"
  if [[ -z "$all" || -z "$some" || "$all" -le "$some" ]]; then
    local hint=""; [[ $2 == stdio ]] || hint=": did the counted function ($(toggle_of "$1")) change its name?"
    log "no instructions counted for $*$hint"
    exit 1
  fi
  echo $(((all - some) / (n - quarter)))
}

# Rows: LABEL|TRANSPORT|KIND|ORDER|FLOOR KIND ("-": no floor for it)
rows=(
  "stdio tools/call, Python SDK order|stdio|call|python|call"
  "stdio tools/call, TypeScript SDK order|stdio|call|typescript|call"
  "POST /mcp, session, Python SDK order|http|session|python|floor"
  "POST /mcp, session, TypeScript SDK order|http|session|typescript|floor"
  "POST /mcp, session, with a stateless call's Mcp-Name too|http|session-named|python|-"
  "POST /mcp, 2026-07-28, empty capabilities|http|stateless|python|-"
  "POST /mcp, 2026-07-28, as the TypeScript SDK v2 writes it|http|stateless-sdk|typescript|-"
  "GET /add (REST)|http|rest|python|rest"
)
printf '%-58s %8s %10s' "instructions per request" "floor" "tooltable"
[[ -z "$baseline" ]] || printf ' %10s %8s' "baseline" "change"
printf ' %9s\n' "/ floor"
for row in "${rows[@]}"; do
  IFS='|' read -r label transport kind order floor_kind <<<"$row"
  floor_bin="$http_floor_bin"; [[ $transport == http ]] || floor_bin="$stdio_floor_bin"
  floor="-"; [[ $floor_kind == - ]] || floor="$(per_request "$floor_bin" "$transport" "$floor_kind" "$order")"
  tooltable="$(per_request "$tooltable_bin" "$transport" "$kind" "$order")"
  printf '%-58s %8s %10s' "$label" "$floor" "$tooltable"
  if [[ -n "$baseline" ]]; then
    base="$(per_request "$baseline" "$transport" "$kind" "$order")"
    printf ' %10s %+7.1f%%' "$base" "$(awk -v a="$tooltable" -v b="$base" 'BEGIN { print (a - b) / b * 100 }')"
  fi
  if [[ $floor == - ]]; then printf ' %9s\n' "-"; else printf ' %8.2fx\n' "$(awk -v a="$tooltable" -v b="$floor" 'BEGIN { print a / b }')"; fi
done
echo "callgrind; N = $http_requests requests over HTTP (one keep-alive connection; only the connection's task counted),"
echo "$stdio_requests over stdio (the whole process); each figure (count(N) - count(N/4)) / (3N/4)."
