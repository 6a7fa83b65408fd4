#!/usr/bin/env bash
# Builds what the stdio benchmark needs (release) and runs it; arguments go to the driver:
#   bench/stdio.sh                      # 20,000 calls per run, 2 interleaved rounds
#   bench/stdio.sh --calls 50000        # more calls
#   bench/stdio.sh --build-times        # also time clean release builds (takes minutes)
#   bench/stdio.sh --help
# Everything runs over pipes between local processes; nothing touches the network.
set -euo pipefail

bench="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(dirname "$bench")"
source "$bench/tools.sh"

build_release --bin stdio-bench --bin floor-server --bin rmcp-default --bin rmcp-tuned

exec "$bench/target/release/stdio-bench" \
  --tooltable "$repo/target/release/conformance-server" \
  --floor "$bench/target/release/floor-server" \
  --rmcp-default "$bench/target/release/rmcp-default" \
  --rmcp-tuned "$bench/target/release/rmcp-tuned" \
  "$@"
