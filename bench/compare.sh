#!/usr/bin/env bash
# Puts agentbox beside bubblewrap and a bare exec in one run and prints
# medians and ratios. Usage: bench/compare.sh [runs]
set -euo pipefail
cd "$(dirname "$0")/.."
command -v bwrap >/dev/null || { echo "bench: bubblewrap is missing (apt-get install -y bubblewrap)" >&2; exit 1; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
# Static, as agentbox is shipped: a dynamically linked init pays for the
# dynamic loader and libc in every sandbox.
export CGO_ENABLED=0
go build -o "$out/agentbox" ./cmd/agentbox
go build -o "$out/compare" ./bench/compare
"$out/compare" -n "${1:-200}" -agentbox "$out/agentbox"
