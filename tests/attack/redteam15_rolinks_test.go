//go:build linux

package attack_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentbox-dev/agentbox"
)

// TestRedteam15ProtectedInReadOnlyDirOfOwn: a protected name that is
// missing, or a protected link that leads to a missing file, in a
// directory of the writable root that the caller owns but whose mode does
// not let it write (0555: a vendored or checked-out read-only tree, a tool
// that strips write bits). The plan skips the placeholder there
// (ensureExists: errCannotCreate, "the caller cannot create it, so neither
// can the sandbox"), but the sandbox runs as the caller, owns the
// directory and may chmod it: it adds the write bit and creates the
// protected name, or the file the protected link leads to, with content of
// its choosing that direnv or an agent's MCP start-up on the host runs
// next. Root's sandboxes always get the placeholder (only the
// unprivileged caller is concerned).
//
// Fixed: a directory the caller owns counts as one it may create in
// (mayCreateIn); the placeholder is made, and taken away after the run,
// with the owner's write permission added for the moment and the mode put
// back (withOwnerWrite).
func TestRedteam15ProtectedInReadOnlyDirOfOwn(t *testing.T) {
	t.Parallel()
	w := newDir(t, 0o755)
	ro := filepath.Join(w, "shared")
	if err := os.Mkdir(ro, 0o755); err != nil {
		t.Fatal(err)
	}
	// .envrc leads to a file not made yet in the read-only directory.
	if err := os.Symlink("shared/envrc.target", filepath.Join(w, ".envrc")); err != nil {
		t.Fatal(err)
	}
	// A second writable root, itself read-only by mode, without .mcp.json.
	w2 := newDir(t, 0o755)
	giveToSandboxUser(t, w, ro, filepath.Join(w, ".envrc"), w2)
	if err := os.Chmod(ro, 0o555); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(w2, 0o555); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(ro, 0o755); os.Chmod(w2, 0o755) })
	ps := []probe{
		control("write_source", "write:"+w+"/main.go", ""),
		control("chmod_shared", "chmod:755|"+ro, ""),
		control("write_shared_other", "write:"+ro+"/other.txt", ""),
		attack("create_link_target", "write:"+ro+"/envrc.target"),
		attack("write_through_link", "write:"+w+"/.envrc"),
		control("chmod_root2", "chmod:755|"+w2, ""),
		control("write_root2_source", "write:"+w2+"/main.go", ""),
		attack("create_protected_root2", "write:"+w2+"/.mcp.json"),
	}
	runProbes(t, ciMgr, ps, agentbox.WithWritableRoots(w, w2))
	for _, p := range []string{filepath.Join(w, ".envrc"), filepath.Join(w2, ".mcp.json")} {
		if b, err := os.ReadFile(p); err == nil {
			t.Errorf("ESCAPE: %s now reads %q on the host", p, strings.TrimSpace(string(b)))
		}
	}
}

// TestReadOnlyDirOfOwnKeepsItsMode: the placeholder held in a read-only
// directory of the caller's is gone after the run, and the directory's
// mode is what it was.
func TestReadOnlyDirOfOwnKeepsItsMode(t *testing.T) {
	t.Parallel()
	w := newDir(t, 0o755)
	giveToSandboxUser(t, w)
	if err := os.Chmod(w, 0o555); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(w, 0o755) })
	ps := []probe{
		control("list_root", "readdir:"+w, ""),
		attack("create_protected", "write:"+w+"/.mcp.json"),
	}
	runProbes(t, ciMgr, ps, agentbox.WithWritableRoots(w))
	if _, err := os.Lstat(filepath.Join(w, ".mcp.json")); !os.IsNotExist(err) {
		t.Errorf("the placeholder is still there after the run (%v)", err)
	}
	if fi, err := os.Stat(w); err != nil || fi.Mode().Perm() != 0o555 {
		t.Errorf("the root's mode after the run: %v, %v; want 0555", fi.Mode().Perm(), err)
	}
}
