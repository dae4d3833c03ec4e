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

// Helpers of red-team round 55, helper a. Every real run gets a fake home
// (t.TempDir) holding ~/.ssh/id_rsa and a working directory beside it; the
// real home is never named: the environment of a run is built here whole,
// HOME included, and the caller's extra variables appended.

// rt55aSecret is the text of the fake private key.
const rt55aSecret = "RT55A-PRIVATE-KEY"

// rt55aHome makes the fake home (with ~/.ssh/id_rsa) and the working
// directory.
func rt55aHome(t *testing.T) (home, work string) {
	t.Helper()
	home, work = t.TempDir(), t.TempDir()
	if err := os.MkdirAll(filepath.Join(home, ".ssh"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, ".ssh", "id_rsa"), []byte(rt55aSecret+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return home, work
}

// rt55aEnv is the whole environment of a run: the fake home, the working
// directory as TMPDIR, a fixed PATH, and extra appended (a PATH in extra
// replaces the default one).
func rt55aEnv(home, work string, extra ...string) []string {
	env := []string{"HOME=" + home, "LANG=C.UTF-8", "TERM=dumb", "TMPDIR=" + work,
		"GIT_CONFIG_NOSYSTEM=1", "XDG_CONFIG_HOME=" + filepath.Join(home, ".config"),
		"XDG_CACHE_HOME=" + filepath.Join(home, ".cache"), "XDG_DATA_HOME=" + filepath.Join(home, ".local", "share")}
	path := "PATH=/usr/local/bin:/usr/bin:/bin"
	for _, e := range extra {
		if strings.HasPrefix(e, "PATH=") {
			path = e
			continue
		}
		env = append(env, e)
	}
	return append(env, path)
}

// rt55aRun runs `bash -c line` in dir with the fake home and returns the
// combined output.
func rt55aRun(t *testing.T, home, dir, line string, extra ...string) string {
	t.Helper()
	if !strings.HasPrefix(home, os.TempDir()) || !strings.HasPrefix(dir, os.TempDir()) {
		t.Fatalf("refusing to run with home %q or dir %q outside %s", home, dir, os.TempDir())
	}
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "--noprofile", "--norc", "-c", line)
	cmd.Dir = dir
	cmd.Env = rt55aEnv(home, dir, extra...)
	cmd.Stdin = strings.NewReader("")
	out, _ := cmd.CombinedOutput()
	return string(out)
}

// rt55aGone reports whether the fake home's ~/.ssh was removed.
func rt55aGone(home string) bool {
	_, err := os.Stat(filepath.Join(home, ".ssh"))
	return os.IsNotExist(err)
}
