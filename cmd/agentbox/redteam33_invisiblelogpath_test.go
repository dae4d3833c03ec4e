//go:build linux

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestRedteam33InvisibleCharInLoggedPath: the agent plants a repository
// (a .git whose config sets core.fsmonitor) in a directory whose name holds
// a zero width space, "rep" U+200B "o". agentbox renames it away and logs a
// filesystem_deny event naming the path; `agentbox audit` (and run's ⚠️ line)
// print that agent-chosen path with the U+200B as it is, so the operator
// reads ".../work/repo/.git was created by the command ... renamed" about a
// path that is not repo/.git. The same character is refused in a manifest
// path precisely because it makes a path read as another
// (TestRedteam17InvisibleCharDenyDeniesNothing), but termsafe.Ranges, which
// auditCell/escapeControls use for what agents wrote, leaves the invisible
// format characters (U+200B–U+200D, U+2060, U+FEFF, U+00AD) out.
// Why it matters: the audit log is the operator's record of what the agent
// did; an agent can make an entry about its own planted repository read as
// one about the operator's real repo/.git (or hide which directory really
// holds the quarantined tree). Severity: low (display spoofing; the bytes in
// the log and in --json are right). Fix: escape the invisible format
// characters in text agentbox did not write (add them to termsafe's ranges
// for output, or a second list used by auditCell/escapeControls).
// Control: the event is logged and printed at all, for the same planted
// repository.
// Fixed: the CLI escapes termsafe.Invisible characters (format characters,
// spaces other than U+0020) in text it did not write, as \u200b here.
func TestRedteam33InvisibleCharInLoggedPath(t *testing.T) {
	state := runEnv(t)
	work := filepath.Join(t.TempDir(), "work")
	if err := os.MkdirAll(work, 0o755); err != nil {
		t.Fatal(err)
	}
	m := writeManifest(t, "name: rt33c-zw\npermissions:\n  filesystem: {write: ["+work+"]}\n")
	script := `cd "$1" && d=$(printf "rep\342\200\213o") && mkdir -p "$d/.git/objects" "$d/.git/refs" && echo "ref: refs/heads/main" > "$d/.git/HEAD" && printf "[core]\n\tfsmonitor = x\n" > "$d/.git/config" && sleep 1`
	a := startCLI(t, "run", "--manifest", m, "--", "/bin/sh", "-c", script, "sh", work)
	if code := a.wait(t, 30*time.Second); code != 0 {
		t.Fatalf("run: exit %d, stderr %q", code, a.stderr.String())
	}
	logPath := filepath.Join(state, "logs", "rt33c-zw.log")
	code, out, errOut := runCLI(t, "audit", "--log", logPath, "--type", "filesystem_deny")
	if code != 0 {
		t.Fatalf("audit: exit %d %q", code, errOut)
	}
	t.Logf("audit: %q", out)
	if !strings.Contains(out, "planted-repository") || !strings.Contains(out, "/.git") {
		t.Fatalf("control: the planted repository is not in the audit output: %q (run stderr %q)", out, a.stderr.String())
	}
	if strings.ContainsRune(out, '\u200b') {
		t.Errorf("SPOOF: `agentbox audit` prints the agent-chosen path with a raw zero width space: it reads as %q",
			strings.ReplaceAll(out[strings.Index(out, work):], "\u200b", ""))
	}
	if strings.ContainsRune(a.stderr.String(), '\u200b') {
		t.Errorf("SPOOF: run's warning prints the agent-chosen path with a raw zero width space")
	}
}
