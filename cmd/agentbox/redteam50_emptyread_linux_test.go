package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRedteam50EmptyReadListReadsEverything: in a manifest every other
// allow list written empty grants nothing (network.allow: [] reaches no
// host, write: [] writes nowhere), and a read list restricts reads to what
// it names. An explicit empty read list, `read: []` (what a user writes
// for "this agent reads nothing of mine", or what a template renders from
// an empty variable), is taken as no read list at all: the agent reads
// everywhere but the built-in deny set, the user's own files included.
// validate calls the manifest valid without a warning (its summary line
// says "everywhere ... (default policy)", the same as for a manifest with
// no read key), and run says nothing.
//
// Attack: read: [] and the agent cats a file in the user's project.
//
// Why it works: policy/manifest_sections.go:permissions decodes an empty
// list to a nil FilesystemPermissions.Read, and supervise/compile.go:Compile
// passes it to AllowRead, where empty means "no restriction"
// (config.go:FilesystemConfig.AllowRead); nothing tells `read: []` from an
// absent key, though KeyPos knows it was written.
//
// Severity: medium (a read the manifest, as written, does not grant; the
// built-in deny set still holds). Found by red-team round 50. Fixed: a read
// list written empty (or null) is refused with a line that says what to
// write instead (policy/manifest_sections.go:readList).
func TestRedteam50EmptyReadListReadsEverything(t *testing.T) {
	runEnv(t)
	proj := publicTempDir(t)
	file := filepath.Join(proj, "notes.txt")
	if err := os.WriteFile(file, []byte("RT50B-PRIVATE-NOTES\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(proj, "other")
	if err := os.Mkdir(other, 0o755); err != nil {
		t.Fatal(err)
	}
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ name, read string }{
		// Control: a read list that names another directory (and the
		// working directory, which the sandbox must show) restricts.
		{"nonempty_control", "[\"" + other + "\", \"" + wd + "\"]"},
		{"empty_list", "[]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := writeManifest(t, "name: rt50b-emptyread\npermissions:\n  filesystem:\n    read: "+tc.read+"\n    write: []\n  network:\n    allow: []\n")
			code, _, vErr := runCLI(t, "validate", m)
			flagged := code != 0 || strings.Contains(vErr, "warning")
			code, out, errOut := runCLI(t, "run", "--manifest", m, "--approve", "--", "/bin/sh", "-c", "cat "+file+"; echo rt50b-ran")
			if !flagged && !strings.Contains(out, "rt50b-ran") {
				t.Fatalf("premise: the agent did not run: exit %d, stdout %q, stderr %q", code, out, errOut)
			}
			read := strings.Contains(out, "RT50B-PRIVATE-NOTES")
			if tc.name == "nonempty_control" {
				if read || flagged {
					t.Errorf("control: read list %s: validate flagged %v, agent read %s: %v (stderr %q)", tc.read, flagged, file, read, errOut)
				}
				return
			}
			if !flagged && read {
				t.Errorf("read: [] — validate called it valid without a warning, and the agent read %s (a file no read entry names)", file)
			}
		})
	}
}
