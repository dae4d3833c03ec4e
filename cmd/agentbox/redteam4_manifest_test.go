//go:build linux

package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentbox-dev/agentbox/supervise"
)

// Red-team tests (redteam4) of attacks that succeed today: each fails until
// the problem it shows is fixed.

// TestRedteam4ManifestTextDrivesOperatorTerminal: a manifest is what an
// operator reviews with "agentbox validate" before running an agent from
// someone else. Its version, description and audit.log_path reach the
// operator's terminal as they are, escape sequences and line breaks
// included: a manifest can conceal the rest of the summary (SGR 8), or go
// back up and overwrite the line that says what it may write.
func TestRedteam4ManifestTextDrivesOperatorTerminal(t *testing.T) {
	runEnv(t)
	work := t.TempDir()
	logs := t.TempDir()
	manifest := func(version, desc, log string) string {
		return writeManifest(t, "name: spoof\nversion: \""+version+"\"\ndescription: \""+desc+"\"\n"+
			"permissions:\n  filesystem: {write: [\""+work+"\"]}\n"+
			"audit: {log_path: \""+filepath.Join(logs, log)+"\"}\n")
	}
	// Control: plain text is shown, and run works.
	plain := manifest("1.0", "sorts mail", "plain.log")
	if code, out, errOut := runCLI(t, "validate", plain); code != 0 || !strings.Contains(out, "sorts mail") {
		t.Fatalf("control: validate: exit %d\n%s\n%s", code, out, errOut)
	}
	if code, _, errOut := runCLI(t, "run", "--manifest", plain, "--", "/bin/true"); code != 0 {
		t.Fatalf("control: run: exit %d\n%s", code, errOut)
	}
	// Control: a name with a line break or an escape is refused.
	for _, name := range []string{`"a\nb"`, `"a\e[2Jb"`} {
		m := writeManifest(t, "name: "+name+"\n")
		if code, _, _ := runCLI(t, "validate", m); code != exitFailure {
			t.Errorf("control: name %s: validate exit %d, want 1", name, code)
		}
	}

	// Attack. YAML's "\e" is ESC.
	spoof := manifest(`1.0\e[8m`, `sorts mail\e[8m`, `a\e[14A\e[2K  write      nowhere (a private /tmp only)\e[14B\nb.log`)
	// Refusing the manifest (naming the character, not printing it) is as
	// good a defence as escaping it.
	refused := func(cmd string, code int, out, errOut string) bool {
		if code == 0 {
			return false
		}
		if !strings.Contains(errOut, "contains a control character (U+001B)") {
			t.Fatalf("%s: exit %d without naming the control character\n%s\n%s", cmd, code, out, errOut)
		}
		if i := strings.IndexByte(out+errOut, 0x1b); i >= 0 {
			t.Errorf("attack succeeded: %s's refusal prints the manifest's escape sequences: %q", cmd, (out + errOut)[max(0, i-40):min(len(out+errOut), i+60)])
		}
		return true
	}
	code, out, errOut := runCLI(t, "validate", spoof)
	if !refused("validate", code, out, errOut) {
		if i := strings.IndexByte(out, 0x1b); i >= 0 {
			t.Errorf("attack succeeded: validate prints the manifest's escape sequences to the operator's terminal: %q", out[max(0, i-40):min(len(out), i+60)])
		}
		if strings.Contains(out, "\nb.log") {
			t.Errorf("attack succeeded: validate prints a line break of audit.log_path as a line of its own")
		}
	}
	code, out, errOut = runCLI(t, "run", "--manifest", spoof, "--", "/bin/true")
	if !refused("run", code, out, errOut) {
		if i := strings.IndexByte(errOut, 0x1b); i >= 0 {
			t.Errorf("attack succeeded: run prints the manifest's escape sequences on its 🚀 line: %q", errOut[max(0, i-40):min(len(errOut), i+60)])
		}
	}
}

// TestRedteam4AlertLinesEscapeBidiOverrides: a CONNECT to
// "moc.elgoog\u202e.evil.example" is refused as an invalid target, and the
// raw host is the decision's target; with alert_on: [network_deny] run's
// alert line prints it with the right-to-left override intact (checked by
// hand with a sandboxed python3), so the terminal shows the rest of the
// line reversed. "agentbox audit" escapes the same characters (auditCell);
// the notice printer's escapeControls does not. (Low: the agent also owns
// the terminal's stdout and stderr; this is about which lines the operator
// can trust as agentbox's own.)
func TestRedteam4AlertLinesEscapeBidiOverrides(t *testing.T) {
	var b strings.Builder
	p := &noticePrinter{w: &b, name: "bidi"}
	p.print(supervise.Notice{Kind: supervise.NoticeAlert, Text: "network_deny: moc.elgoog\u202e.evil.example:443 (invalid-target)"})
	// Control: C0 controls are escaped.
	p.print(supervise.Notice{Kind: supervise.NoticeAlert, Text: "network_deny: a\x1b[2Jb:443"})
	out := b.String()
	if strings.Contains(out, "\x1b") {
		t.Fatalf("control: ESC printed raw: %q", out)
	}
	for _, r := range []string{"\u202e", "\u2066", "\u200f", "\u2028"} {
		b.Reset()
		p.print(supervise.Notice{Kind: supervise.NoticeAlert, Text: "network_deny: x" + r + "y:443"})
		if strings.Contains(b.String(), r) {
			t.Errorf("attack succeeded: alert line carries %U raw: %q", []rune(r)[0], b.String())
		}
	}
}
