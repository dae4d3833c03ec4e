//go:build linux

package attack_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agentbox-dev/agentbox"
)

// TestPlaceholderCleanupThroughSymlink attacks agentbox's own clean-up. A
// deny path whose directories are missing in a writable root is held by
// placeholder directories that agentbox creates on the host and removes,
// unconfined, when the command ends. Inside that command the placeholders
// are pinned, but a second sandbox on the same writable root, under a policy
// without the deny path, can replace the outer placeholder with a symbolic
// link to a host directory. Removing "W/sub/secret" through it would delete
// the host's file of that name: agentbox must not follow the link.
func TestPlaceholderCleanupThroughSymlink(t *testing.T) {
	t.Parallel()
	w := newDir(t, 0o777)
	victim := newDir(t, 0o755)
	const victimContent = "a host file outside every writable root\n"
	writeFile(t, filepath.Join(victim, "secret"), victimContent, 0o644)
	if err := os.Mkdir(filepath.Join(victim, "empty"), 0o755); err != nil {
		t.Fatal(err)
	}
	deny := []string{filepath.Join(w, "sub", "secret"), filepath.Join(w, "sub", "empty")}
	goFile, started := filepath.Join(w, "go"), filepath.Join(w, "started")

	// The first sandbox holds the placeholders until the second is done.
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	first := make(chan error, 1)
	go func() {
		res, err := ciMgr.ExecArgs(ctx, attackerBin, probeArgs([]probe{
			control("started", "write:"+started, ""), control("wait", "waitexist:"+goFile, "")}),
			agentbox.WithWorkingDir("/"), agentbox.WithWritableRoots(w), agentbox.WithDenyRead(deny...))
		if err == nil && res.ExitCode != 0 {
			t.Logf("first sandbox: exit %d\n%s%s", res.ExitCode, res.Stdout, res.Stderr)
		}
		first <- err
	}()
	waitFor(t, started) // the first sandbox runs: its placeholders are mounted

	ps := []probe{
		control("write_root", "write:"+w+"/ok", ""),
		control("move_placeholder_parent", "rename:"+w+"/sub|"+w+"/sub.old", ""),
		control("link_to_host_dir", "symlink:"+victim+"|"+w+"/sub", ""),
		control("let_the_first_end", "write:"+goFile, ""),
	}
	runProbes(t, ciMgr, ps, agentbox.WithWritableRoots(w))
	if err := <-first; err != nil {
		t.Fatalf("first sandbox: %v", err)
	}

	if got := readOrEmpty(filepath.Join(victim, "secret")); got != victimContent {
		t.Errorf("ESCAPE: agentbox's clean-up removed the host file %s/secret through a planted link (now %q)", victim, got)
	}
	if fi, err := os.Stat(filepath.Join(victim, "empty")); err != nil || !fi.IsDir() {
		t.Errorf("ESCAPE: agentbox's clean-up removed the host directory %s/empty through a planted link (%v)", victim, err)
	}
	if fi, err := os.Lstat(filepath.Join(w, "sub")); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the planted link %s/sub is gone or changed (%v); it is the sandbox's own file and must stay", w, err)
	}
}

// waitFor waits until p exists.
func waitFor(t *testing.T, p string) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if _, err := os.Lstat(p); err == nil {
			return
		}
	}
	t.Fatalf("%s did not appear", p)
}

// TestPlantedRepositoryReportLeak plants git directories whose config and
// hooks are symbolic links to denied files and directories. agentbox
// inspects planted repositories unconfined after the command and reports
// why each is risky; that report goes back to the caller, so it must not
// carry what lies behind the links: the first line of a denied file
// (~/.git-credentials is one URL with its token) or the names in a denied
// directory.
func TestPlantedRepositoryReportLeak(t *testing.T) {
	t.Parallel()
	w := newDir(t, 0o755)
	private := newDir(t, 0o755)
	secret := uniqueSecret("first-line")
	secretFile := filepath.Join(private, "token")
	writeFile(t, secretFile, "https://user:"+secret+"@git.example\n", 0o600)
	secretName := uniqueSecret("name")
	writeFile(t, filepath.Join(private, "keys", secretName), "k\n", 0o600)

	var ps []probe
	for i, link := range [][2]string{{"config", secretFile}, {"hooks", filepath.Join(private, "keys")}} {
		g := filepath.Join(w, fmt.Sprintf("r%d", i), ".git")
		ps = append(ps,
			control("mkdir_"+link[0], "mkdir:"+filepath.Dir(g), ""),
			control("mkdir_git_"+link[0], "mkdir:"+g, ""),
			control("head_"+link[0], "put:"+g+"/HEAD|"+strconv.Quote("ref: refs/heads/main\n"), ""),
			control("objects_"+link[0], "mkdir:"+g+"/objects", ""),
			control("refs_"+link[0], "mkdir:"+g+"/refs", ""),
			control("link_"+link[0], "symlink:"+link[1]+"|"+g+"/"+link[0], ""),
			attack("read_through_"+link[0], "read:"+g+"/"+link[0]),
		)
	}
	_, res := runProbes(t, ciMgr, ps, agentbox.WithWritableRoots(w), agentbox.WithDenyRead(private))
	reported := 0
	for _, v := range res.Violations {
		d := strings.ToLower(v.Detail) // the report lower-cases config keys
		if strings.Contains(d, strings.ToLower(secret)) || strings.Contains(d, strings.ToLower(secretName)) {
			t.Errorf("ESCAPE: the report on a planted repository carries a denied secret: %q", v.Detail)
		}
		if v.Rule == "planted-repository" {
			reported++
		}
	}
	if reported != 2 {
		t.Errorf("want both planted repositories reported, got %+v", res.Violations)
	}
}

