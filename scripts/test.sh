#!/usr/bin/env bash
# The whole test suite, as CI runs it (.ci/run calls this script).
#
# As root it installs what the tests need, runs every test (with the race
# detector) and, at the same time, creates an unprivileged user and runs
# the suite again as that user: root is not the common case for
# agentbox's users. As any other user it runs the suite once, as that
# user.
#
# Environment: AGENTBOX_TEST_USER (default agentbox-ci) names the
# unprivileged user; AGENTBOX_SKIP_UNPRIVILEGED=1 skips that second run.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
go=$(command -v go) || { echo "test.sh: Go is not installed" >&2; exit 1; }
export GOTOOLCHAIN=local GOFLAGS=-buildvcs=false

step() { printf '\n==> %s\n' "$*"; }

if [ "$(id -u)" = 0 ]; then
	step "installing test dependencies"
	# The sandbox's tests need these; without one, the run stops here.
	required=(bubblewrap curl git gcc python3 iproute2 ca-certificates)
	# The rest are programs the tests run for real: round 61's file-system
	# images (btrfs-progs, e2fsprogs), and the programs whose behaviour a
	# classifier test's premise shows (the program does what the line it
	# judges relies on). Such a test skips, naming its package, where one
	# cannot be installed.
	optional=(ruby bundler rake gawk lua5.4 expect m4 tmux screen bsdutils
		vim direnv ansible-core tox python3-nox pre-commit python3-pytest postgresql-client
		composer btrfs-progs e2fsprogs
		cmake ninja-build meson autoconf automake scons mocha bmake remake ant
		python3-invoke python3-doit python3-build python3-setuptools python3-wheel cpio pax dpkg-dev)
	missing() { for p in "$@"; do dpkg -s "$p" >/dev/null 2>&1 || echo "$p"; done; }
	export DEBIAN_FRONTEND=noninteractive
	need=($(missing "${required[@]}"))
	want=($(missing "${optional[@]}"))
	if [ ${#need[@]} -gt 0 ] || [ ${#want[@]} -gt 0 ]; then
		echo "installing ${need[*]} ${want[*]}"
		apt-get update -qq
	fi
	if [ ${#need[@]} -gt 0 ]; then
		apt-get install -y -qq "${need[@]}" >/dev/null
	fi
	if [ ${#want[@]} -gt 0 ] && ! apt-get install -y -qq "${want[@]}" >/dev/null 2>&1; then
		for p in "${want[@]}"; do
			apt-get install -y -qq "$p" >/dev/null 2>&1 ||
				echo "test.sh: could not install $p; the tests that run it will skip" >&2
		done
	fi
	# yarn 1 and pnpm come from the npm registry (with the machine's node
	# and npm); without them the tests that need them skip, saying so.
	for tool in yarn@1.22.22 pnpm@9.15.9; do
		command -v "${tool%@*}" >/dev/null || ! command -v npm >/dev/null ||
			timeout 120 npm install -g --no-audit --no-fund "$tool" >/dev/null 2>&1 ||
			echo "test.sh: could not install $tool from the npm registry; its tests will skip" >&2
	done
	# One module cache both users read.
	export GOMODCACHE=/var/cache/agentbox-test/gomod
	mkdir -p "$GOMODCACHE"
fi

step "downloading modules"
"$go" mod download
[ "$(id -u)" = 0 ] && chmod -R a+rX /var/cache/agentbox-test

step "gofmt and go vet"
unformatted=$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go' -not -path './vendor/*'))
if [ -n "$unformatted" ]; then
	echo "gofmt would change:" >&2
	echo "$unformatted" >&2
	exit 1
fi
"$go" vet ./...
# The library and its tests build where no sandbox runs yet (it refuses
# with ErrUnsupportedPlatform there): keep it so.
GOOS=darwin "$go" vet ./...
GOOS=windows "$go" vet ./...

# As root, the unprivileged user's suite runs beside root's: the tests
# spend most of their time waiting on sandboxed programs (the root
# package used 63 s of CPU in 282 s), so the two overlap well on two
# cores. Its output is held in a file and shown after root's.
unpriv_pid=
if [ "$(id -u)" = 0 ] && [ "${AGENTBOX_SKIP_UNPRIVILEGED:-}" != 1 ]; then
	user=${AGENTBOX_TEST_USER:-agentbox-ci}
	step "starting the tests as the unprivileged user $user (beside root's; output below them)"
	id "$user" >/dev/null 2>&1 || useradd --create-home --shell /bin/bash "$user"
	home=$(getent passwd "$user" | cut -d: -f6)
	# A copy the user owns: the checkout may sit in a directory it cannot
	# read (such as /root).
	src="$home/agentbox-src"
	rm -rf "$src"
	mkdir -p "$src"
	tar -C "$repo" --exclude=./.git -cf - . | tar -C "$src" -xf -
	chown -R "$user:" "$src"
	unpriv_log=$(mktemp)
	runuser -u "$user" -- env -i HOME="$home" PATH="$(dirname "$go"):/usr/local/bin:/usr/bin:/bin" \
		GOMODCACHE="$GOMODCACHE" GOFLAGS=-buildvcs=false GOTOOLCHAIN=local \
		bash -c "cd '$src' && go test -count=1 ./..." >"$unpriv_log" 2>&1 &
	unpriv_pid=$!
	trap 'kill "$unpriv_pid" 2>/dev/null || true' EXIT
fi

status=0
if [ "$(id -u)" = 0 ]; then
	step "tests as root (race detector on)"
	"$go" test -race -count=1 ./... || status=1
else
	step "tests as $(id -un) (uid $(id -u))"
	"$go" test -count=1 ./... || status=1
fi

if [ -n "$unpriv_pid" ]; then
	step "tests as the unprivileged user $user"
	wait "$unpriv_pid" || status=1
	trap - EXIT
	cat "$unpriv_log"
	rm -f "$unpriv_log"
fi
if [ "$status" != 0 ]; then
	step "tests FAILED (see above)"
	exit 1
fi
step "all tests passed"
