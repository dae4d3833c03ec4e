//go:build linux

package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// rt41Plant is a shell fragment that plants, in the directory named by $1,
// a repository whose config sets core.fsmonitor: agentbox renames it away
// and reports it as planted-repository.
const rt41Plant = `mkdir -p "$1/.git/objects" "$1/.git/refs" && echo "ref: refs/heads/main" > "$1/.git/HEAD" && printf "[core]\n\tfsmonitor = x\n" > "$1/.git/config"`

// rt41Knock asks the egress proxy for ten hosts the default policy refuses,
// one CONNECT each: ten network violations, harmless looking.
const rt41Knock = `import os, socket
u = os.environ["HTTP_PROXY"].split("//")[1].rstrip("/")
h, p = u.rsplit(":", 1)
for i in range(10):
    s = socket.create_connection((h, int(p)), timeout=10)
    s.sendall(b"CONNECT pypi%d.org:443 HTTP/1.1\r\nHost: x\r\n\r\n" % i)
    s.recv(200)
    s.close()
`

// TestRedteam41ViolationFloodHidesPlant: the command first asks the egress
// proxy for ten hosts the policy refuses (pypi0.org … pypi9.org), then
// plants a repository whose config sets core.fsmonitor in its writable
// root. Found by red-team round 41 (low–medium): `agentbox exec` printed at
// most ten violation lines in the order they were recorded, so the ten
// refusals the command caused itself pushed out the line saying it had
// planted a repository that would run code on the host (renamed away),
// leaving "… and 1 more (see --json)". Fixed: printViolations bounds each
// kind and rule on its own and puts network refusals last.
// Control: the same plant without the ten refusals is printed.
func TestRedteam41ViolationFloodHidesPlant(t *testing.T) {
	if _, err := os.Stat("/usr/bin/python3"); err != nil {
		t.Skip("needs python3")
	}
	runEnv(t)
	dir := t.TempDir()
	knock := filepath.Join(dir, "knock.py")
	if err := os.WriteFile(knock, []byte(rt41Knock), 0o644); err != nil {
		t.Fatal(err)
	}
	// Control: the plant alone is reported.
	code, _, errOut := runCLI(t, "exec", "--approve", "--write", dir, "--workdir", dir,
		"--", "/bin/sh", "-c", rt41Plant, "sh", filepath.Join(dir, "a"))
	if code != 0 || !strings.Contains(errOut, "planted-repository: "+filepath.Join(dir, "a", ".git")) {
		t.Fatalf("control: exit %d, stderr %q", code, errOut)
	}
	// Attack: ten refusals first.
	code, _, errOut = runCLI(t, "exec", "--approve", "--write", dir, "--workdir", dir,
		"--", "/bin/sh", "-c", "/usr/bin/python3 \"$2\" && "+rt41Plant, "sh", filepath.Join(dir, "b"), knock)
	t.Logf("stderr:\n%s", errOut)
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	if _, err := os.Stat(filepath.Join(dir, "b", ".git")); err == nil {
		t.Fatalf("control: the planted repository was not renamed away")
	}
	if n := strings.Count(errOut, "network default-deny: pypi"); n < 10 {
		t.Fatalf("control: %d network refusals reported, want 10: %q", n, errOut)
	}
	if !strings.Contains(errOut, "planted-repository: "+filepath.Join(dir, "b", ".git")) {
		t.Errorf("ten network refusals the command caused itself pushed the planted-repository warning out of exec's report")
	}
}

// TestRedteam41JSONRawBidi: the command plants a repository in a directory
// whose name holds U+202E (right-to-left override), U+009B (the C1 CSI,
// UTF-8 encoded) and U+200B (zero width space). Found by red-team round 41
// (low): exec's text report escaped them, but `agentbox exec --json`
// printed the violation's path and detail with them raw (encoding/json
// escapes only C0 controls and U+2028/U+2029), on the operator's terminal
// unless redirected, where U+202E reorders the line and U+200B makes the
// path read as another. Fixed: every --json output goes through
// newJSONEncoder, which writes such characters as \u escapes.
// Control: the violation is in the JSON, its path decoding to the real one.
func TestRedteam41JSONRawBidi(t *testing.T) {
	runEnv(t)
	dir := t.TempDir()
	name := "s\u202eb\u009bc\u200bd"
	code, out, errOut := runCLI(t, "exec", "--json", "--approve", "--write", dir, "--workdir", dir,
		"--", "/bin/sh", "-c", rt41Plant, "sh", filepath.Join(dir, name))
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	var res struct {
		Violations []struct{ Rule, Path, Detail string }
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	want := filepath.Join(dir, name, ".git")
	found := false
	for _, v := range res.Violations {
		found = found || v.Rule == "planted-repository" && v.Path == want
	}
	if !found {
		t.Fatalf("control: no planted-repository violation for %q in %s", want, out)
	}
	for _, r := range []rune{'\u202e', '\u009b', '\u200b'} {
		if strings.ContainsRune(out, r) {
			t.Errorf("exec --json prints the agent-chosen U+%04X as it is", r)
		}
	}
}
