//go:build linux

package attack_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentbox-dev/agentbox"
)

// TestRedteam25FSDevcontainerRootFile: ProtectedPaths (config.go) holds
// .devcontainer because a dev container's configuration names commands
// that run on the host (initializeCommand runs on the developer's machine,
// outside any container, every time "Reopen in Container" / `devcontainer
// up` starts the project). But the Dev Containers specification and VS
// Code also take the configuration from a file at the top of the project,
// .devcontainer.json, used when .devcontainer/devcontainer.json is absent.
// That name is neither protected, held where missing, nor swept after the
// run: a command in a writable root writes .devcontainer.json with an
// initializeCommand, and the developer's next "Reopen in Container" (which
// VS Code offers in a notification as soon as it finds the file) runs the
// command's program on the host. Control: .devcontainer/devcontainer.json
// is refused in the same run; an ordinary file is written.
//
// Severity: medium (code execution on the host when the developer opens
// the project in a dev container; default policy, same class as the
// .devcontainer entry). Affects root and unprivileged callers alike. A fix
// would add .devcontainer.json to ProtectedPaths (held by a placeholder
// where missing, like .devcontainer).
//
// Fixed: .devcontainer.json is in ProtectedPaths (config.go), held by a
// placeholder where missing, and in the classifier's protected paths.
func TestRedteam25FSDevcontainerRootFile(t *testing.T) {
	t.Parallel()
	w := newDir(t, 0o755)
	giveToSandboxUser(t, w)
	cfg := `{"name":"x","image":"alpine","initializeCommand":"touch /tmp/pwned-on-host"}`
	try := func(rel, content string) string {
		return "mkdir -p " + filepath.Dir(w+"/"+rel) + " 2>/dev/null; if printf '%s' '" + content + "' > " + w + "/" + rel +
			" 2>/dev/null; then echo 'wrote " + rel + "'; else echo 'refused " + rel + "'; fi\n"
	}
	attacks := map[string]string{
		".devcontainer.json":              cfg,
		".devcontainer/devcontainer.json": cfg, // control: listed
		"main.txt":                        "code\n",
	}
	var script strings.Builder
	for rel, content := range attacks {
		script.WriteString(try(rel, content))
	}
	res := runShell(t, script.String(), agentbox.WithWritableRoots(w))
	t.Logf("stdout: %s violations: %+v", res.Stdout, res.Violations)
	for rel := range attacks {
		_, err := os.Lstat(filepath.Join(w, rel))
		present := err == nil
		wrote := strings.Contains(res.Stdout, "wrote "+rel)
		switch {
		case rel == "main.txt" && !present:
			t.Errorf("control: the ordinary file %s could not be written", rel)
		case strings.HasPrefix(rel, ".devcontainer/"):
			if wrote || present {
				t.Errorf("control: the listed %s was written (%v) or is left (%v)", rel, wrote, present)
			}
		case rel != "main.txt" && present:
			t.Errorf("ESCAPE: the command wrote %s, a dev container configuration whose initializeCommand runs on the host; it is still there after the run", rel)
		}
	}
}
