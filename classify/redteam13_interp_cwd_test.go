package classify

import "testing"

// Red team 13: interpreter one-liners are scanned for deletes
// (shutil.rmtree("/"), fs.rmSync("/") are forbidden), but a relative path
// in them is not resolved against the cd-tracked directory, which `rm`
// targets now are: `cd ~ && python3 -c 'shutil.rmtree(".")'` empties the
// home and passes as sandboxed while `cd ~ && rm -rf .` is forbidden. The
// controls: the absolute and rm forms are forbidden, a relative rmtree in
// the project stays sandboxed.
func TestRedteam13InterpreterDeleteAfterCd(t *testing.T) {
	c := Default()
	for _, tc := range []struct {
		command string
		want    Decision
		atMost  bool
	}{
		{"cd ~ && rm -rf .", Forbidden, false},                                                 // control
		{"python3 -c 'import shutil; shutil.rmtree(\"/\")'", Forbidden, false},                 // control
		{"cd build && python3 -c 'import shutil; shutil.rmtree(\".\")'", Sandboxed, true},      // control
		{"cd ~ && python3 -c 'import shutil; shutil.rmtree(\".\")'", Forbidden, false},         // attack
		{"cd / && python3 -c 'import shutil; shutil.rmtree(\"etc\")'", Forbidden, false},       // attack
		{"cd ~ && node -e 'require(\"fs\").rmSync(\".\",{recursive:true})'", Forbidden, false}, // attack
		{"cd ~ && perl -e 'use File::Path; rmtree(\".\")'", Forbidden, false},                  // attack
	} {
		got := c.Classify(tc.command)
		if tc.atMost && got.Decision > tc.want {
			t.Errorf("control %q: %s (rule %q), want at most %s", tc.command, got.Decision, got.Rule, tc.want)
		}
		if !tc.atMost && got.Decision < tc.want {
			t.Errorf("%q: %s (rule %q), want %s", tc.command, got.Decision, got.Rule, tc.want)
		}
	}
}
