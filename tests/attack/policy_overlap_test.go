//go:build linux

package attack_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/agentbox-dev/agentbox"
)

// mkdirs creates each directory, mode 0777, so that a root-started
// sandbox (nobody) may write where the policy lets it.
func mkdirs(t *testing.T, ds ...string) {
	t.Helper()
	for _, d := range ds {
		if err := os.MkdirAll(d, 0o777); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(d, 0o777); err != nil {
			t.Fatal(err)
		}
	}
}

// TestPolicyEdgeOverlaps: writable roots and deny paths that overlap, in
// every order and through links: a deny-write equal to a writable root or
// inside one, a writable root inside a denied directory, a deny named
// through a link that leads into a writable root (a file, and a whole
// root), a writable root that is a file, and one given with a trailing
// slash.
func TestPolicyEdgeOverlaps(t *testing.T) {
	t.Parallel()
	base := newDir(t, 0o755)
	w1, w2, w4, w5 := filepath.Join(base, "w1"), filepath.Join(base, "w2"), filepath.Join(base, "w4"), filepath.Join(base, "w5")
	denied := filepath.Join(base, "denied")
	w3 := filepath.Join(denied, "w3")
	mkdirs(t, w1, filepath.Join(w1, "ro"), w2, w3, w4, w5)
	s1, s3, s5 := uniqueSecret("w1"), uniqueSecret("w3"), uniqueSecret("w5")
	writeFile(t, filepath.Join(w1, "secret.txt"), s1, 0o644)
	writeFile(t, filepath.Join(w1, "ro", "keep.txt"), publicContent, 0o666)
	writeFile(t, filepath.Join(w3, "inner.txt"), s3, 0o644)
	writeFile(t, filepath.Join(w5, "inner.txt"), s5, 0o644)
	wf := filepath.Join(base, "file-root.txt")
	writeFile(t, wf, publicContent, 0o666)
	links := newDir(t, 0o755)
	toSecret, toW5 := filepath.Join(links, "to-secret"), filepath.Join(links, "to-w5")
	for l, target := range map[string]string{toSecret: filepath.Join(w1, "secret.txt"), toW5: w5} {
		if err := os.Symlink(target, l); err != nil {
			t.Fatal(err)
		}
	}
	giveToSandboxUser(t, w1, filepath.Join(w1, "ro"), filepath.Join(w1, "ro", "keep.txt"), w2, w3, w4, w5, wf)
	ps := []probe{
		control("w1_write", "write:"+w1+"/new.txt", ""),
		attack("w1_denywrite_dir", "write:"+w1+"/ro/new.txt", "EROFS", "EACCES"),
		attack("w1_denywrite_file", "write:"+w1+"/ro/keep.txt", "EROFS", "EACCES"),
		attack("w1_denywrite_rename", "rename:"+w1+"/ro|"+w1+"/ro-moved"),
		attack("w2_root_denywrite", "write:"+w2+"/new.txt", "EROFS", "EACCES"),
		attack("w3_in_denied_read", "read:"+w3+"/inner.txt", "EACCES", "ENOENT"),
		attack("w3_in_denied_write", "write:"+w3+"/new.txt", "EACCES", "ENOENT", "EROFS"),
		attack("secret_via_link_deny", "read:"+w1+"/secret.txt", "EACCES"),
		attack("secret_via_link_name", "read:"+toSecret, "EACCES"),
		attack("secret_link_hardlink", "link:"+w1+"/secret.txt|"+w1+"/hard.txt"),
		attack("secret_link_rename", "rename:"+w1+"/secret.txt|"+w1+"/moved.txt"),
		attack("w5_denied_by_link_read", "read:"+w5+"/inner.txt", "EACCES"),
		attack("w5_denied_by_link_write", "write:"+w5+"/new.txt", "EACCES", "EROFS"),
		control("file_root_write", "write:"+wf, ""),
		attack("file_root_sibling", "write:"+base+"/file-root-sibling.txt", "EROFS", "EACCES"),
		control("trailing_slash_root", "write:"+w4+"/new.txt", ""),
		attack("trailing_slash_parent", "write:"+base+"/w4-sibling.txt", "EROFS", "EACCES"),
	}
	runProbes(t, ciMgr, ps,
		agentbox.WithWritableRoots(w1, w2, w3, w5, wf, w4+"/"),
		agentbox.WithDenyWrite(filepath.Join(w1, "ro"), w2),
		agentbox.WithDenyRead(denied, toSecret, toW5))
	for path, want := range map[string]string{filepath.Join(w1, "ro", "keep.txt"): publicContent, filepath.Join(w1, "secret.txt"): s1} {
		if b, err := os.ReadFile(path); err != nil || string(b) != want {
			t.Errorf("ESCAPE: %s changed on the host: %q, %v", path, b, err)
		}
	}
	for _, p := range []string{w2 + "/new.txt", w3 + "/new.txt", w5 + "/new.txt", base + "/file-root-sibling.txt", base + "/w4-sibling.txt"} {
		if _, err := os.Lstat(p); err == nil {
			t.Errorf("ESCAPE: %s was created on the host", p)
		}
	}
}

