package classify

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Helpers of red-team round 52, helper b. Every real run gets a fake home
// (t.TempDir) holding ~/.ssh/id_rsa and a working directory beside it; the
// real home is never named: the environment of a run is built here whole,
// HOME included, and the caller's extra variables appended.

// rt52bHome makes the fake home (with ~/.ssh/id_rsa) and the working
// directory.
func rt52bHome(t *testing.T) (home, work string) {
	t.Helper()
	home, work = t.TempDir(), t.TempDir()
	if err := os.MkdirAll(filepath.Join(home, ".ssh"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, ".ssh", "id_rsa"), []byte("RT52B-KEY\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return home, work
}

// rt52bRun runs `bash -c line` in dir with the fake home and returns the
// combined output. extra may set PATH (it then replaces the default one).
func rt52bRun(t *testing.T, home, dir, line string, extra ...string) string {
	t.Helper()
	if !strings.HasPrefix(home, os.TempDir()) || !strings.HasPrefix(dir, os.TempDir()) {
		t.Fatalf("refusing to run with home %q or dir %q outside %s", home, dir, os.TempDir())
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "--noprofile", "--norc", "-c", line)
	cmd.Dir = dir
	env := []string{"HOME=" + home, "LANG=C.UTF-8", "TERM=dumb", "TMPDIR=" + dir, "TMUX_TMPDIR=" + dir,
		"GIT_CONFIG_NOSYSTEM=1", "XDG_CONFIG_HOME=" + filepath.Join(home, ".config")}
	path := "PATH=/usr/local/bin:/usr/bin:/bin"
	for _, e := range extra {
		if strings.HasPrefix(e, "PATH=") {
			path = e
			continue
		}
		env = append(env, e)
	}
	cmd.Env = append(env, path)
	cmd.Stdin = strings.NewReader("")
	out, _ := cmd.CombinedOutput()
	return string(out)
}

// rt52bGone reports whether the fake home's ~/.ssh was removed.
func rt52bGone(home string) bool {
	_, err := os.Stat(filepath.Join(home, ".ssh"))
	return os.IsNotExist(err)
}
