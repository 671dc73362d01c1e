#!/usr/bin/env bash
# ci-example.sh runs the steps of the CI example in cmd/rawmcp/README.md
# ("Probe your server in CI") here, against `rawmcp serve` (a correct
# server) and a flawed one (serve behind a proxy that drops Origin, so
# HO-02 fails), and checks each exit status and that every SARIF log
# validates against the SARIF 2.1.0 schema and code scanning's upload
# rules. TestCIExample runs it; by hand, from the repository root:
#
#   bash cmd/rawmcp/testdata/ci-example.sh
#
# RAWMCP=path uses that binary instead of building one; WORK=dir keeps
# the reports there (default: a fresh temporary folder, removed at the
# end unless a step failed).
set -euo pipefail
cd "$(dirname "$0")/../../.."

keep=${WORK:+yes}
WORK=${WORK:-$(mktemp -d "${TMPDIR:-/tmp}/rawmcp-ci-example.XXXXXX")}
pids=()
finish() {
  status=$?
  for pid in "${pids[@]}"; do
    kill "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  done
  if [ "$status" != 0 ]; then
    echo "ci-example: failed; the reports are in $WORK" >&2
  elif [ -z "$keep" ]; then
    rm -rf "$WORK"
  fi
}
trap finish EXIT

# The workflow's "Build rawmcp at a pinned commit": here, this checkout.
if [ -z "${RAWMCP:-}" ]; then
  GOBIN="$WORK/bin" go install ./cmd/rawmcp
  RAWMCP="$WORK/bin/rawmcp"
fi
go build -o "$WORK/sarifcheck" ./wire/client/probe/testdata/schemacheck/sarifcheck
go build -o "$WORK/originstrip" ./cmd/rawmcp/testdata/originstrip

# start NAME CMD...: the workflow's "Start the server". It runs CMD in
# the background and reads the first line it prints (rawmcp serve's
# {"url": ..., "token": ...}, printed once it listens) into URL and TOKEN.
start() {
  local name=$1
  shift
  mkfifo "$WORK/$name.fifo"
  "$@" >"$WORK/$name.fifo" 2>"$WORK/$name.log" &
  pids+=($!)
  local line
  if ! read -r -t 60 line <"$WORK/$name.fifo"; then
    echo "ci-example: $name printed no first line" >&2
    exit 1
  fi
  URL=$(sed -E 's/.*"url":"([^"]*)".*/\1/' <<<"$line")
  TOKEN=$(sed -E 's/.*"token":"([^"]*)".*/\1/' <<<"$line")
}

# expect CODE WHAT CMD...: runs CMD, its stderr kept in $WORK/last.err,
# and stops the script unless it exits CODE.
expect() {
  local want=$1 what=$2
  shift 2
  local got=0
  "$@" >"$WORK/last.out" 2>"$WORK/last.err" || got=$?
  if [ "$got" != "$want" ]; then
    echo "ci-example: $what: exit status $got, want $want" >&2
    cat "$WORK/last.out" "$WORK/last.err" >&2
    exit 1
  fi
  echo "ci-example: $what: exit status $got"
}

# valid FILE RESULTS: the SARIF log validates and holds RESULTS results.
valid() {
  "$WORK/sarifcheck" "$1"
  local n
  n=$(grep -c '"ruleId":' "$1" || true)
  if [ "$n" != "$2" ]; then
    echo "ci-example: $1 holds $n results, want $2" >&2
    exit 1
  fi
  echo "ci-example: $(basename "$1") validates, $n results"
}

# A correct server: no MUST fails, no result to upload.
start serve "$RAWMCP" serve
expect 0 "rawmcp serve" "$RAWMCP" probe "$URL" -token "$TOKEN" -q \
  -sarif "$WORK/serve.sarif" -html "$WORK/serve.html"
valid "$WORK/serve.sarif" 0

# A flawed server: HO-02 fails (exit 1) and is the one result; the run
# writes the baseline a team would commit.
start flawed "$WORK/originstrip" "$RAWMCP"
expect 1 "the flawed server" "$RAWMCP" probe "$URL" -token "$TOKEN" -q \
  -sarif "$WORK/flawed.sarif" -html "$WORK/flawed.html" -write-baseline "$WORK/baseline.json"
valid "$WORK/flawed.sarif" 1
grep -q '"ruleId": "HO-02"' "$WORK/flawed.sarif"
grep -q '"HO-02": "fail"' "$WORK/baseline.json"

# The workflow's step: the baseline accepts HO-02, so the run exits 0
# and uploads no alert for it.
expect 0 "the flawed server with its baseline" "$RAWMCP" probe "$URL" -token "$TOKEN" -q \
  -baseline "$WORK/baseline.json" -sarif "$WORK/accepted.sarif"
valid "$WORK/accepted.sarif" 0
grep -q '^probe: .*; baseline: no regression, 1 accepted$' "$WORK/last.out"

# An entry past its expiry accepts nothing: exit 1, and it says so.
sed 's/"HO-02": "fail"/"HO-02": {"verdict": "fail", "reason": "the Origin check ships next release", "expires": "2020-01-31"}/' \
  "$WORK/baseline.json" >"$WORK/expired.json"
expect 1 "an expired baseline entry" "$RAWMCP" probe "$URL" -token "$TOKEN" -q -baseline "$WORK/expired.json"
grep -q 'baseline: 1 regression (HO-02), 1 expired entry (HO-02)' "$WORK/last.err"

# What CI tells apart by the exit status alone.
expect 2 "a usage error" "$RAWMCP" probe "$URL" -no-such-flag
expect 4 "nothing listening" "$RAWMCP" probe http://127.0.0.1:1/mcp -q
echo "ci-example: every step as the README says"
