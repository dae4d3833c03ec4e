//go:build linux

package agentbox_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentbox-dev/agentbox"
)

// TestRedteam50HistoryLinkedToDevNull: `ln -sf /dev/null ~/.bash_history`
// (the common way to turn a shell's, less's, mysql's or python's history
// off for good) makes the default policy deny /dev/null itself: every
// sandbox of that user gets an empty, mode 000, read-only file as
// /dev/null, and `cmd >/dev/null`, `2>/dev/null` and `</dev/null` fail in
// every command (the shell says "cannot create /dev/null: Read-only file
// system").
//
// The attack line: none is needed in the sandbox; `echo x >/dev/null &&
// echo OK` fails under DefaultConfig for a home where ~/.bash_history is a
// link to /dev/null. A command given a writable home cannot plant such a
// link itself (a missing denied name is held by a placeholder), so this is
// a denial of service of ordinary work by the default deny list, not a
// bypass.
//
// Why it works: deny paths are resolved through their links
// (fspaths.go: resolvePath), so the history's entry in the deny list
// becomes /dev/null, which sandbox/linux/plan_protect.go: (*planner).mask
// covers with the empty mask file. The fix of commit beddef1 ("a moved
// store in /dev, /proc or /sys is not denied") skips only stores moved by
// an environment variable (HISTFILE=/dev/null), not ones a link moves.
//
// Severity: low (every command that uses /dev/null breaks; nothing is
// read or written that the policy denies).
//
// Control: the same command with a home where ~/.bash_history is a plain
// file writes /dev/null.
//
// Found by red-team round 50. Fixed: a deny path that is a link into
// /dev, /proc or /sys from elsewhere keeps only its own name
// (fspaths.go: resolver.all).
func TestRedteam50HistoryLinkedToDevNull(t *testing.T) {
	run := func(home string) string {
		t.Setenv("HOME", home)
		cfg := agentbox.DefaultConfig()
		cfg.Classifier = rt9Sandboxed{}
		m := newManager(t, cfg)
		out, errOut, _ := rt50aExec(t, m, "echo x >/dev/null && echo DEVNULL-OK; ls -l /dev/null", agentbox.WithWorkingDir("/"))
		m.Close()
		return out + errOut
	}
	plain := hostDir(t)
	if err := os.WriteFile(filepath.Join(plain, ".bash_history"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if out := run(plain); !strings.Contains(out, "DEVNULL-OK") {
		t.Fatalf("control: /dev/null is not writable with a plain history file: %q", out)
	}
	linked := hostDir(t)
	if err := os.Symlink("/dev/null", filepath.Join(linked, ".bash_history")); err != nil {
		t.Fatal(err)
	}
	out := run(linked)
	t.Logf("history linked to /dev/null: %q", out)
	if !strings.Contains(out, "DEVNULL-OK") {
		t.Errorf("a home whose ~/.bash_history links to /dev/null breaks /dev/null in every sandbox: %q", out)
	}
}