// TestPolicyEdgePerCallConcurrent runs calls with and without per-call
// writable roots, deny paths and network on one Manager at the same time:
// each call's options must apply to it alone.
func TestPolicyEdgePerCallConcurrent(t *testing.T) {
	t.Parallel()
	m := newManager(t, ciConfig())
	hl := newHostListeners(t)
	const n = 4
	roots := make([]string, n)
	secrets := make([]string, n)
	for i := range roots {
		roots[i] = newDir(t, 0o777)
		giveToSandboxUser(t, roots[i])
		secrets[i] = filepath.Join(newDir(t, 0o755), "secret.txt")
		writeFile(t, secrets[i], uniqueSecret(fmt.Sprint("call", i)), 0o644)
	}
	var wg sync.WaitGroup
	for round := 0; round < 2; round++ {
		for i := 0; i < n; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				var ps []probe
				var opts []agentbox.Option
				if i%2 == 0 {
					ps = append(ps, control("own_root", fmt.Sprintf("write:%s/r%d.txt", roots[i], round), ""),
						attack("own_denied", "read:"+secrets[i], "EACCES"),
						control("host_loopback", "tcp:"+hl.tcp, ""))
					opts = append(opts, agentbox.WithWritableRoots(roots[i]), agentbox.WithDenyRead(secrets[i]),
						agentbox.WithNetwork(agentbox.NetworkAllowed))
				} else {
					ps = append(ps, attack("host_loopback", "tcp:"+hl.tcp))
				}
				for j := 0; j < n; j++ {
					if j != i {
						ps = append(ps, attack(fmt.Sprint("other_root_", j), fmt.Sprintf("write:%s/from%d-%d.txt", roots[j], i, round), "EROFS", "EACCES"))
					}
				}
				t.Run(fmt.Sprintf("round%d-call%d", round, i), func(t *testing.T) { runProbes(t, m, ps, opts...) })
			}()
		}
		wg.Wait()
	}
}

// TestPolicyEdgeUpdateConfigNarrows: once UpdateConfig takes a writable
// root and the network away, the next call has neither, also on a warm
// sandbox started under the old Config; while UpdateConfig runs beside
// calls, every call sees one Config or the other.
func TestPolicyEdgeUpdateConfigNarrows(t *testing.T) {
	t.Parallel()
	w := newDir(t, 0o777)
	giveToSandboxUser(t, w)
	hl := newHostListeners(t)
	wide := ciConfig()
	wide.Filesystem.WritableRoots = []string{w}
	wide.Network.Mode = agentbox.NetworkAllowed
	m := newManager(t, wide)
	runProbes(t, m, []probe{control("write", "write:"+w+"/wide.txt", ""), control("loopback", "tcp:"+hl.tcp, "")})
	narrow := ciConfig()
	if err := m.UpdateConfig(narrow); err != nil {
		t.Fatal(err)
	}
	runProbes(t, m, []probe{
		control("read", "read:"+w+"/wide.txt", ""),
		attack("write", "write:"+w+"/narrow.txt", "EROFS", "EACCES"),
		attack("loopback", "tcp:"+hl.tcp),
	})
	// Racing: calls that start after an UpdateConfig to the narrow policy
	// has returned must not write.
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	var wg sync.WaitGroup
	for i := 0; i < 3; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := 0; k < 3 && ctx.Err() == nil; k++ {
				_ = m.UpdateConfig(wide)
				_ = m.UpdateConfig(narrow)
			}
		}()
	}
	wg.Wait()
	if err := m.UpdateConfig(narrow); err != nil {
		t.Fatal(err)
	}
	runProbes(t, m, []probe{attack("write_after_race", "write:"+w+"/race.txt", "EROFS", "EACCES")})
}

