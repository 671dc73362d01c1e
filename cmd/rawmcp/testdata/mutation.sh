#!/usr/bin/env bash
# Mutation testing with gremlins, by hand, not in CI: gremlins changes one
# operator at a time in each package's covered code (a < into <=, a + into
# -, a condition negated, ...) and runs the package's tests; a mutant the
# tests still pass on is LIVED, a hole in the tests or an equivalent change.
# Efficacy is killed / (killed + lived).
#
# gremlins is not a module dependency: it is installed, pinned, into a
# scratch GOBIN outside the repo.
#
#   bash cmd/rawmcp/testdata/mutation.sh               (./policy ./state ./httpparse)
#   bash cmd/rawmcp/testdata/mutation.sh ./httpparse   (from the repo root)
#
# TIMEOUT_COEFFICIENT (default 10): a mutant's go test may take that many
# times the unmutated coverage run before it counts as TIMED OUT. gremlins'
# default of 3 is too tight on a shared 2-core machine, where the workers'
# runs compete with each other and with everything else; 10 still stops a
# mutant that turns a loop infinite within a minute or so.
# WORKERS (default 2): mutants tested at once, one per core.
# WORK (default /tmp/rawmcp-gremlins): where gremlins is installed and each
# package's JSON results are written.
set -euo pipefail

REPO=${REPO:-$(cd "$(dirname "$0")/../../.." && pwd)}
WORK=${WORK:-/tmp/rawmcp-gremlins}
TIMEOUT_COEFFICIENT=${TIMEOUT_COEFFICIENT:-10}
WORKERS=${WORKERS:-2}
GREMLINS_VERSION=v0.6.0

if [ $# -eq 0 ]; then
	set -- ./policy ./state ./httpparse
fi

# A go-installed gremlins reports its version as "dev", so the pinned
# version names the directory instead.
GOBIN_DIR="$WORK/gremlins-$GREMLINS_VERSION"
GREMLINS="$GOBIN_DIR/gremlins"
if [ ! -x "$GREMLINS" ]; then
	mkdir -p "$GOBIN_DIR"
	(cd "$WORK" && GOBIN="$GOBIN_DIR" go install "github.com/go-gremlins/gremlins/cmd/gremlins@$GREMLINS_VERSION")
fi

# gremlins times the unmutated run to set every mutant's timeout; a run
# answered from go test's cache would take milliseconds and time out every
# mutant.
export GOFLAGS="${GOFLAGS:+$GOFLAGS }-count=1"

status=0
for pkg in "$@"; do
	name=$(basename "$pkg")
	echo "=== $pkg"
	(cd "$REPO" && "$GREMLINS" unleash \
		--workers "$WORKERS" \
		--timeout-coefficient "$TIMEOUT_COEFFICIENT" \
		--output "$WORK/$name.json" \
		"$pkg") || status=1
done
exit "$status"
