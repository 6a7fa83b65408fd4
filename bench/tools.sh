# Sourced by the benchmark scripts, which set `bench` and `repo` (the bench and root workspaces).

# A failure inside `$(...)` fails the command that reads it, as it does outside.
shopt -s inherit_errexit

# log MESSAGE...: a line on stderr, named after the script.
log() { echo "$(basename "$0"): $*" >&2; }

# require COMMAND...: installs the Debian packages of the same names for the commands missing
# (wrk, curl, valgrind: each command is its package's name).
require() {
  local missing=() command
  for command in "$@"; do command -v "$command" >/dev/null || missing+=("$command"); done
  [[ ${#missing[@]} -gt 0 ]] || return 0
  log "installing ${missing[*]} (apt-get)"
  local sudo_=""; [[ $(id -u) -eq 0 ]] || sudo_="sudo"
  $sudo_ apt-get update -qq >/dev/null
  DEBIAN_FRONTEND=noninteractive $sudo_ apt-get install -y -qq "${missing[@]}" >/dev/null
}

# build_release ARG...: builds the root workspace's conformance-server and, with ARG... (`--bin NAME`,
# `--features F`), binaries of the bench workspace; release, each workspace in its own target.
build_release() {
  log "building conformance-server (release) in $repo"
  cargo build --release --quiet --manifest-path "$repo/Cargo.toml" --target-dir "$repo/target" -p conformance-server
  log "building ${*//--bin /} (release) in $bench"
  cargo build --release --quiet --manifest-path "$bench/Cargo.toml" --target-dir "$bench/target" "$@"
}

# listening_url FILE: the `http://ADDR` of the server whose stderr is FILE, once its
# "listening on http://ADDR" line is written whole (a server may write it in pieces); else nothing.
listening_url() {
  local line
  # `read` fails on a line without its newline: one still being written.
  while IFS= read -r line; do
    [[ $line =~ ^listening\ on\ (http://[0-9.]+:[0-9]+) ]] && { echo "${BASH_REMATCH[1]}"; return; }
  done <"$1"
  return 0
}
