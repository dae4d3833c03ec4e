//go:build linux

package attack_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestRedteam23ReducedTierHiddenAreaAliases reaches the host's /tmp and
// /dev/shm, which the reduced tier now withholds from Landlock
// (landlockSpec.Hidden), through every other name they have: the
// /run/shm and /var/run links, /proc/self/root, the private TMPDIR's
// parent, a symbolic or hard link made in the private TMPDIR or a
// writable root (on this machine /tmp, /var/tmp and the writable roots
// share one file system), a rename out of /tmp, and the working directory
// and an open descriptor of a host process of the same user
// (/proc/PID/cwd, /proc/PID/fd/N). The controls: the tier's TMPDIR works
// (mktemp, and a file made there is read back), and a readable host file
// is read.
//
// New coverage (the attacks held when written): TestRedteam22's test reads
// the hidden files only by their own names.
func TestRedteam23ReducedTierHiddenAreaAliases(t *testing.T) {
	if isRoot {
		t.Skip("the reduced tier refuses root (TestReducedTier); run as an unprivileged user")
	}
	t.Parallel()
	const secret = "agentbox-rt23j-hidden-area-secret"
	tag := fmt.Sprintf("%d_rt23j_%d", os.Getuid(), os.Getpid())
	krb := filepath.Join("/tmp", "krb5cc_"+tag)
	shmName := "rt23j-segment-" + tag
	shm := filepath.Join("/dev/shm", shmName)
	for _, f := range []string{krb, shm} {
		writeFile(t, f, secret+" "+f, 0o600)
		t.Cleanup(func() { os.Remove(f) })
	}
	// A host process of the user's, working in a directory in /tmp and
	// holding the ticket cache open.
	hostDir, err := os.MkdirTemp("/tmp", "rt23j-host-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(hostDir) })
	writeFile(t, filepath.Join(hostDir, "secret"), secret+" cwd", 0o600)
	held, err := os.Open(krb)
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	victim := exec.Command("/bin/sleep", "120")
	victim.Dir = hostDir
	victim.ExtraFiles = []*os.File{held}
	if err := victim.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = victim.Process.Kill(); _ = victim.Wait() })
	pid := victim.Process.Pid

	w := newDir(t, 0o755)
	sh := func(script string) string { return "exec:/bin/sh|-c|" + script }
	ps := []probe{
		control("read_host_file", "read:"+filepath.Join(fakeHome, ".profile"), "harmless profile"),
		control("private_tmpdir", sh(`f=$(mktemp) && echo tmp-ok >"$f" && cat "$f"`), "tmp-ok"),
		attack("direct_tmp", "read:"+krb),
		attack("proc_root_tmp", "read:/proc/self/root"+krb),
		attack("proc_root_shm", "read:/proc/self/root"+shm),
		attack("run_shm_link", "read:/run/shm/"+shmName),
		attack("var_run_shm_link", "read:/var/run/shm/"+shmName),
		attack("tmpdir_parent", sh(`cat "$TMPDIR/../krb5cc_`+tag+`"`)),
		attack("symlink_in_tmpdir", sh(`ln -s `+krb+` "$TMPDIR/s" && cat "$TMPDIR/s"`)),
		attack("hardlink_in_tmpdir", sh(`ln `+krb+` "$TMPDIR/h" && cat "$TMPDIR/h"`)),
		attack("hardlink_in_root", sh(`ln `+krb+` `+w+`/h && cat `+w+`/h`)),
		attack("rename_out_of_tmp", sh(`mv -T `+krb+` "$TMPDIR/m" && cat "$TMPDIR/m"`)),
		attack("host_cwd", fmt.Sprintf("read:/proc/%d/cwd/secret", pid)),
		attack("host_fd", fmt.Sprintf("read:/proc/%d/fd/3", pid)),
		attack("write_host_tmp", "write:/tmp/rt23j-planted-"+tag),
		attack("write_host_shm", "write:/dev/shm/rt23j-planted-"+tag),
	}
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
		t.Errorf("ESCAPE: a file of the host's /tmp or /dev/shm was read in the reduced tier")
	}
	for _, f := range []string{krb, "/tmp/rt23j-planted-" + tag, "/dev/shm/rt23j-planted-" + tag} {
		if _, err := os.Stat(f); (f == krb) != (err == nil) {
			t.Errorf("ESCAPE: the host's /tmp or /dev/shm was changed: %s: %v", f, err)
		}
	}
}
