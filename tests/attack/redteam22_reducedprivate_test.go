//go:build linux

package attack_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRedteam22ReducedTierHostTmpCredentials reads, from the reduced tier,
// credentials the user's programs keep in the host's /tmp, /dev/shm and
// $XDG_RUNTIME_DIR: a Kerberos ticket cache (/tmp/krb5cc_UID..., MIT
// Kerberos' and sssd's default FILE: cache, mode 0600: whoever reads it
// acts as the user to every Kerberos service until the ticket expires),
// a POSIX shared memory segment of another program of the user's
// (/dev/shm/NAME, 0600; the System V ones the tier already refuses as
// "the user's own segments"), and podman's registry login, whose default
// place is $XDG_RUNTIME_DIR/containers/auth.json (the default deny list
// names only ~/.config/containers/auth.json, the fallback).
//
// The full tier shows none of them: /tmp, /dev/shm and /run are private
// tmpfs mounts there (README: "a private /tmp (/dev/shm, /run are private
// too)"), which is why the deny list leaves them out (plan.landlock drops
// deny paths inside privateAreas). The reduced tier cannot mount, keeps
// only a private TMPDIR, and grants Landlock read on "/" with the deny
// list's carve-outs: the host's /tmp, /dev/shm and /run are readable
// whole, and neither the layer list, ExecResult.Degraded nor the README's
// reduced-tier limits say so. The controls: the same files are not
// visible from the full tier (run beside it, as the same user), and in the
// reduced tier a readable host file is read and the home's denied SSH key
// is not.
//
// Severity: medium (credentials of the user read in the reduced tier;
// unprivileged callers under the warn fallback on machines without usable
// user namespaces).
//
// Fix: in the reduced tier carve /tmp, /dev/shm and /run (and
// $XDG_RUNTIME_DIR) out of Landlock's read rights (the private TMPDIR is
// a writable root of its own and stays reachable), or at least add them
// to the reduced tier's deny list and Degraded message; a later Landlock
// cannot hide names, only contents, which is what matters here.
//
// Fixed: the reduced tier withholds Landlock's read and write rights from
// the host's /tmp, /dev/shm and /run (landlockSpec.Hidden, see
// sandbox/linux/plan_reduced.go), keeping readable only what the full tier
// shows there (a working directory, home or read allow-list entry, the
// target of /etc/resolv.conf); its TMPDIR is a writable root of its own.
func TestRedteam22ReducedTierHostTmpCredentials(t *testing.T) {
	if isRoot {
		t.Skip("the reduced tier refuses root (TestReducedTier); run as an unprivileged user")
	}
	t.Parallel()
	const secret = "agentbox-rt22-host-private-area-secret"
	tag := fmt.Sprintf("%d_rt22c_%d", os.Getuid(), os.Getpid())
	krb := filepath.Join("/tmp", "krb5cc_"+tag)
	shm := filepath.Join("/dev/shm", "rt22c-segment-"+tag)
	files := []string{krb, shm}
	if rd := os.Getenv("XDG_RUNTIME_DIR"); rd != "" {
		if fi, err := os.Stat(rd); err == nil && fi.IsDir() {
			d, err := os.MkdirTemp(rd, "rt22c-containers-")
			if err == nil {
				t.Cleanup(func() { os.RemoveAll(d) })
				files = append(files, filepath.Join(d, "auth.json"))
			}
		}
	}
	for _, f := range files {
		writeFile(t, f, secret+" "+f, 0o600)
		t.Cleanup(func() { os.Remove(f) })
	}
	var ps []probe
	for i, f := range files {
		ps = append(ps, attack(fmt.Sprintf("read_private_area_%d", i), "read:"+f))
	}
	ps = append(ps,
		control("read_host_file", "read:"+filepath.Join(fakeHome, ".profile"), "harmless profile"),
		// The sandbox's own temporary directory (TMPDIR in the reduced
		// tier, the private /tmp in the full one) and the resolver's
		// configuration stay usable.
		control("private_tmpdir", `exec:/bin/sh|-c|f=$(mktemp) && echo tmp-ok >"$f" && cat "$f"`, "tmp-ok"),
		control("read_resolv_conf", "read:/etc/resolv.conf", ""),
		attack("read_denied_key", "read:"+filepath.Join(fakeHome, ".ssh", "id_ed25519")))

	t.Run("full", func(t *testing.T) {
		o, res := runProbes(t, ciMgr, ps)
		t.Logf("layers %q\nattacker output:\n%s", res.Layers, res.Stdout)
		checkProbes(t, o, ps)
	})
	t.Run("reduced", func(t *testing.T) {
		w := newDir(t, 0o755)
		refused, res := runInChild(t, "no-capabilities", false, w, ps)
		if res == nil {
			t.Fatalf("agentbox refused: %s", refused)
		}
		o := parseOutput(res.Stdout)
		if !o.started || !o.done {
			t.Fatalf("attacker run incomplete (exit %d)\nstdout:\n%s\nstderr:\n%s", res.ExitCode, res.Stdout, res.Stderr)
		}
		t.Logf("layers %q\nattacker output:\n%s", res.Layers, res.Stdout)
		checkProbes(t, o, ps)
		if strings.Contains(res.Stdout, secret) {
			t.Errorf("ESCAPE: a credential of the host's /tmp, /dev/shm or runtime directory was read in the reduced tier")
		}
	})
}
