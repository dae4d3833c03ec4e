package classify

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// bashRunsPayload checks a red-team test's premise: bash really runs the
// CMD of tmpl (a touch of a marker put in its place). Without bash it
// checks nothing.
func bashRunsPayload(t *testing.T, tmpl string) {
	t.Helper()
	bash, err := exec.LookPath("bash")
	if err != nil {
		return
	}
	mark := filepath.Join(t.TempDir(), "ran")
	cmd := strings.ReplaceAll(tmpl, "CMD", "touch "+mark)
	_ = exec.Command(bash, "-c", cmd).Run()
	if _, err := os.Stat(mark); err != nil {
		t.Errorf("bash did not run the payload of %q (test premise)", cmd)
	}
}
