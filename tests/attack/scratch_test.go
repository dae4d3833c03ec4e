//go:build linux

package attack_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agentbox-dev/agentbox"
)

// TestScratch attacks a scratch directory (a tool cache: writable, every
// change discarded): its denied files must stay unreadable however they
// are reached (renamed parents, hard links, /proc/self/root, one the host
// creates while the sandbox runs), and nothing written there may reach the
// host or the next command. The controls: the host's files are read, and
// files are written, overwritten and read back inside the run.
func TestScratch(t *testing.T) {
	t.Parallel()
	s := newDir(t, 0o755)
	public := filepath.Join(s, "pkg", "index.json")
	secretFile := filepath.Join(s, "tokens", "token")
	late := filepath.Join(s, "late", "token")
	lateTop := filepath.Join(s, "late-token")
	secret := uniqueSecret("scratch")
	writeFile(t, public, publicContent, 0o644)
	writeFile(t, secretFile, secret, 0o644)
	giveToSandboxUser(t, s, filepath.Dir(public), public)
	goFile := filepath.Join(newDir(t, 0o755), "go") // outside: the overlay may not see the host's changes below it
	opts := []agentbox.Option{agentbox.WithScratch(s), agentbox.WithDenyRead(secretFile, late, lateTop)}

	ps := []probe{
		control("read_host_file", "read:"+public, publicContent),
		control("write_new", "write:"+s+"/new.json", ""),
		control("read_new", "read:"+s+"/new.json", writeMarker),
		control("overwrite_host_file", "write:"+public, ""),
		control("read_overwritten", "read:"+public, writeMarker),
		control("mkdir", "mkdir:"+s+"/pkg/sub", ""),
		attack("device_node", "mknodchr:"+s+"/null"),
		attack("read_denied", "read:"+secretFile, "EACCES"),
		attack("read_denied_proc_self_root", "read:/proc/self/root"+secretFile, "EACCES"),
		attack("hardlink_denied", "link:"+secretFile+"|"+s+"/hard"),
		attack("overwrite_denied", "write:"+secretFile),
		attack("rename_denied_parent", "rename:"+s+"/tokens|"+s+"/tokens.old"),
		attack("read_denied_renamed", "read:"+s+"/tokens.old/token"),
		control("wait", "waitexist:"+goFile, ""),
		attack("read_denied_created_later", "read:"+late),
		attack("read_denied_created_later_proc", "read:/proc/self/root"+late),
		attack("read_denied_created_later_top", "read:"+lateTop),
	}
	run := startProbes(t, ciMgr, ps, nil, opts...)
	run.waitLine(t, "STARTED")
	writeFile(t, late, secret, 0o644)
	writeFile(t, lateTop, secret, 0o644)
	writeFile(t, goFile, "", 0o644)
	res := run.check(t, ps)
	if !slices.ContainsFunc(res.Layers, func(l string) bool { return strings.HasPrefix(l, "scratch(") && strings.Contains(l, s+" ") }) {
		t.Errorf("layers %q do not report the scratch directory", res.Layers)
	}

	if got := readOrEmpty(public); got != publicContent {
		t.Errorf("ESCAPE: the host's %s now reads %q", public, got)
	}
	for _, p := range []string{s + "/new.json", s + "/pkg/sub", s + "/hard", s + "/tokens.old"} {
		if _, err := os.Lstat(p); err == nil {
			t.Errorf("ESCAPE: %s, made in the sandbox, is on the host", p)
		}
	}
	if got := readOrEmpty(secretFile); got != secret {
		t.Errorf("denied %s changed on the host: %q", secretFile, got)
	}

	// The next command finds the directory as the host has it.
	next := []probe{
		control("read_host_file", "read:"+public, publicContent),
		attack("read_previous_write", "read:"+s+"/new.json", "ENOENT"),
		attack("read_denied_now_present", "read:"+late, "EACCES"),
	}
	o2, _ := runProbes(t, ciMgr, next, opts...)
	for label, r := range o2.results {
		if strings.Contains(r.detail, secret) {
			t.Errorf("ESCAPE %s: the denied secret was read: %q", label, r.detail)
		}
	}
}
