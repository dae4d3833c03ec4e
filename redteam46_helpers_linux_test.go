//go:build linux

package agentbox_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentbox-dev/agentbox"
)

// Helpers of red-team round 46 (helper b): secrets the default deny list
// misses. Each test makes a home of its own under /var/tmp (the sandbox's
// /tmp is private), points HOME at it before DefaultConfig() computes the
// deny list, plants credential files with a marker, and has a sandbox of
// DefaultConfig cat them. Controls in the same run: an ordinary file of the
// home is read, and a store the deny list names (~/.aws/credentials) is
// refused.

// rt46bSecret is a credential file planted in the test's home.
type rt46bSecret struct {
	Rel  string // relative to the home, with slashes
	Body string // content; "%s" is replaced by the marker
	Why  string // what the file holds, for the failure message
}

const (
	rt46bProfile   = "# ordinary profile\nexport RT46B_PROFILE=readable-control\n"
	rt46bDeniedRel = ".aws/credentials"
)

// rt46bHome makes the test's home and sets HOME (and unsets the XDG
// variables, so the host's do not move anything). It plants the two
// controls: ~/.profile (ordinary) and ~/.aws/credentials (denied).
func rt46bHome(t *testing.T) string {
	t.Helper()
	base, err := os.MkdirTemp("/var/tmp", "rt46b-home-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	if err := os.Chmod(base, 0o755); err != nil {
		t.Fatal(err)
	}
	home := filepath.Join(base, "home")
	if err := os.Mkdir(home, 0o750); err != nil {
		t.Fatal(err)
	}
	t.Setenv("HOME", home)
	for _, v := range []string{"XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME",
		"CARGO_HOME", "GNUPGHOME", "KUBECONFIG", "DOCKER_CONFIG", "AWS_SHARED_CREDENTIALS_FILE"} {
		t.Setenv(v, "")
		os.Unsetenv(v)
	}
	rt46bWrite(t, home, ".profile", rt46bProfile)
	rt46bWrite(t, home, rt46bDeniedRel, "[default]\naws_secret_access_key = RT46B-DENIED-CONTROL\n")
	return home
}

// rt46bWrite writes home/rel (0600, parents 0700), as the tools do.
func rt46bWrite(t *testing.T, home, rel, content string) string {
	t.Helper()
	p := filepath.Join(home, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// rt46bMarker is a fresh marker for one secret.
func rt46bMarker(i int) string {
	return fmt.Sprintf("RT46BSECRET%02dX%d", i, time.Now().UnixNano()%1e9)
}

// rt46bManager is a Manager of DefaultConfig (computed after HOME was
// set), with the built-in classifier unless sandboxAll.
func rt46bManager(t *testing.T, sandboxAll bool) *agentbox.Manager {
	t.Helper()
	cfg := agentbox.DefaultConfig()
	if sandboxAll {
		cfg.Classifier = rt9Sandboxed{}
	}
	return newManager(t, cfg)
}

// rt46bCatAll cats every path in one sandbox and returns what each gave.
func rt46bCatAll(t *testing.T, m *agentbox.Manager, paths []string) map[string]string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	script := `for f in "$@"; do printf '\n@@RT46B %s\n' "$f"; cat -- "$f" 2>&1; done; printf '\n@@RT46B END\n'`
	res, err := m.ExecArgs(ctx, "/bin/sh", append([]string{"-c", script, "sh"}, paths...), agentbox.WithWorkingDir(hostDir(t)))
	if err != nil {
		t.Fatalf("ExecArgs: %v", err)
	}
	out := res.Stdout + res.Stderr
	got := make(map[string]string, len(paths))
	for _, sec := range strings.Split(out, "\n@@RT46B ")[1:] {
		name, body, _ := strings.Cut(sec, "\n")
		got[name] = body
	}
	if _, ok := got["END"]; !ok {
		t.Fatalf("the sandboxed script did not finish: %q", out)
	}
	return got
}

// rt46bProbe plants secrets in home, checks the controls, and reports
// every secret the sandbox reads. With the built-in classifier it also
// runs a plain `cat FILE` of each leaked file (what an agent would run),
// to show that the classifier does not stop it either. It returns the
// leaked files.
func rt46bProbe(t *testing.T, home string, secrets []rt46bSecret) []string {
	t.Helper()
	markers := make(map[string]string, len(secrets))
	var paths []string
	for i, s := range secrets {
		mk := rt46bMarker(i)
		p := rt46bWrite(t, home, s.Rel, strings.ReplaceAll(s.Body, "%s", mk))
		markers[p] = mk
		paths = append(paths, p)
	}
	profile := filepath.Join(home, ".profile")
	denied := filepath.Join(home, filepath.FromSlash(rt46bDeniedRel))
	m := rt46bManager(t, true)
	got := rt46bCatAll(t, m, append([]string{profile, denied}, paths...))
	if !strings.Contains(got[profile], "readable-control") {
		t.Fatalf("control: an ordinary file of the home was not read: %q", got[profile])
	}
	if strings.Contains(got[denied], "RT46B-DENIED-CONTROL") || !strings.Contains(got[denied], "Permission denied") {
		t.Fatalf("control: the denied ~/%s was not refused: %q", rt46bDeniedRel, got[denied])
	}
	var leaked []string
	for i, s := range secrets {
		p := paths[i]
		if strings.Contains(got[p], markers[p]) {
			leaked = append(leaked, p)
			t.Errorf("LEAK: a sandboxed command under DefaultConfig reads ~/%s (%s): %q", s.Rel, s.Why, strings.TrimSpace(got[p]))
		} else {
			t.Logf("held: ~/%s: %q", s.Rel, strings.TrimSpace(got[p]))
		}
	}
	// The same reads through the built-in classifier, one plain cat each.
	if len(leaked) > 0 {
		mc := rt46bManager(t, false)
		for _, p := range leaked {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			res, err := mc.ExecArgs(ctx, "cat", []string{p}, agentbox.WithWorkingDir(hostDir(t)))
			cancel()
			var esc *agentbox.EscalatedCommandError
			switch {
			case errors.As(err, &esc):
				t.Logf("the built-in classifier escalates cat %s (%s)", p, esc.Rule)
			case err != nil:
				t.Logf("cat %s with the built-in classifier: %v", p, err)
			case strings.Contains(res.Stdout, markers[p]):
				t.Logf("also read by a plain `cat %s` with the built-in classifier", p)
			}
		}
	}
	return leaked
}

// rt46bHostRun runs a real program on the host (the premise: where the
// tool keeps its secret) and returns its combined output.
func rt46bHostRun(t *testing.T, env []string, stdin string, name string, args ...string) string {
	t.Helper()
	if _, err := exec.LookPath(name); err != nil {
		t.Skipf("%s not installed: the premise cannot be checked", name)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdin = strings.NewReader(stdin)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Logf("%s %v: %v", name, args, err)
	}
	return string(out)
}
