package classify

import (
	"context"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// rt46aSecret is the credential planted in the fake home of a real run.
const rt46aSecret = "RT46A-SECRET-MATERIAL"

// rt46aHome makes a fake home holding ~/.ssh/id_rsa,
// ~/.aws/credentials and ~/.config/gh/hosts.yml (each with rt46aSecret)
// and a one-line ~/.bashrc, and a working directory beside it. The real
// user's home is never named.
func rt46aHome(t *testing.T) (home, work string) {
	t.Helper()
	home, work = t.TempDir(), t.TempDir()
	files := map[string]string{
		".ssh/id_rsa":          "-----BEGIN OPENSSH PRIVATE KEY-----\n" + rt46aSecret + "\n-----END OPENSSH PRIVATE KEY-----\n",
		".aws/credentials":     "[default]\naws_access_key_id = AKIAEXAMPLE\naws_secret_access_key = " + rt46aSecret + "\n",
		".config/gh/hosts.yml": "github.com:\n    oauth_token: " + rt46aSecret + "\n",
		".bashrc":              "# rc\n",
	}
	for name, text := range files {
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

// rt46aExec runs command with shell (bash or dash) -c in work, HOME set
// to home, a plain PATH (the system's interpreters, not a user's shims),
// and extra env; it returns the combined output.
func rt46aExec(t *testing.T, shell, home, work, command string, env ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	args := []string{"-c", command}
	if shell == "bash" {
		args = []string{"--noprofile", "--norc", "-c", command}
	}
	cmd := exec.CommandContext(ctx, shell, args...)
	cmd.Dir = work
	cmd.Env = append([]string{"HOME=" + home, "PATH=/usr/local/bin:/usr/bin:/bin", "LANG=C.UTF-8", "TMPDIR=" + work}, env...)
	cmd.Stdin = strings.NewReader("")
	out, _ := cmd.CombinedOutput()
	return string(out)
}

// rt46aSSHGoneAfterRC starts an interactive bash in home (which reads
// ~/.bashrc) and reports whether ~/.ssh is gone afterwards.
func rt46aSSHGoneAfterRC(t *testing.T, home, work string) bool {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "--noprofile", "-i", "-c", "true")
	cmd.Dir = work
	cmd.Env = []string{"HOME=" + home, "PATH=/usr/local/bin:/usr/bin:/bin", "LANG=C"}
	cmd.Stdin = strings.NewReader("")
	_, _ = cmd.CombinedOutput()
	_, err := os.Stat(filepath.Join(home, ".ssh"))
	return os.IsNotExist(err)
}

// rt46aNeed skips the real run (not the classification) when a program
// is missing, logging it.
func rt46aHave(t *testing.T, progs ...string) bool {
	t.Helper()
	for _, p := range progs {
		if _, err := exec.LookPath(p); err != nil {
			t.Logf("%s not installed: premise not run", p)
			return false
		}
	}
	return true
}

// rt46aAtLeast requires ClassifyShell for bash and for dash to judge line
// at least want.
func rt46aAtLeast(t *testing.T, line string, want Decision) {
	t.Helper()
	for _, sh := range []string{"bash", "dash"} {
		if r := Default().ClassifyShell(sh, line); r.Decision < want {
			t.Errorf("ClassifyShell(%s, %q) = %s (rule %q, command %q), want at least %s", sh, line, r.Decision, r.Rule, r.Command, want)
		}
	}
}

// rt46aServer is a TCP server on loopback that records the bytes of
// every connection (an HTTP request, however malformed its headers) and
// answers each with an empty HTTP response.
type rt46aServer struct {
	url string
	mu  sync.Mutex
	got strings.Builder
}

func rt46aListen(t *testing.T) *rt46aServer {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &rt46aServer{url: "http://" + l.Addr().String() + "/"}
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				buf := make([]byte, 64<<10)
				var got []byte
				for {
					c.SetReadDeadline(time.Now().Add(300 * time.Millisecond))
					n, err := c.Read(buf)
					got = append(got, buf[:n]...)
					if err != nil {
						break
					}
				}
				s.mu.Lock()
				s.got.Write(got)
				s.mu.Unlock()
				io.WriteString(c, "HTTP/1.0 200 OK\r\nContent-Length: 0\r\n\r\n")
			}()
		}
	}()
	t.Cleanup(func() { l.Close() })
	return s
}

// received reports whether the server got rt46aSecret, and forgets what
// it got.
func (s *rt46aServer) received() (bool, string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	g := s.got.String()
	s.got.Reset()
	return strings.Contains(g, rt46aSecret), g
}

// rt46aRCPremise runs line in bash (where prog is installed) against a
// temporary HOME and requires the next interactive bash to remove its
// ~/.ssh: the line put rm -rf ~/.ssh into ~/.bashrc.
func rt46aRCPremise(t *testing.T, prog, line string) {
	t.Helper()
	if !rt46aHave(t, prog, "bash") {
		return
	}
	home, work := rt46aHome(t)
	out := rt46aExec(t, "bash", home, work, line)
	if !rt46aSSHGoneAfterRC(t, home, work) {
		t.Fatalf("premise: after %q the next interactive bash did not remove ~/.ssh (output %q)", line, out)
	}
}
