package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestRedteam48CheckVerdictRepainted: `agentbox check 'LINE'` prints the
// classifier's verdict as text, and its reason can carry words of LINE
// itself: a fork bomb's reason names the function ("… (function NAME)").
// That text is printed as it is, with no escaping, while every other
// output of agentbox escapes what a command or an agent chose (README:
// "What validate and run print … is escaped as it is printed"). A
// function name in bash may hold ESC and '[', so the
// line that the agent (the LLM composing the command) hands to check can
// erase the "forbidden" verdict on the operator's terminal and write
// another one in its place: the person deciding whether the agent's
// command is safe reads "sandboxed", while check exits 2.
//
// Attack: check "N(){ N|N& };N" with N=$'\e[2K\e[1Gsandboxed\e[150C', a
// real fork bomb whose function name repaints the line; shown in a real
// terminal emulator (tmux), the verdict reads "sandboxed" (what check
// prints for a command that runs in the sandbox).
//
// Why it works: cmd/agentbox/check.go:newCheckCmd prints r.Reason with
// fmt.Fprintf("%s") instead of escapeControls, and
// classify/funcs.go:funcDecl (and analyze.go:salvage) puts the function
// name unchanged into the unit's info, which classifier.go:decide appends
// to the reason.
//
// Severity: low (a misleading verdict on the operator's terminal; the
// exit status and --json stay right). Found by red-team round 48. Fixed:
// check (and the approval prompt) print the rule and the reason through
// escapeControls.
func TestRedteam48CheckVerdictRepainted(t *testing.T) {
	// Erase the line, write the verdict of a harmless command, and send
	// the ")" that ends the reason to the far right of the line.
	name := "\x1b[2K\x1b[1Gsandboxed\x1b[150C"
	bomb := name + "(){ " + name + "|" + name + "& };" + name

	// Premise 1: bash takes such a name for a function (a harmless body).
	out, err := exec.Command("bash", "-c", name+"(){ echo rt48a-marker; };"+name).CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != "rt48a-marker" {
		t.Fatalf("premise: bash does not run a function so named: %v %q", err, out)
	}

	// Control: the verdict itself is right.
	code, stdout, _ := runCLI(t, "check", bomb)
	if code != checkForbidden || !strings.HasPrefix(stdout, "forbidden (rule fork-bomb)") {
		t.Fatalf("control: check exit %d, stdout %q", code, stdout)
	}
	if strings.ContainsRune(stdout, '\x1b') {
		t.Errorf("check printed the line's escape sequences raw: %q", stdout)
	}
	code, stdout, _ = runCLI(t, "check", "ls -l")
	if code != checkRuns {
		t.Fatalf("control: check ls: exit %d %q", code, stdout)
	}

	// What the operator sees: check run in a real terminal emulator.
	tmux, err := exec.LookPath("tmux")
	if err != nil {
		t.Skip("tmux (a terminal emulator to look at the output with) is not installed")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	arg := filepath.Join(dir, "arg")
	if err := os.WriteFile(arg, []byte(bomb), 0o600); err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(dir, "show.sh")
	done := filepath.Join(dir, "done")
	src := "#!/bin/sh\nclear\n" + cliEnv + "=1 '" + exe + "' check \"$(cat '" + arg + "')\"\necho \"exit=$?\"\ntouch '" + done + "'\nsleep 30\n"
	if err := os.WriteFile(script, []byte(src), 0o700); err != nil {
		t.Fatal(err)
	}
	sock := "rt48a-check-" + filepath.Base(dir)
	tm := func(args ...string) (string, error) {
		b, err := exec.Command(tmux, append([]string{"-L", sock, "-f", "/dev/null"}, args...)...).CombinedOutput()
		return string(b), err
	}
	if o, err := tm("new-session", "-d", "-x", "200", "-y", "10", "-s", "rt48a", script); err != nil {
		t.Fatalf("tmux: %v %s", err, o)
	}
	t.Cleanup(func() { _, _ = tm("kill-server") })
	deadline := time.Now().Add(20 * time.Second)
	for {
		if _, err := os.Stat(done); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("check did not finish in the terminal")
		}
		time.Sleep(50 * time.Millisecond)
	}
	time.Sleep(200 * time.Millisecond)
	screen, err := tm("capture-pane", "-p", "-t", "rt48a")
	if err != nil {
		t.Fatalf("capture-pane: %v %s", err, screen)
	}
	if !strings.Contains(screen, "exit=2") {
		t.Fatalf("premise: the terminal does not show check's exit status 2:\n%s", screen)
	}
	if !strings.Contains(screen, "forbidden") && strings.HasPrefix(screen, "sandboxed ") {
		t.Errorf("SPOOFED: check's forbidden verdict on a fork bomb shows in the terminal as:\n%s", screen)
	}
}
