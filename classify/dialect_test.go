package classify

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// The line bash reads as one echo and dash as an echo and rm -rf ~.
const dialectSplit = `echo $'x\' ; rm -rf ~ #\''`

// TestDialectSplit: a line that bash and a POSIX shell split into
// different commands is judged as the shell that runs it reads it, and a
// shell of unknown dialect both ways. dash and bash, where installed, are
// run on the same text with a harmless command in rm's place, to show
// the split is theirs.
func TestDialectSplit(t *testing.T) {
	c := Default()
	tests := []struct {
		shell string
		want  Decision
	}{
		{"/bin/bash", Allow},
		{"bash", Allow},
		{"/usr/bin/dash", Forbidden},
		{"ash", Forbidden},
		{"zsh", Forbidden},        // read both ways
		{"/opt/x/ksh", Forbidden}, // read both ways
	}
	for _, tt := range tests {
		if got := c.ClassifyShell(tt.shell, dialectSplit); got.Decision != tt.want {
			t.Errorf("ClassifyShell(%s): %v (%s), want %v", tt.shell, got.Decision, got.Rule, tt.want)
		}
	}
	if got := c.Classify(dialectSplit); got.Decision != Allow {
		t.Errorf("Classify (bash): %v, want allow", got.Decision)
	}
	// Nested: the shell named on the line reads its -c string.
	for cmd, forbidden := range map[string]bool{
		`bash -c "echo \$'x\\' ; rm -rf ~ #\\''"`: false,
		`dash -c "echo \$'x\\' ; rm -rf ~ #\\''"`: true,
		`zsh -c "echo \$'x\\' ; rm -rf ~ #\\''"`:  true,
	} {
		if got := c.Classify(cmd); (got.Decision == Forbidden) != forbidden {
			t.Errorf("Classify(%s): %v (%s), forbidden %v", cmd, got.Decision, got.Rule, !forbidden)
		}
	}
	// The shells themselves, with echo in rm's place.
	marker := `echo $'x\' ; echo SPLIT #\''`
	for shell, want := range map[string]string{"dash": "$x\\\nSPLIT\n", "bash": "x' ; echo SPLIT #'\n"} {
		path, err := exec.LookPath(shell)
		if err != nil {
			continue
		}
		out, _ := exec.Command(path, "-c", marker).Output()
		if string(out) != want {
			t.Errorf("%s -c: %q, want %q", shell, out, want)
		}
	}
}

// TestShellViews: sh is read as what it links to.
func TestShellViews(t *testing.T) {
	dir := t.TempDir()
	for name, target := range map[string]string{"tobash": "/usr/bin/bash", "todash": "/usr/bin/dash", "toother": "/usr/bin/true"} {
		if _, err := os.Stat(target); err != nil {
			t.Skipf("%s: %v", target, err)
		}
		if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
		if err := os.Mkdir(filepath.Join(dir, name+"d"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(filepath.Join(dir, name), filepath.Join(dir, name+"d", "sh")); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		prog string
		want int // views
	}{
		{filepath.Join(dir, "tobashd", "sh"), 1},
		{filepath.Join(dir, "todashd", "sh"), 2},
		{filepath.Join(dir, "tootherd", "sh"), 2},
		{filepath.Join(dir, "missing", "sh"), 2},
		{"bash", 1},
		{"fish", 2},
	}
	for _, tt := range tests {
		if got := shellViews(tt.prog); len(got) != tt.want {
			t.Errorf("shellViews(%s): %v, want %d views", tt.prog, got, tt.want)
		}
	}
}
