//go:build linux

package attack_test

import (
	"path/filepath"
	"testing"

	"github.com/agentbox-dev/agentbox"
)

// TestRedteam23ReducedTierCacheEnvInHiddenTmp runs everyday builds in the
// reduced tier for a user whose home has no ~/.cache or ~/.npm yet (a new
// account, a CI runner's or a dev container's user). The root package
// then points XDG_CACHE_HOME at /tmp/.cache and npm_config_cache at
// /tmp/.npm (missingCaches, env.go): the full tier's private /tmp. The
// reduced tier has no private /tmp: it now withholds the host's whole
// (landlockSpec.Hidden) and rewrites only TMPDIR to its private directory
// (privateTmpEnv), so both variables still name the host's /tmp, where the
// program may not create anything. `go build` fails outright ("failed to
// initialize build cache at /tmp/.cache/go-build: mkdir /tmp/.cache:
// permission denied": GOCACHE defaults to $XDG_CACHE_HOME/go-build), and
// so does npm (`npm install` of a local tarball, `npm cache verify`:
// EACCES on mkdir /tmp/.npm); every other XDG cache user (pip, ruff,
// pre-commit, node-gyp, …) loses its cache or fails likewise. The control:
// the same commands, same home, succeed in the full tier run beside it.
// (Before the hiding, the host's /tmp was read-only there, so this was
// already broken; the new TMPDIR rewrite left these two variables out.)
// Neither Degraded nor the README's reduced-tier limits say so.
//
// Severity: low (no escape; a legitimate regression of the reduced tier:
// the warn fallback runs, but go and npm builds fail for a user without
// those caches).
//
// Fix: in the reduced tier rewrite the missing-cache variables that point
// into /tmp as TMPDIR is (privateTmpEnv: $tier_tmp/.cache, $tier_tmp/.npm),
// or have the root package express them relative to the TMPDIR the tier
// chooses.
func TestRedteam23ReducedTierCacheEnvInHiddenTmp(t *testing.T) {
	if isRoot {
		t.Skip("the reduced tier refuses root (TestReducedTier); run as an unprivileged user")
	}
	t.Parallel()
	// A home without ~/.cache or ~/.npm.
	home := newDir(t, 0o755)
	writeFile(t, filepath.Join(home, ".profile"), "# fresh\n", 0o644)
	sh := func(script string) string { return "exec:/bin/sh|-c|" + script }
	ps := func(w string) []probe {
		writeFile(t, filepath.Join(w, "go.mod"), "module hello\n\ngo 1.22\n", 0o644)
		writeFile(t, filepath.Join(w, "main.go"), "package main\n\nfunc main() { println(\"hello-built\") }\n", 0o644)
		return []probe{
			control("private_tmpdir", sh(`f=$(mktemp) && echo tmp-ok >"$f" && cat "$f"`), "tmp-ok"),
			control("go_build", sh(`cd `+w+` && go build -o hello . 2>&1 && ./hello 2>&1`), "hello-built"),
			control("npm_install_local", sh(`mkdir -p `+w+`/lib `+w+`/app && cd `+w+`/lib && npm init -y >/dev/null && npm pack >/dev/null 2>&1 && cd ../app && npm init -y >/dev/null && npm install ../lib/lib-1.0.0.tgz >/dev/null 2>&1 && echo npm-installed`), "npm-installed"),
			control("npm_cache_verify", sh(`npm cache verify 2>&1`), "Cache verified"),
		}
	}
	t.Run("full", func(t *testing.T) {
		w := newDir(t, 0o777)
		p := ps(w)
		o, res := runProbes(t, ciMgr, p, agentbox.WithWritableRoots(w), agentbox.WithEnv("HOME="+home))
		t.Logf("layers %q\nattacker output:\n%s", res.Layers, res.Stdout)
		checkProbes(t, o, p)
	})
	t.Run("reduced", func(t *testing.T) {
		w := newDir(t, 0o777)
		p := ps(w)
		refused, res := runBinInChild(t, "no-capabilities", false, w, attackerBin, probeArgs(p), "HOME="+home)
		if res == nil {
			t.Fatalf("agentbox refused: %s", refused)
		}
		o := parseOutput(res.Stdout)
		if !o.started || !o.done {
			t.Fatalf("attacker run incomplete (exit %d)\nstdout:\n%s\nstderr:\n%s", res.ExitCode, res.Stdout, res.Stderr)
		}
		t.Logf("layers %q\ndegraded %q\nattacker output:\n%s", res.Layers, res.Degraded, res.Stdout)
		checkProbes(t, o, p)
	})
}
