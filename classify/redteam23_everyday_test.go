package classify

import (
	"testing"
	"time"
)

// TestRedteam23Everyday: the fixes of red team 23 (i) — loop values chosen
// by risk and bounded across nesting, cd that may fail, && chains,
// recursive-read spellings, in-place rc edits — leave everyday commands
// as they were, and quick to classify.
func TestRedteam23Everyday(t *testing.T) {
	w := "1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16"
	c := Default()
	for _, tc := range []struct {
		command string
		want    Decision
	}{
		{`for i in 1 2 3; do echo $i; done`, Allow},
		{`for f in *.go; do gofmt -l "$f"; done`, Sandboxed},
		{`grep -r TODO .`, Allow},
		{`cd src && grep -r x .`, Allow},
		{`sed -i s/a/b/ main.go`, Sandboxed},
		{`perl -pi -e s/a/b/ x.txt`, Sandboxed},

		{`cd ~/project && grep -r TODO .`, Allow},
		{`cd src; grep -r x .`, Allow},
		{`cd build && make`, Sandboxed},
		{`pushd src && make && popd`, Sandboxed},
		{`cd /tmp; rm -rf build`, Sandboxed},
		{`for i in {1..100}; do echo $i; done`, Allow},
		{`for f in $(ls); do wc -l "$f"; done`, Allow},
		{`for d in a b c; do (cd "$d" && go test ./...); done`, Sandboxed},
		{"for a in " + w + "; do for b in " + w + "; do echo \"$a$b\"; done; done", Allow},
		{`grep -rn TODO src`, Allow},
		{`git grep TODO`, Allow},
		{`git grep --no-index TODO src`, Allow},
		{`find . -name '*.go' | xargs grep -l TODO`, Sandboxed},
		{`find src -type f | xargs wc -l`, Sandboxed},
		{`sed -i 's/foo/bar/' ~/.bashrc`, Sandboxed},
		{`echo 'export PATH=$PATH:~/bin' >> ~/.bashrc`, Sandboxed},
		{`exec 3>out.txt; echo x >&3`, Sandboxed},
	} {
		start := time.Now()
		got := c.Classify(tc.command)
		if d := time.Since(start); d > 50*time.Millisecond {
			t.Errorf("%q: %v to classify", tc.command, d)
		}
		if got.Decision != tc.want {
			t.Errorf("%q: %s (rule %q, command %q), want %s", tc.command, got.Decision, got.Rule, got.Command, tc.want)
		}
	}
}
