#!/bin/sh
# Runs the official JSONata test suite through `valem mcp`'s eval_expression tool, over stdio,
# and prints pass and fail per group and the total.
#   scripts/jsonata-suite.sh [SUITE_DIR] [--failures]
# SUITE_DIR defaults to the suite in the repository, tests/jsonata-suite.
set -eu
crate="$(cd "$(dirname "$0")/.." && pwd)"
suite="$crate/tests/jsonata-suite"
case "${1:-}" in
  ""|--*) ;;
  *) suite="$1"; shift ;;
esac
target="${CARGO_TARGET_DIR:-$crate/../../target}"
cargo build --quiet --release --manifest-path "$crate/Cargo.toml" --bin valem --example jsonata_suite
"$target/release/examples/jsonata_suite" --valem "$target/release/valem" --suite "$suite" "$@"
