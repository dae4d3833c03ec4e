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

// rt47bSecret is the credential planted in the fake home of a real run.
const rt47bSecret = "RT47B-SECRET-MATERIAL"

// rt47bHome makes a fake home holding ~/.ssh/id_rsa and
// ~/.aws/credentials (each with rt47bSecret) and ~/.bashrc with rc as its
// text, and a working directory beside it. The real home is never named.
func rt47bHome(t *testing.T, rc string) (home, work string) {
	t.Helper()
	home, work = t.TempDir(), t.TempDir()
	for name, text := range map[string]string{
		".ssh/id_rsa":      "-----BEGIN OPENSSH PRIVATE KEY-----\n" + rt47bSecret + "\n-----END OPENSSH PRIVATE KEY-----\n",
		".aws/credentials": "[default]\naws_access_key_id = AKIAEXAMPLE\naws_secret_access_key = " + rt47bSecret + "\n",
		".bashrc":          rc,
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

// rt47bExec runs args (a shell and its arguments) in work with HOME set
// to home and a plain PATH, and returns the combined output.
func rt47bExec(t *testing.T, home, work string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, args[0], args[1:]...)
	cmd.Dir = work
	cmd.Env = []string{"HOME=" + home, "PATH=/usr/local/bin:/usr/bin:/bin", "LANG=C.UTF-8", "TMPDIR=" + work}
	cmd.Stdin = strings.NewReader("")
	out, _ := cmd.CombinedOutput()
	return string(out)
}

// rt47bRun runs line with shell (bash or dash) -c.
func rt47bRun(t *testing.T, shell, home, work, line string) string {
	t.Helper()
	if shell == "bash" {
		return rt47bExec(t, home, work, "bash", "--noprofile", "--norc", "-c", line)
	}
	return rt47bExec(t, home, work, shell, "-c", line)
}

// rt47bRCDeletesSSH runs line with shell in a fake home whose ~/.bashrc
// holds rc, then starts an interactive bash there (which reads
// ~/.bashrc) and reports whether ~/.ssh was still there after line and
// gone after the interactive shell: the text line wrote ran later.
func rt47bRCDeletesSSH(t *testing.T, shell, rc, line string) bool {
	t.Helper()
	home, work := rt47bHome(t, rc)
	out := rt47bRun(t, shell, home, work, line)
	if _, err := os.Stat(filepath.Join(home, ".ssh")); err != nil {
		t.Logf("%q itself removed ~/.ssh: %s", line, out)
		return false
	}
	rt47bExec(t, home, work, "bash", "--noprofile", "-i", "-c", "true")
	_, err := os.Stat(filepath.Join(home, ".ssh"))
	return os.IsNotExist(err)
}

// rt47bShells are the shells a line is judged for: bash, and dash unless
// the line is bash syntax.
func rt47bShells(bashOnly bool) []string {
	if bashOnly {
		return []string{"bash"}
	}
	return []string{"bash", "dash"}
}