// TestOwnExecutable makes the directory of the program that embeds agentbox
// (here, this test binary) a writable root, as a developer does who builds
// agentbox into the project they let an agent work on. The next agentbox
// run would start whatever a command put there, unconfined: the executable
// must stay as it is, while the rest of the directory is writable.
func TestOwnExecutable(t *testing.T) {
	t.Parallel()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	if exe, err = filepath.EvalSymlinks(exe); err != nil {
		t.Fatal(err)
	}
	before, err := os.ReadFile(exe)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Dir(exe)
	scratch := filepath.Join(dir, "scratch-"+filepath.Base(newDir(t, 0o755)))
	t.Cleanup(func() { os.Remove(scratch) })
	ps := []probe{
		control("write_beside", "write:"+scratch, ""),
		attack("overwrite", "write:"+exe),
		attack("truncate", "truncate:"+exe),
		attack("unlink", "unlink:"+exe),
		attack("rename_away", "rename:"+exe+"|"+exe+".old"),
		attack("rename_over", "rename:"+scratch+"|"+exe),
	}
	runProbes(t, ciMgr, ps, agentbox.WithWritableRoots(dir))
	after, err := os.ReadFile(exe)
	if err != nil || !bytes.Equal(before, after) {
		t.Errorf("ESCAPE: agentbox's own executable %s changed on the host (%v)", exe, err)
	}
}

// TestPlantedLinkAsWritableRoot: a command leaves links in its writable
// root pointing at /etc, at the home's systemd user units and at an
// ordinary directory. A later call that makes one of those paths writable
// (an agent asked to write its output to "out") must be refused, not hand
// over /etc; a link the user made in a directory no sandbox was given
// still works.
func TestPlantedLinkAsWritableRoot(t *testing.T) {
	t.Parallel()
	w := newDir(t, 0o755)
	harmless := newDir(t, 0o777)
	units := filepath.Join(fakeHome, ".config", "systemd", "user")
	ps := []probe{
		control("link_etc", "symlink:/etc|"+w+"/out", ""),
		control("link_units", "symlink:"+units+"|"+w+"/units", ""),
		control("link_harmless", "symlink:"+harmless+"|"+w+"/scratch", ""),
	}
	runProbes(t, ciMgr, ps, agentbox.WithWritableRoots(w))
	for _, name := range []string{"out", "units", "scratch"} {
		_, err := ciMgr.ExecArgs(context.Background(), attackerBin,
			probeArgs([]probe{attack("write_through", "write:"+w+"/"+name+"/agentbox-attack")}),
			agentbox.WithWorkingDir("/"), agentbox.WithWritableRoots(filepath.Join(w, name)))
		if !errors.Is(err, agentbox.ErrConfigInvalid) || !strings.Contains(err.Error(), "symbolic link") {
			t.Errorf("ESCAPE: a writable root through the planted link %s was not refused: %v", name, err)
		}
	}
	if _, err := os.Lstat("/etc/agentbox-attack"); err == nil {
		os.Remove("/etc/agentbox-attack")
		t.Error("ESCAPE: a file was written in /etc")
	}
	ownLinkFollowed(t, ciMgr, harmless)

	// A Manager whose Config names a writable root that is a real
	// directory when the Config is validated; a command with the parent
	// writable then swaps it for a link to /etc.
	later := filepath.Join(w, "later")
	if err := os.Mkdir(later, 0o755); err != nil {
		t.Fatal(err)
	}
	cfg := ciConfig()
	cfg.Filesystem.WritableRoots = []string{later}
	m := newManager(t, cfg)
	runProbes(t, m, []probe{control("write_later", "write:"+later+"/ok", "")})
	runProbes(t, ciMgr, []probe{
		control("move_later", "rename:"+later+"|"+w+"/later.old", ""),
		control("link_later", "symlink:/etc|"+later, ""),
	}, agentbox.WithWritableRoots(w))
	_, err := m.ExecArgs(context.Background(), attackerBin, probeArgs([]probe{attack("write_etc", "write:"+later+"/agentbox-attack")}),
		agentbox.WithWorkingDir("/"))
	if !errors.Is(err, agentbox.ErrConfigInvalid) {
		t.Errorf("ESCAPE: the Config's writable root, now a link to /etc, was used: %v", err)
	}
	if _, err := os.Lstat("/etc/agentbox-attack"); err == nil {
		os.Remove("/etc/agentbox-attack")
		t.Error("ESCAPE: a file was written in /etc")
	}
}

