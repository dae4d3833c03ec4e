//go:build linux

package agentbox_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentbox-dev/agentbox"
)

// rt50aExec runs script with /bin/sh in m's sandbox and returns its
// stdout, stderr and exit code.
func rt50aExec(t *testing.T, m *agentbox.Manager, script string, opts ...agentbox.Option) (string, string, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	res, err := m.ExecArgs(ctx, "/bin/sh", []string{"-c", script}, opts...)
	if err != nil {
		t.Fatalf("ExecArgs %q: %v", script, err)
	}
	return res.Stdout, res.Stderr, res.ExitCode
}

// rt50aManager is a CI-profile Manager that sends every command to the
// sandbox (the attack is the sandbox's, not the classifier's).
func rt50aManager(t *testing.T) *agentbox.Manager {
	t.Helper()
	cfg := agentbox.CIConfig()
	cfg.Classifier = rt9Sandboxed{}
	return newManager(t, cfg)
}

// TestRedteam50DenyReadHardLink: a deny-read file inside a writable root
// is hidden by a mount over its name only; another name of the same file
// (a hard link) in the writable root is left as it is, and the command
// reads, and writes, the denied file through it.
//
// The attack: a first call, run without the per-call deny (the brief's
// "a second call's deny list must hold even when the first call's sandbox
// prepared something"), runs `ln token .cache-x` in its writable root; the
// host then puts a new secret in token (in place, as `echo > token` does);
// the second call, with WithDenyRead(token), runs `cat .cache-x` and gets
// the new secret, and `echo >> .cache-x` changes the denied file on the
// host. The same holds for any hard link the project already has (pnpm
// stores, `cp -al` snapshots, git-annex): no earlier call is needed.
//
// Why it works: sandbox/linux/plan_protect.go: (*planner).maskDenied
// masks each deny-read path (mask) and looks for nothing else, while
// bindReadOnly, for the read-only protected names, looks for their other
// names in the writable roots (linkedUnder, otherNames in plan_links.go)
// and binds them read-only too. Landlock does not help: a writable root
// is granted whole (prepareLandlock adds WriteRoots with llRead|llWrite;
// only ReadRoots are carved around deny paths). tests/attack/read_test.go
// only tries to make a new link during the run (refused: the name is a
// mount), never one that exists when the sandbox starts.
//
// Severity: high (a denied file read, and written).
//
// Controls: the link is a real second name of the file (same inode, link
// count 2) on the host; the second call cannot read token by its own name
// (the mask holds there); a plain file in the root stays readable.
//
// Found by red-team round 50. Fixed: the other names of a denied file are
// found in the writable roots and the directories sandboxes were ever
// given to write, and masked too (sandbox/linux/plan_denylinks.go).
func TestRedteam50DenyReadHardLink(t *testing.T) {
	root := hostDir(t)
	token := filepath.Join(root, "token")
	if err := os.WriteFile(token, []byte("placeholder\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "public"), []byte("PUBLIC50\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	m := rt50aManager(t)

	// Call 1: no deny on token; the command makes a second name for it.
	_, errOut, code := rt50aExec(t, m, "ln token .cache-x && echo LINKED",
		agentbox.WithWritableRoots(root), agentbox.WithWorkingDir(root))
	if code != 0 {
		t.Fatalf("premise: call 1 could not link: %d %q", code, errOut)
	}
	var a, b syscall.Stat_t
	if err := syscall.Stat(token, &a); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Stat(filepath.Join(root, ".cache-x"), &b); err != nil {
		t.Fatalf("premise: no second name on the host: %v", err)
	}
	if a.Ino != b.Ino || a.Nlink != 2 {
		t.Fatalf("premise: .cache-x is not a hard link of token (ino %d/%d, nlink %d)", a.Ino, b.Ino, a.Nlink)
	}

	// The host writes the secret in place.
	const secret = "RT50A-HARDLINK-SECRET"
	if err := os.WriteFile(token, []byte(secret+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}

	// Call 2: token denied.
	out, errOut, _ := rt50aExec(t, m,
		"cat public; cat token && echo DIRECT-READ; echo ---; cat .cache-x; echo TAMPERED >> .cache-x && echo WROTE",
		agentbox.WithWritableRoots(root), agentbox.WithWorkingDir(root), agentbox.WithDenyRead(token))
	t.Logf("call 2: stdout %q stderr %q", out, errOut)
	if !strings.Contains(out, "PUBLIC50") {
		t.Fatalf("control: the public file in the root is not readable: %q %q", out, errOut)
	}
	direct, viaLink, _ := strings.Cut(out, "---")
	if strings.Contains(direct, secret) || strings.Contains(direct, "DIRECT-READ") {
		t.Fatalf("control: the deny mask on token itself does not hold: %q", out)
	}
	if strings.Contains(viaLink, secret) {
		t.Errorf("the deny-read file %s was read through its other name .cache-x: %q", token, viaLink)
	}
	if got, _ := os.ReadFile(token); strings.Contains(string(got), "TAMPERED") {
		t.Errorf("the deny-read file %s was written through its other name: %q", token, got)
	}
}

// TestRedteam50DenyReadHardLinkReadOnlyArea: the same as
// TestRedteam50DenyReadHardLink where the second name is outside every
// writable root of the call that denies the file: a first call, with the
// directory writable, links a file of a denied directory (keys/) to
// another name; the second call has the directory read-only and denies
// keys/, and reads the denied file through the other name.
//
// Why it works: the deny is carried out by a mask over keys/
// (sandbox/linux/plan_protect.go: (*planner).maskDenied) and, in Landlock,
// by granting read on keys/'s siblings instead of their parent
// (sandbox/linux/landlock.go: (*llBuilder).cover); the sibling that is a
// second name of a denied file is granted like any other. Nothing looks
// for other names of denied files outside writable roots either.
//
// Severity: high (a denied file read).
//
// Controls: keys/id itself is unreadable in the second call; the other
// name is the same inode on the host.
//
// Found by red-team round 50. Fixed: as above; keys/ lies in a directory
// call one was given to write (Filesystem.Granted), so it is looked through.
func TestRedteam50DenyReadHardLinkReadOnlyArea(t *testing.T) {
	root := hostDir(t)
	keys := filepath.Join(root, "keys")
	if err := os.Mkdir(keys, 0o755); err != nil {
		t.Fatal(err)
	}
	id := filepath.Join(keys, "id")
	if err := os.WriteFile(id, []byte("placeholder\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	m := rt50aManager(t)
	if _, errOut, code := rt50aExec(t, m, "ln keys/id notes.txt",
		agentbox.WithWritableRoots(root), agentbox.WithWorkingDir(root)); code != 0 {
		t.Fatalf("premise: call 1 could not link: %d %q", code, errOut)
	}
	var a, b syscall.Stat_t
	if syscall.Stat(id, &a) != nil || syscall.Stat(filepath.Join(root, "notes.txt"), &b) != nil || a.Ino != b.Ino {
		t.Fatalf("premise: notes.txt is not a second name of keys/id")
	}
	const secret = "RT50A-KEYS-SECRET"
	if err := os.WriteFile(id, []byte(secret+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// Call 2: the directory read-only (no writable root), keys/ denied.
	out, errOut, _ := rt50aExec(t, m, "cat "+id+" && echo DIRECT-READ; echo ---; cat "+filepath.Join(root, "notes.txt"),
		agentbox.WithWorkingDir("/"), agentbox.WithDenyRead(keys))
	t.Logf("call 2: stdout %q stderr %q", out, errOut)
	direct, viaLink, _ := strings.Cut(out, "---")
	if strings.Contains(direct, secret) || strings.Contains(direct, "DIRECT-READ") {
		t.Fatalf("control: the deny on keys/ does not hold for keys/id itself: %q", out)
	}
	if strings.Contains(viaLink, secret) {
		t.Errorf("the denied file %s was read through its other name notes.txt: %q", id, viaLink)
	}
}
