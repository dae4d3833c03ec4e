//go:build linux

package attack_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/agentbox-dev/agentbox"
)

// TestRedteam12ProtectedNameLinkedToFileInRoot: a protected name at the top
// of a writable root (.envrc, .mcp.json, .pre-commit-config.yaml, a
// husky or lefthook configuration) that is a symbolic link to a file
// elsewhere in the same root, as shared configurations in monorepos and
// dotfile managers arrange them. The plan skipped a protected name that is a
// link ("what it points to is judged where it lives"), and the target, an
// ordinary file of the writable root, was writable: the command rewrote
// what direnv, the pre-commit hook or an agent's MCP start-up runs next,
// through the protected name itself. The same names as regular files stay
// read-only (controls that hold), and an ordinary file is writable.
//
// Fixed: the plan follows a protected link as the kernel does
// (followLinks), holds its target read-only where it lies in a writable
// root (a placeholder holds a missing one), and binds every link on the
// way, a directory's too, onto itself (opHoldLink): the command reads the
// configuration through the link as before but can neither write it,
// through any name, nor remove, rename or replace a link of the chain.
func TestRedteam12ProtectedNameLinkedToFileInRoot(t *testing.T) {
	t.Parallel()
	w := newDir(t, 0o755)
	linked := []string{".envrc", ".mcp.json", ".pre-commit-config.yaml", "lefthook.yml"}
	const orig = "original\n"
	for _, name := range linked {
		writeFile(t, filepath.Join(w, "shared", name+".txt"), orig, 0o644)
		if err := os.Symlink(filepath.Join("shared", name+".txt"), filepath.Join(w, name)); err != nil {
			t.Fatal(err)
		}
	}
	// A link that leads nowhere yet, and one through a second link.
	if err := os.Symlink("shared/missing.toml", filepath.Join(w, ".mise.toml")); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(w, "shared", "claude.md"), orig, 0o644)
	if err := os.Symlink("claude.md", filepath.Join(w, "shared", "hop")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("shared/hop", filepath.Join(w, "lefthook.yaml")); err != nil {
		t.Fatal(err)
	}
	// A link to a directory, and a file link through a directory link.
	writeFile(t, filepath.Join(w, "shared", "vscode", "settings.json"), orig, 0o644)
	if err := os.Symlink("shared/vscode", filepath.Join(w, ".vscode")); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(w, "real", "lefthook.json"), orig, 0o644)
	if err := os.Symlink("real", filepath.Join(w, "conf")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("conf/lefthook.json", filepath.Join(w, "lefthook.json")); err != nil {
		t.Fatal(err)
	}
	// A second writable root where the same names are regular files.
	regular := newDir(t, 0o755)
	for _, name := range linked {
		writeFile(t, filepath.Join(regular, name), orig, 0o644)
	}
	ps := []probe{
		control("write_source", "write:"+w+"/main.go", ""),
		control("write_shared_other", "write:"+w+"/shared/other.txt", ""),
	}
	for _, name := range linked {
		ps = append(ps,
			attack("regular_"+name, "write:"+regular+"/"+name, "EROFS"),
			attack("linked_"+name, "write:"+w+"/"+name, "EROFS"),
			attack("target_"+name, "write:"+w+"/shared/"+name+".txt", "EROFS"),
			attack("unlink_"+name, "unlink:"+w+"/"+name, "EBUSY"),
			attack("rename_"+name, "rename:"+w+"/"+name+"|"+w+"/moved", "EBUSY"),
			control("read_"+name, "read:"+w+"/"+name, orig),
		)
	}
	ps = append(ps,
		attack("dangling_create_target", "write:"+w+"/shared/missing.toml"),
		attack("dangling_write_through", "write:"+w+"/.mise.toml"),
		attack("dangling_unlink", "unlink:"+w+"/.mise.toml", "EBUSY"),
		attack("hop_write_through", "write:"+w+"/lefthook.yaml", "EROFS"),
		attack("hop_unlink_middle", "unlink:"+w+"/shared/hop", "EBUSY"),
		control("hop_read", "read:"+w+"/lefthook.yaml", orig),
		control("dirlink_list", "readdir:"+w+"/.vscode", "settings.json"),
		attack("dirlink_write_in", "write:"+w+"/.vscode/tasks.json", "EROFS"),
		attack("dirlink_write_target", "write:"+w+"/shared/vscode/settings.json", "EROFS"),
		attack("dirlink_unlink", "unlink:"+w+"/.vscode", "EBUSY"),
		attack("dirlink_rename", "rename:"+w+"/.vscode|"+w+"/moved", "EBUSY"),
		control("through_dirlink_read", "read:"+w+"/lefthook.json", orig),
		attack("through_dirlink_unlink_dir", "unlink:"+w+"/conf", "EBUSY"),
		attack("through_dirlink_write", "write:"+w+"/real/lefthook.json", "EROFS"),
	)
	runProbes(t, ciMgr, ps, agentbox.WithWritableRoots(w, regular))
	for _, name := range append(linked, "claude.md") {
		target := filepath.Join(w, "shared", name+".txt")
		if name == "claude.md" {
			target = filepath.Join(w, "shared", name)
		}
		if b, err := os.ReadFile(target); err != nil || string(b) != orig {
			t.Errorf("ESCAPE: %s (linked) now holds %q on the host (%v)", name, b, err)
		}
	}
	if _, err := os.Lstat(filepath.Join(w, "shared", "missing.toml")); err == nil {
		t.Error("ESCAPE: the command created the target of a protected link that led nowhere")
	}
	if b, err := os.ReadFile(filepath.Join(w, "real", "lefthook.json")); err != nil || string(b) != orig {
		t.Errorf("ESCAPE: lefthook.json (through a directory link) now holds %q on the host (%v)", b, err)
	}
	if _, err := os.Lstat(filepath.Join(w, "shared", "vscode", "tasks.json")); err == nil {
		t.Error("ESCAPE: the command wrote into a protected directory through its link")
	}
	for _, l := range []string{".envrc", ".mise.toml", "lefthook.yaml", "shared/hop", ".vscode", "conf", "lefthook.json"} {
		if fi, err := os.Lstat(filepath.Join(w, l)); err != nil || fi.Mode()&os.ModeSymlink == 0 {
			t.Errorf("%s is no longer a link on the host after the run (%v)", l, err)
		}
	}
}