// TestPolicyEdgeReadAllowList attacks a read allow-list from every side:
// a link in a writable root that leads out of the list, /proc/self/root
// and /proc/1/root, a listed entry inside a denied store (deny wins), the
// home when it is not listed, and a working directory outside the list.
func TestPolicyEdgeReadAllowList(t *testing.T) {
	t.Parallel()
	data, unlisted, w := newDir(t, 0o755), newDir(t, 0o755), newDir(t, 0o777)
	giveToSandboxUser(t, w)
	listed := uniqueSecret("listed")
	writeFile(t, filepath.Join(data, "input.txt"), listed, 0o644)
	private := uniqueSecret("unlisted")
	writeFile(t, filepath.Join(unlisted, "private.txt"), private, 0o644)
	if err := os.Symlink(unlisted, filepath.Join(w, "out")); err != nil {
		t.Fatal(err)
	}
	cfg := ciConfig()
	cfg.Filesystem.AllowRead = []string{data, attackerBin, filepath.Join(fakeHome, ".ssh")}
	cfg.Filesystem.WritableRoots = []string{w}
	m := newManager(t, cfg)
	ps := []probe{
		control("listed", "read:"+data+"/input.txt", listed),
		control("system", "read:/etc/passwd", "root"),
		control("writable_root", "write:"+w+"/new.txt", ""),
		attack("unlisted", "read:"+unlisted+"/private.txt"),
		attack("link_in_root", "read:"+w+"/out/private.txt"),
		control("plant_link", "symlink:"+unlisted+"|"+w+"/out2", ""),
		attack("planted_link", "read:"+w+"/out2/private.txt"),
		attack("proc_self_root", "read:/proc/self/root"+unlisted+"/private.txt"),
		attack("proc_1_root", "read:/proc/1/root"+unlisted+"/private.txt"),
		attack("listed_but_denied", "read:"+filepath.Join(fakeHome, ".ssh", "id_ed25519")),
		attack("home_unlisted", "read:"+filepath.Join(fakeHome, ".profile")),
	}
	runProbes(t, m, ps)
	// A working directory outside the list is refused, or shows nothing.
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, err := m.ExecArgs(ctx, attackerBin, []string{"rel=read:private.txt", "abs=read:" + unlisted + "/private.txt"}, agentbox.WithWorkingDir(unlisted))
	if err != nil {
		t.Logf("working directory outside the allow-list refused: %v", err)
		return
	}
	t.Logf("working directory outside the allow-list (exit %d):\n%s\n%s", res.ExitCode, res.Stdout, res.Stderr)
	o := parseOutput(res.Stdout)
	for _, l := range []string{"rel", "abs"} {
		if r, ok := o.results[l]; ok && r.verdict == allowed {
			t.Errorf("ESCAPE %s: the working directory outside the allow-list was readable (%q)", l, r.detail)
		}
	}
	if res.ExitCode == 0 && !o.done {
		t.Errorf("the attacker ran in an unlisted working directory without finishing")
	}
}

// TestPolicyEdgeDenyDeepMissing denies a path whose parents do not exist
// yet, outside every writable root; the host creates the whole chain
// while the sandbox runs.
func TestPolicyEdgeDenyDeepMissing(t *testing.T) {
	t.Parallel()
	dir := newDir(t, 0o755)
	deep := filepath.Join(dir, "a", "b", "secret.txt")
	goFile := filepath.Join(dir, "go")
	ps := []probe{
		control("wait", "waitexist:"+goFile, ""),
		control("public", "read:"+dir+"/public.txt", publicContent),
		attack("deep_secret", "read:"+deep, "EACCES"),
		attack("deep_dir_file", "read:"+filepath.Join(dir, "a", "b", "other.txt"), "EACCES"),
	}
	// The control exists before the start: Landlock grants nothing to
	// what appears later under a directory it carves a denied path out of.
	writeFile(t, dir+"/public.txt", publicContent, 0o644)
	run := startProbes(t, ciMgr, ps, nil, agentbox.WithDenyRead(deep, filepath.Join(dir, "a", "b")))
	run.waitLine(t, "STARTED")
	writeFile(t, deep, uniqueSecret("deep"), 0o644)
	writeFile(t, filepath.Join(dir, "a", "b", "other.txt"), uniqueSecret("deep-other"), 0o644)
	writeFile(t, goFile, "", 0o644)
	run.check(t, ps)
}
