//go:build linux

package agentbox_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentbox-dev/agentbox"
)

// TestDenyPlaceholderNotSwept runs a command with the home writable under
// the default policy, where ~/.aider.conf.yml is both a denied credential
// store (aider's API keys) and a coding agent's configuration the
// planted-configuration sweep watches. Missing, the deny path is held for
// the run by a placeholder on the host, under the sandbox's mask. The
// attack: the command writes the denied name; it must fail. The sweep
// afterwards must leave agentbox's placeholder alone (renaming it away
// would uncover the path in every other sandbox it masks, and blame the
// command for a file it could not make) while still catching a
// configuration the command did plant (crush.json, the control), and no
// trace of the run stays in the home.
func TestDenyPlaceholderNotSwept(t *testing.T) {
	home := rt46bHome(t)
	aider := filepath.Join(home, ".aider.conf.yml")
	crush := filepath.Join(home, "crush.json")
	m := rt46bManager(t, true)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	script := `echo 'openai-api-key: planted' > "$HOME/.aider.conf.yml" && echo AIDER-WRITTEN; echo '{}' > "$HOME/crush.json" && echo CRUSH-WRITTEN`
	res, err := m.ExecArgs(ctx, "/bin/sh", []string{"-c", script}, agentbox.WithWritableRoots(home), agentbox.WithWorkingDir(home))
	if err != nil {
		t.Fatalf("ExecArgs: %v", err)
	}
	if strings.Contains(res.Stdout, "AIDER-WRITTEN") {
		t.Errorf("ESCAPE: the command wrote the denied ~/.aider.conf.yml: %q", res.Stdout)
	}
	if !strings.Contains(res.Stdout, "CRUSH-WRITTEN") {
		t.Fatalf("control: the command could not write in its writable home: %q %q", res.Stdout, res.Stderr)
	}
	var crushCaught bool
	for _, v := range res.Violations {
		if v.Rule != "planted-agent-config" {
			continue
		}
		if strings.Contains(v.Detail, aider) {
			t.Errorf("the sweep took agentbox's placeholder for the command's: %s", v.Detail)
		}
		crushCaught = crushCaught || v.Path == crush
	}
	if !crushCaught {
		t.Errorf("control: the planted crush.json was not reported: %+v", res.Violations)
	}
	if _, err := os.Lstat(crush); err == nil {
		t.Errorf("control: the planted crush.json is still in place")
	}
	ents, err := os.ReadDir(home)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), ".aider.conf.yml") {
			t.Errorf("the run left %s in the home", e.Name())
		}
	}
}
