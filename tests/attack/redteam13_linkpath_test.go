//go:build linux

package attack_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentbox-dev/agentbox"
)

// runShell runs script with /bin/sh inside one sandbox of ciMgr and returns
// its combined output; a run that cannot start fails the test.
func runShell(t *testing.T, script string, opts ...agentbox.Option) *agentbox.ExecResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	opts = append([]agentbox.Option{agentbox.WithWorkingDir("/")}, opts...)
	res, err := ciMgr.ExecArgs(ctx, "/bin/sh", []string{"-c", script}, opts...)
	if err != nil {
		t.Fatalf("the sandbox could not run the script: %v", err)
	}
	t.Logf("exit %d\nstdout:\n%s\nstderr:\n%s", res.ExitCode, res.Stdout, res.Stderr)
	return res
}

// TestRedteam13ProtectedLinkThroughDirLink: a protected name that is a link
// to a file is held (opHoldLink) and so is its resolved target, but what the
// host reads through it also depends on the directories on the way. With
// .envrc -> conf/envrc where conf is itself a link to a directory (a shared
// configuration directory; a dotfile repository cloned elsewhere and linked
// in, as ~/.bashrc -> .dotfiles/bashrc with ~/.dotfiles -> src/dotfiles),
// linkChain resolves the directory with EvalSymlinks and holds only the
// file it finds; the directory link conf is neither held nor pinned, so the
// command replaces it with a directory of its own, and the host's next
// direnv or shell reads the command's file through the still-held .envrc.
//
// Controls: the held link reads as before inside; its resolved target is
// read-only; an ordinary file stays writable.
//
// Fixed: followLinks lists every link on the way, a directory's too, and
// each is bound onto itself (opHoldLink): conf cannot be removed.
func TestRedteam13ProtectedLinkThroughDirLink(t *testing.T) {
	t.Parallel()
	const orig = "original\n"
	a := newDir(t, 0o755)
	writeFile(t, filepath.Join(a, "real", "envrc"), orig, 0o644)
	if err := os.Symlink("real", filepath.Join(a, "conf")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("conf/envrc", filepath.Join(a, ".envrc")); err != nil {
		t.Fatal(err)
	}
	script := strings.NewReplacer("$A", a).Replace(`
echo "read_envrc=$(cat $A/.envrc)"
echo evil > $A/real/envrc 2>/dev/null && echo "direct_target_written" || echo "direct_target_refused"
echo ok > $A/ordinary && echo "control_ordinary_written"
rm $A/conf && mkdir $A/conf && echo 'evil-envrc' > $A/conf/envrc && echo "dirlink_swapped"
true
`)
	res := runShell(t, script, agentbox.WithWritableRoots(a))
	if !strings.Contains(res.Stdout, "read_envrc=original") {
		t.Errorf("CONTROL BROKEN: .envrc did not read as before inside")
	}
	if !strings.Contains(res.Stdout, "direct_target_refused") {
		t.Errorf("CONTROL BROKEN: the resolved target of .envrc was writable inside")
	}
	if !strings.Contains(res.Stdout, "control_ordinary_written") {
		t.Errorf("CONTROL BROKEN: an ordinary file was not writable")
	}
	if got, err := os.ReadFile(filepath.Join(a, ".envrc")); err != nil || string(got) != orig {
		t.Errorf("ESCAPE: the host's .envrc now reads %q (%v): the command replaced a directory link on its way", got, err)
	}
}

// TestRedteam13ProtectedLinkDotDotAfterDirLink: .mcp.json -> d/../mcp.json
// where d is a link to sub/inner. The kernel resolves d/.. to sub, the
// parent of the link's target, so the host reads sub/mcp.json; linkChain
// cleans the link's text lexically first (filepath.Join), finds w/mcp.json
// and holds that, a file the host never reads. The real target is an
// ordinary file of the writable root: the command rewrites it directly,
// with no race and without touching any link.
//
// Controls: an ordinary file stays writable; the link itself stays a link.
//
// Fixed: followLinks resolves a name at a time, as the kernel does, and
// holds sub/mcp.json (be76935 first; then followLinks).
func TestRedteam13ProtectedLinkDotDotAfterDirLink(t *testing.T) {
	t.Parallel()
	const orig = "original\n"
	b := newDir(t, 0o755)
	writeFile(t, filepath.Join(b, "sub", "mcp.json"), orig, 0o644)
	if err := os.MkdirAll(filepath.Join(b, "sub", "inner"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("sub/inner", filepath.Join(b, "d")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("d/../mcp.json", filepath.Join(b, ".mcp.json")); err != nil {
		t.Fatal(err)
	}
	if got, err := os.ReadFile(filepath.Join(b, ".mcp.json")); err != nil || string(got) != orig {
		t.Fatalf("set-up: .mcp.json reads %q (%v)", got, err)
	}
	script := strings.NewReplacer("$B", b).Replace(`
echo ok > $B/ordinary && echo "control_ordinary_written"
echo '{"evil":"mcp"}' > $B/sub/mcp.json && echo "target_written"
true
`)
	res := runShell(t, script, agentbox.WithWritableRoots(b))
	if !strings.Contains(res.Stdout, "control_ordinary_written") {
		t.Errorf("CONTROL BROKEN: an ordinary file was not writable")
	}
	if fi, err := os.Lstat(filepath.Join(b, ".mcp.json")); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf(".mcp.json is no longer a link after the run (%v)", err)
	}
	if got, err := os.ReadFile(filepath.Join(b, ".mcp.json")); err != nil || string(got) != orig {
		t.Errorf("ESCAPE: the host's .mcp.json now reads %q (%v): its real target was never held", got, err)
	}
}
