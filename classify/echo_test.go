package classify

import (
	"os"
	"os/exec"
	"testing"
)

// TestEchoEscapes: the model prints what the real echos print, where
// installed (dash's echo; bash's echo -e).
func TestEchoEscapes(t *testing.T) {
	inputs := []string{`a\nb`, `a\040b`, `a\0101b`, `\'x\"`, `a\cb`, `\x41\u00e9`, `\e[1m`, `a\qb`, `tail\`, `\0`, `a\tb\\c`}
	for _, in := range inputs {
		for _, tt := range []struct {
			shell, script string
			dash          bool
		}{{"dash", "echo \"$1\"", true}, {"bash", "echo -e \"$1\"", false}} {
			path, err := exec.LookPath(tt.shell)
			if err != nil {
				continue
			}
			cmd := exec.Command(path, "-c", tt.script, "sh", in)
			// bash prints \u as the character only where the locale can
			// encode it; the model prints UTF-8.
			cmd.Env = append(os.Environ(), "LC_ALL=C.UTF-8")
			want, err := cmd.Output()
			if err != nil {
				t.Fatal(err)
			}
			if got := echoEscapes(in, tt.dash, true); got != string(want) {
				t.Errorf("%s: echo %q: model %q, shell %q", tt.shell, in, got, want)
			}
		}
	}
}