// TestPlantedLinkInEarlierRoot: one call may write W and leaves the link
// W/sub to a private directory; a later call, from another Manager (another
// agent, or another agentbox process), may write only W/sub, or read it.
// Following the link would give it the private directory (as root, a
// root-only one, idmapped as the sandbox's own). Both are refused.
func TestPlantedLinkInEarlierRoot(t *testing.T) {
	t.Parallel()
	w := newDir(t, 0o755)
	private := newDir(t, 0o700)
	secret := uniqueSecret("behind-planted-link")
	writeFile(t, filepath.Join(private, "secret"), secret, 0o600)
	sub := filepath.Join(w, "sub")
	runProbes(t, ciMgr, []probe{control("plant_link", "symlink:"+private+"|"+sub, "")}, agentbox.WithWritableRoots(w))

	later := newManager(t, ciConfig())
	res, err := later.ExecArgs(context.Background(), attackerBin,
		probeArgs([]probe{attack("write_through", "write:"+sub+"/agentbox-attack"), attack("read_through", "read:"+sub+"/secret")}),
		agentbox.WithWorkingDir("/"), agentbox.WithWritableRoots(sub))
	if !errors.Is(err, agentbox.ErrConfigInvalid) || !strings.Contains(err.Error(), "symbolic link") {
		t.Errorf("ESCAPE: a writable root through a link planted in an earlier call's root was not refused: %v", err)
	}
	if res != nil && strings.Contains(res.Stdout, secret) {
		t.Error("ESCAPE: the private directory's secret was read")
	}
	if _, err := os.Lstat(filepath.Join(private, "agentbox-attack")); err == nil {
		t.Error("ESCAPE: a file was written in the private directory")
	}
	cfg := ciConfig()
	cfg.Filesystem.AllowRead = []string{sub, attackerBin}
	rm, err := agentbox.NewManager(cfg)
	if err == nil {
		defer rm.Close()
		_, err = rm.ExecArgs(context.Background(), attackerBin, probeArgs([]probe{attack("read_through", "read:"+sub+"/secret")}),
			agentbox.WithWorkingDir("/"))
	}
	if !errors.Is(err, agentbox.ErrConfigInvalid) {
		t.Errorf("ESCAPE: a read allow-list entry through the planted link was not refused: %v", err)
	}

	// The working directory is shown to the sandbox even where the policy
	// hides it: not through the planted link either.
	if _, err := later.ExecArgs(context.Background(), attackerBin, probeArgs([]probe{attack("read_through", "read:secret")}),
		agentbox.WithWorkingDir(sub)); !errors.Is(err, agentbox.ErrConfigInvalid) {
		t.Errorf("ESCAPE: a working directory through the planted link was not refused: %v", err)
	}
	wrapped := exec.Command(attackerBin, probeArgs([]probe{attack("read_through", "read:secret")})...)
	wrapped.Dir = sub
	if cleanup, err := later.Wrap(context.Background(), wrapped); !errors.Is(err, agentbox.ErrConfigInvalid) {
		if err == nil {
			cleanup()
		}
		t.Errorf("ESCAPE: Wrap with cmd.Dir through the planted link was not refused: %v", err)
	}
	// Renaming the once-granted directory (mv project project-old) does
	// not make its links trusted.
	moved := w + "-moved"
	if err := os.Rename(w, moved); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(moved) })
	_, err = later.ExecArgs(context.Background(), attackerBin,
		probeArgs([]probe{attack("write_through", "write:"+moved+"/sub/agentbox-attack")}),
		agentbox.WithWorkingDir("/"), agentbox.WithWritableRoots(filepath.Join(moved, "sub")))
	if !errors.Is(err, agentbox.ErrConfigInvalid) {
		t.Errorf("ESCAPE: a writable root through the planted link, its directory renamed, was not refused: %v", err)
	}
	if _, err := os.Lstat(filepath.Join(private, "agentbox-attack")); err == nil {
		t.Error("ESCAPE: a file was written in the private directory")
	}

	// Control: the same kind of link, made by the user in a directory no
	// sandbox was given, is followed.
	ownLinkFollowed(t, later, newDir(t, 0o755))
}

