//go:build linux

package attack_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentbox-dev/agentbox"
)

// placeholderHolderEnv makes the test binary run one sandbox with the
// writable root it names, say READY, and end it when its stdin closes:
// another agentbox process on the same project.
const placeholderHolderEnv = "AGENTBOX_ATTACK_PLACEHOLDER_HOLDER"

func runPlaceholderHolder() int {
	m, err := agentbox.NewManager(ciConfig())
	if err != nil {
		fmt.Println("ERROR", err)
		return 1
	}
	defer m.Close()
	cmd := &exec.Cmd{Path: "/bin/sh", Args: []string{"sh", "-c", "echo ready; read x"}, Stdin: os.Stdin}
	out, err := cmd.StdoutPipe()
	if err != nil {
		fmt.Println("ERROR", err)
		return 1
	}
	p, err := m.Start(context.Background(), cmd, agentbox.WithWorkingDir("/"), agentbox.WithWritableRoots(os.Getenv(placeholderHolderEnv)))
	if err != nil {
		fmt.Println("ERROR", err)
		return 1
	}
	if line, _ := bufio.NewReader(out).ReadString('\n'); line != "ready\n" {
		fmt.Println("ERROR sandbox said", line)
		return 1
	}
	fmt.Println("READY")
	_, _ = p.Wait()
	return 0
}

// TestPlaceholdersAcrossProcesses runs two agentbox processes on one
// writable root. The first made the placeholders that hold the protected
// names (.vscode, .envrc, the .git hold, ...); the second's sandbox
// mounts over them too. When the first ended, it removed them, and the
// removal detached the second sandbox's mounts (Linux lets one mount
// namespace remove another's mountpoint): its command could then plant
// .vscode/settings.json, .envrc or .git/hooks on the host. And while
// another process runs a sandbox, the placeholders of this one on another
// project must still go when it ends (they stayed behind when one lock
// stood for all of them). Not parallel: another test's sandbox ending
// would remove what the killed holder leaves before the test looks.
func TestPlaceholdersAcrossProcesses(t *testing.T) {
	w := newDir(t, 0o755)
	giveToSandboxUser(t, w)
	holder, stdin := startPlaceholderHolder(t, w)
	elsewhere := newDir(t, 0o755)
	giveToSandboxUser(t, elsewhere)
	runProbes(t, ciMgr, []probe{control("write_elsewhere", "write:"+elsewhere+"/ok.txt", "")}, agentbox.WithWritableRoots(elsewhere))
	if left := dotEntries(elsewhere); len(left) > 0 {
		t.Errorf("placeholders left on a project no other process uses: %v", left)
	}
	goFile := filepath.Join(newDir(t, 0o755), "go")
	ps := []probe{
		control("wait", "waitexist:"+goFile, ""),
		control("write_elsewhere", "write:"+w+"/ok.txt", ""),
		attack("plant_vscode_settings", "write:"+w+"/.vscode/settings.json"),
		attack("make_vscode", "mkdir:"+w+"/.vscode"),
		attack("plant_envrc", "write:"+w+"/.envrc"),
		attack("plant_git_hooks", "mkdir:"+w+"/.git"),
	}
	run := startProbes(t, ciMgr, ps, nil, agentbox.WithWritableRoots(w))
	run.waitLine(t, "STARTED")
	stdin.Close() // the first process's sandbox ends, and the process with it
	if err := holder.Wait(); err != nil {
		t.Fatalf("holder: %v", err)
	}
	writeFile(t, goFile, "", 0o644)
	run.check(t, ps)
	for _, p := range []string{".vscode/settings.json", ".git/hooks"} {
		if _, err := os.Lstat(filepath.Join(w, p)); err == nil {
			t.Errorf("ESCAPE: %s was planted on the host", p)
		}
	}
	if b, err := os.ReadFile(filepath.Join(w, ".envrc")); err == nil && len(b) > 0 {
		t.Errorf("ESCAPE: .envrc was planted on the host: %q", b)
	}

	// Both processes are done: their placeholders are gone too.
	if left := dotEntries(w); len(left) > 0 {
		t.Errorf("placeholders left in the writable root after both processes ended: %v", left)
	}

	// An agentbox killed with its sandbox running cannot remove its
	// placeholders; the next sandbox to end does.
	holder, _ = startPlaceholderHolder(t, w)
	if err := holder.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = holder.Wait()
	if _, err := os.Lstat(filepath.Join(w, ".vscode")); err != nil {
		t.Fatalf("the killed process left no placeholder to clean up: %v", err)
	}
	other := newDir(t, 0o755)
	giveToSandboxUser(t, other)
	runProbes(t, ciMgr, []probe{control("write_elsewhere", "write:"+other+"/ok.txt", "")}, agentbox.WithWritableRoots(other))
	for _, p := range []string{".vscode", ".envrc", ".git"} {
		if _, err := os.Lstat(filepath.Join(w, p)); err == nil {
			t.Errorf("%s, left by the killed process, is still there after the next sandbox", p)
		}
	}
}

// dotEntries lists the names in dir that start with a dot.
func dotEntries(dir string) []string {
	var names []string
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") {
			names = append(names, e.Name())
		}
	}
	return names
}

// startPlaceholderHolder starts the holder on w and waits until its sandbox
// runs; closing stdin ends it.
func startPlaceholderHolder(t *testing.T, w string) (*exec.Cmd, io.WriteCloser) {
	t.Helper()
	holder := exec.Command(os.Args[0], "-test.run=^$")
	holder.Env = append(os.Environ(), placeholderHolderEnv+"="+w)
	holder.Stderr = os.Stderr
	stdin, err := holder.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := holder.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := holder.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = holder.Process.Kill(); _ = holder.Wait() })
	if line, _ := bufio.NewReader(stdout).ReadString('\n'); line != "READY\n" {
		t.Fatalf("holder said %q", line)
	}
	if fi, err := os.Lstat(filepath.Join(w, ".vscode")); err != nil || !fi.IsDir() {
		t.Fatalf("the holder made no placeholder for .vscode: %v", err)
	}
	return holder, stdin
}
