package classify

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentbox-dev/agentbox/internal/ptytest"
)

// rt48bSecret is the credential planted in the fake home of a real run.
const rt48bSecret = "RT48B-SECRET-MATERIAL"

// rt48bHome makes a fake home holding ~/.ssh/id_rsa and
// ~/.aws/credentials (each with rt48bSecret) and an empty ~/.bashrc, and
// a working directory beside it holding README. The real home is never
// named.
func rt48bHome(t *testing.T) (home, work string) {
	t.Helper()
	home, work = t.TempDir(), t.TempDir()
	for name, text := range map[string]string{
		".ssh/id_rsa":      "-----BEGIN OPENSSH PRIVATE KEY-----\n" + rt48bSecret + "\n-----END OPENSSH PRIVATE KEY-----\n",
		".aws/credentials": "[default]\naws_secret_access_key = " + rt48bSecret + "\n",
		".bashrc":          "",
	} {
		p := filepath.Join(home, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	// Every premise opens this file (never a system file: a LESSOPEN
	// preprocessor gets the file's name as an argument).
	if err := os.WriteFile(filepath.Join(work, "README"), []byte("readme\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return home, work
}

// rt48bEnv is the whole environment of a real run: HOME is the fake home,
// nothing else of the caller's environment is passed on.
func rt48bEnv(home, work string, extra ...string) []string {
	return append([]string{"HOME=" + home, "PATH=/usr/local/bin:/usr/bin:/bin", "LANG=C.UTF-8", "TMPDIR=" + work, "TERM=xterm"}, extra...)
}

// rt48bRun runs `shell -c line` in work with HOME the fake home and
// stdin as its standard input, and returns the combined output.
func rt48bRun(t *testing.T, shell, home, work, line, stdin string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	args := []string{"-c", line}
	if shell == "bash" {
		args = []string{"--noprofile", "--norc", "-c", line}
	}
	cmd := exec.CommandContext(ctx, shell, args...)
	cmd.Dir = work
	cmd.Env = rt48bEnv(home, work)
	cmd.Stdin = strings.NewReader(stdin)
	out, _ := cmd.CombinedOutput()
	return string(out)
}

// rt48bRunPty runs `bash -c line` in work on a new pseudo-terminal (its
// controlling terminal and standard input, output and error), as an
// agent's terminal or any interactive session is, with HOME the fake
// home. It types keys (a newline and q, as a user leaving a pager does)
// every 300ms and waits up to 30 seconds for bash to exit.
func rt48bRunPty(t *testing.T, home, work, line string, keys string) string {
	t.Helper()
	cmd := exec.Command("bash", "--noprofile", "--norc", "-c", line)
	cmd.Dir = work
	cmd.Env = rt48bEnv(home, work)
	return ptytest.Run(t, cmd, keys, 30*time.Second)
}

// rt48bGone reports whether the fake home's ~/.ssh was removed.
func rt48bGone(home string) bool {
	_, err := os.Stat(filepath.Join(home, ".ssh"))
	return os.IsNotExist(err)
}