// ownLinkFollowed is the control of the planted-link tests: a link to
// target that the user made, in a directory no sandbox was given, works as
// a writable root, and the write arrives in target.
func ownLinkFollowed(t *testing.T, m *agentbox.Manager, target string) {
	t.Helper()
	mine := newDir(t, 0o755)
	link := filepath.Join(mine, "link")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	runProbes(t, m, []probe{control("write_through_own_link", "write:"+link+"/ok", "")}, agentbox.WithWritableRoots(link))
	if _, err := os.Stat(filepath.Join(target, "ok")); err != nil {
		t.Errorf("the write through the user's own link did not arrive: %v", err)
	}
}

// TestReadAllowListThroughPlantedLink: a policy that may read W/inbox and
// write W (a manifest's read: [./data/inbox], write: [./data]). A command
// swaps inbox for a link to a private directory outside the policy; the
// next call would read there. It is refused instead.
func TestReadAllowListThroughPlantedLink(t *testing.T) {
	t.Parallel()
	w := newDir(t, 0o755)
	inbox := filepath.Join(w, "inbox")
	writeFile(t, filepath.Join(inbox, "mail.txt"), "hello\n", 0o644)
	private := newDir(t, 0o755)
	secret := uniqueSecret("outside-the-allow-list")
	writeFile(t, filepath.Join(private, "mail.txt"), secret, 0o644)
	cfg := ciConfig()
	cfg.Filesystem.AllowRead = []string{inbox, filepath.Dir(attackerBin)}
	cfg.Filesystem.WritableRoots = []string{w}
	m := newManager(t, cfg)
	runProbes(t, m, []probe{
		control("read_inbox", "read:"+inbox+"/mail.txt", "hello"),
		attack("read_private", "read:"+private+"/mail.txt"),
		control("move_inbox", "rename:"+inbox+"|"+w+"/inbox.old", ""),
		control("link_private", "symlink:"+private+"|"+inbox, ""),
	})
	res, err := m.ExecArgs(context.Background(), attackerBin, probeArgs([]probe{attack("read_through_link", "read:"+inbox+"/mail.txt")}),
		agentbox.WithWorkingDir("/"))
	if !errors.Is(err, agentbox.ErrConfigInvalid) || !strings.Contains(err.Error(), "symbolic link") {
		t.Errorf("ESCAPE: the read allow-list followed a planted link: %v", err)
	}
	if res != nil && strings.Contains(res.Stdout, secret) {
		t.Errorf("ESCAPE: read %q", secret)
	}

	// The same with a writable root inside another (write: [., ./out]).
	// In its own runs out is a mount and stays put; a command of another
	// policy that may write the parent swaps it for a link.
	out := filepath.Join(w, "out")
	if err := os.Mkdir(out, 0o755); err != nil {
		t.Fatal(err)
	}
	wcfg := ciConfig()
	wcfg.Filesystem.WritableRoots = []string{w, out}
	wm := newManager(t, wcfg)
	runProbes(t, wm, []probe{
		control("write_out", "write:"+out+"/ok", ""),
		attack("move_out_in_its_own_run", "rename:"+out+"|"+w+"/out.old"),
	})
	runProbes(t, ciMgr, []probe{
		control("move_out", "rename:"+out+"|"+w+"/out.old", ""),
		control("link_out", "symlink:"+private+"|"+out, ""),
	}, agentbox.WithWritableRoots(w))
	_, err = wm.ExecArgs(context.Background(), attackerBin, probeArgs([]probe{attack("write_through_link", "write:"+out+"/planted")}),
		agentbox.WithWorkingDir("/"))
	if !errors.Is(err, agentbox.ErrConfigInvalid) || !strings.Contains(err.Error(), "symbolic link") {
		t.Errorf("ESCAPE: a writable root followed a planted link: %v", err)
	}
	if _, err := os.Lstat(filepath.Join(private, "planted")); err == nil {
		t.Error("ESCAPE: a file was written in the private directory")
	}
}
