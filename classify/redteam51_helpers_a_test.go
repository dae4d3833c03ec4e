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

// Helpers of red-team round 51, helper a. Every real run gets a fake home
// (t.TempDir) holding ~/.ssh/id_rsa and ~/.aws/credentials, each with
// rt51aSecret, and a working directory beside it; the real home is never
// named: the environment of a run is built here whole, HOME included.

const rt51aSecret = "RT51A-SECRET-MATERIAL"

// rt51aHome makes the fake home and the working directory.
func rt51aHome(t *testing.T) (home, work string) {
	t.Helper()
	home, work = t.TempDir(), t.TempDir()
	for name, text := range map[string]string{
		".ssh/id_rsa":      "-----BEGIN OPENSSH PRIVATE KEY-----\n" + rt51aSecret + "\n-----END OPENSSH PRIVATE KEY-----\n",
		".aws/credentials": "[default]\naws_secret_access_key = " + rt51aSecret + "\n",
	} {
		p := filepath.Join(home, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return home, work
}

// rt51aEnv is the whole environment of a real run, plus extra.
func rt51aEnv(home, work string, extra ...string) []string {
	return append([]string{"HOME=" + home, "PATH=/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin", "LANG=C.UTF-8",
		"TMPDIR=" + work, "GIT_CONFIG_NOSYSTEM=1"}, extra...)
}

// rt51aRun runs `bash -c line` in dir with the fake home (and extra
// variables), standard input from stdin, and returns the combined output.
func rt51aRun(t *testing.T, home, dir, line, stdin string, extra ...string) string {
	t.Helper()
	if !strings.HasPrefix(home, os.TempDir()) {
		t.Fatalf("refusing to run with home %q outside %s", home, os.TempDir())
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "--noprofile", "--norc", "-c", line)
	cmd.Dir = dir
	cmd.Env = rt51aEnv(home, dir, extra...)
	cmd.Stdin = strings.NewReader(stdin)
	out, _ := cmd.CombinedOutput()
	return string(out)
}

// rt51aGone reports whether the fake home's ~/.ssh was removed.
func rt51aGone(home string) bool {
	_, err := os.Stat(filepath.Join(home, ".ssh"))
	return os.IsNotExist(err)
}

// rt51aLeaks reports whether out (or the file it names, when it is a
// path) shows the planted secret.
func rt51aLeaks(out string) bool { return strings.Contains(out, rt51aSecret) }
