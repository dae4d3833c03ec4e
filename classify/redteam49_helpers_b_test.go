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

// Helpers of red-team round 49, helper b. Every real run gets a fake home
// (t.TempDir) holding ~/.ssh/id_rsa, ~/.pypirc, ~/.netrc and ~/.git-credentials, each with
// rt49bSecret, and a working directory beside it; the real home is never
// named.

const rt49bSecret = "RT49B-SECRET-MATERIAL"

// rt49bHome makes the fake home and the working directory.
func rt49bHome(t *testing.T) (home, work string) {
	t.Helper()
	home, work = t.TempDir(), t.TempDir()
	for name, text := range map[string]string{
		".ssh/id_rsa":      "-----BEGIN OPENSSH PRIVATE KEY-----\n" + rt49bSecret + "\n-----END OPENSSH PRIVATE KEY-----\n",
		".pypirc":          "[pypi]\nusername = __token__\npassword = pypi-" + rt49bSecret + "\n",
		".netrc":           "machine example.com login me password " + rt49bSecret + "\n",
		".git-credentials": "https://me:" + rt49bSecret + "@example.com\n",
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

// rt49bEnv is the whole environment of a real run.
func rt49bEnv(home, work string) []string {
	return []string{"HOME=" + home, "PATH=/usr/local/bin:/usr/bin:/bin", "LANG=C.UTF-8", "TMPDIR=" + work,
		"GIT_CONFIG_NOSYSTEM=1", "GIT_AUTHOR_NAME=a", "GIT_AUTHOR_EMAIL=a@example.com",
		"GIT_COMMITTER_NAME=a", "GIT_COMMITTER_EMAIL=a@example.com"}
}

// rt49bRun runs `shell -c line` in dir with the fake home, no standard
// input, and returns the combined output.
func rt49bRun(t *testing.T, shell, home, dir, line string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	args := []string{"-c", line}
	if shell == "bash" {
		args = []string{"--noprofile", "--norc", "-c", line}
	}
	cmd := exec.CommandContext(ctx, shell, args...)
	cmd.Dir = dir
	cmd.Env = rt49bEnv(home, dir)
	out, _ := cmd.CombinedOutput()
	return string(out)
}

// rt49bGitRepo makes dir a git repository with one committed file f.
func rt49bGitRepo(t *testing.T, home, dir string) {
	t.Helper()
	if out := rt49bRun(t, "bash", home, dir, "git init -q . && echo x > f && git add f && git commit -qm init"); out != "" {
		t.Logf("git setup: %s", out)
	}
}

// rt49bSSHGone reports whether the fake home's ~/.ssh was removed.
func rt49bSSHGone(home string) bool {
	_, err := os.Stat(filepath.Join(home, ".ssh"))
	return os.IsNotExist(err)
}

// rt49bLeaks reports whether out shows the planted secret.
func rt49bLeaks(out string) bool { return strings.Contains(out, rt49bSecret) }
