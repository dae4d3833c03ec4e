package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentbox-dev/agentbox/internal/termsafe"
)

// TestRedteam17ResolvedPathEscapes: every string a manifest holds is
// refused when it carries a control character, but the paths validate
// prints are not only the manifest's text: a rule with a ".." component is
// resolved through the symbolic links on disk (JoinPath), and relative
// rules are joined to the directory the manifest's own link leads to. A
// repository that ships the manifest ships those links and directory names
// too, so their bytes (ESC sequences) reach the operator's terminal in the
// summary validate prints as "✅ valid": they can rewrite the deny line
// the reviewer reads, or conceal it.
//
// Fixed: validate escapes the summary, the file name and warnings as it
// prints them (escapeLines): paths read from the disk were never the
// manifest's checked strings.
func TestRedteam17ResolvedPathEscapes(t *testing.T) {
	const evil = "e\x1b[2J\x1b[H\x1b[32mSAFE\x1b[8m"
	cases := []struct {
		name    string
		dirName string
		link    bool // the manifest is reached through a link into dirName
		rule    string
	}{
		{"dotdot control", "plain", false, "x/../secret"},
		{"linked manifest control", "plain", true, "secret"},
		{"dotdot through a link with escapes", evil, false, "x/../secret"},
		{"linked manifest in a directory with escapes", evil, true, "secret"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			target := filepath.Join(root, tc.dirName, "y")
			if err := os.MkdirAll(target, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(filepath.Join(tc.dirName, "y"), filepath.Join(root, "x")); err != nil {
				t.Fatal(err)
			}
			src := "name: demo\npermissions:\n  filesystem:\n    deny: [\"" + tc.rule + "\"]\n"
			path := filepath.Join(root, "agent.yaml")
			if tc.link {
				real := filepath.Join(target, "real.yaml")
				if err := os.WriteFile(real, []byte(src), 0o644); err != nil {
					t.Fatal(err)
				}
				if err := os.Symlink(real, path); err != nil {
					t.Fatal(err)
				}
			} else if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
				t.Fatal(err)
			}
			code, stdout, stderr := runCLI(t, "validate", path)
			if code != 0 {
				t.Fatalf("validate: exit %d: %s", code, stderr)
			}
			if !strings.Contains(stdout, "secret") {
				t.Errorf("the summary does not show the deny rule:\n%s", stdout)
			}
			for _, out := range []string{stdout, stderr} {
				for _, r := range out {
					if r != '\n' && termsafe.IsControl(r) {
						t.Errorf("validate prints control character U+%04X from a path on disk to the terminal: %q", r, out)
						break
					}
				}
			}
		})
	}
}
