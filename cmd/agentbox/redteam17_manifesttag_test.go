package main

import (
	"strings"
	"testing"

	"github.com/agentbox-dev/agentbox/internal/termsafe"
)

// TestRedteam17ManifestTagEscapes: a YAML tag is a URI whose %XX escapes
// the parser decodes, so a manifest can carry ESC, BEL, CR and the like in
// a tag although every string value is checked for control characters.
// validate and run print the tag in their FILE:LINE:COL errors, and the
// decoded bytes reach the operator's terminal as they are: a manifest a
// reviewer runs validate on can clear the screen, set the window title,
// write the clipboard (OSC 52) or conceal the "❌ invalid" line that
// follows and print a forged "✅ valid" summary in its place.
//
// Fixed: a YAML tag holding a control character is refused, tags are quoted
// in messages, and validate and run escape every error line they print
// (escapeLines).
func TestRedteam17ManifestTagEscapes(t *testing.T) {
	// ESC[2J ESC[H "✅ valid" ... ESC[8m (conceal what follows).
	const forge = "%1B%5B2J%1B%5BH%E2%9C%85%20valid%0A%1B%5B8m"
	cases := []struct {
		name, src string
		hostile   bool
	}{
		// Controls: the same shapes without escapes are refused and
		// printed as they are (nothing to escape).
		{"custom tag control", "name: !mytag demo\n", false},
		{"secondary tag control", "name: demo\nversion: !!mytag 1\n", false},
		// A custom tag on a value: "custom YAML tag %s is not supported".
		{"custom tag on value", "name: !x" + forge + " demo\n", true},
		// A secondary (!!) tag passes plain(); describe prints it with %s.
		{"secondary tag on value", "name: demo\nversion: !!x" + forge + " 1\n", true},
		{"secondary tag on limit", "name: demo\nlimits:\n  max_memory_mb: !!x" + forge + " 1\n", true},
		// On a key.
		{"custom tag on key", "name: demo\n!x" + forge + " limits: {}\n", true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			path := writeManifest(t, tc.src)
			for _, args := range [][]string{
				{"validate", path},
				{"run", "--manifest", path, "--", "/bin/true"},
			} {
				code, stdout, stderr := runCLI(t, args...)
				if code == 0 {
					t.Fatalf("%s: exit 0 for a manifest with a tag; stderr %q", args[0], stderr)
				}
				if !tc.hostile && !strings.Contains(stderr, "mytag") {
					t.Errorf("%s: the error does not name the tag: %q", args[0], stderr)
				}
				for _, out := range []string{stdout, stderr} {
					for _, r := range out {
						if r != '\n' && termsafe.IsControl(r) {
							t.Errorf("%s: output carries control character U+%04X from the manifest to the terminal: %q", args[0], r, out)
							break
						}
					}
				}
			}
		})
	}
}
