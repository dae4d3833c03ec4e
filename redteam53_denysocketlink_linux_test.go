//go:build linux

package agentbox_test

import (
	"fmt"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentbox-dev/agentbox"
)

// TestRedteam53DenySocketHardLink: round 50's fix masks the other names
// (hard links) of denied *regular files* only. A socket has an inode and
// hard links like any file, and connect(2) through any of its names
// reaches the listener: an ssh-agent, gpg-agent, a password manager's
// SSH agent, git credential-cache's daemon (which hands out the passwords
// it holds), a container engine's API (root on the host). The default
// deny list names such sockets (.bitwarden-ssh-agent.sock, .rd/docker.sock,
// .cache/git/credential, .1password, .gnupg), and a caller denies its own
// with WithDenyRead.
//
// With unix sockets allowed (Network.AllowUnixSockets, or Landlock ABI 9
// confining them, where they are allowed by default), the README says a
// host service's socket in a readable directory becomes reachable; a
// denied one must not.
//
// The attack: a writable root holds a listening socket (agent.sock; the
// test's HTTP server stands for the agent). Call one, without the deny,
// runs `ln agent.sock .x`. Call two, with WithDenyRead(agent.sock), runs
// `curl --unix-socket .x http://a/` and is answered by the agent: the
// mask on agent.sock's name does not cover .x.
//
// Why it works: sandbox/linux/plan_protect.go: (*planner).mask records a
// denied file in b.deniedLinked only when `fi.Mode().IsRegular() &&
// st.Nlink > 1`, and sandbox/linux/plan_links.go: walkLinked reports
// regular files only (`if !d.Type().IsRegular() { return nil }`), so
// neither a denied socket nor a socket inside a denied directory ever has
// its other names looked for (plan_denylinks.go: maskOtherNames).
//
// Severity: high (a denied endpoint used: the agent signs or hands out
// credentials).
//
// Controls: curl reaches the agent through agent.sock's own name in call
// one (the premise: a real socket, AF_UNIX allowed); in call two it is
// refused through agent.sock (the mask holds there).
//
// Found by red-team round 53.
// Fixed: every file with more than one name counts, sockets and FIFOs too
// (walkLinked, mask).
func TestRedteam53DenySocketHardLink(t *testing.T) {
	root := hostDir(t)
	sock := filepath.Join(root, "agent.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	const secret = "RT53A-AGENT-ANSWER"
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintln(w, secret)
	})}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })

	// Unix sockets allowed (Network.AllowUnixSockets, the documented
	// opt-in; Landlock ABI 9 allows them by itself): a denied socket must
	// still be unreachable.
	cfg := agentbox.CIConfig()
	cfg.Classifier = rt9Sandboxed{}
	cfg.Network.AllowUnixSockets = true
	m := newManager(t, cfg)
	out, errOut, code := rt50aExec(t, m, "curl -s --max-time 5 --unix-socket agent.sock http://a/ && ln agent.sock .x && echo LINKED",
		agentbox.WithWritableRoots(root), agentbox.WithWorkingDir(root))
	if code != 0 || !strings.Contains(out, secret) || !strings.Contains(out, "LINKED") {
		t.Fatalf("premise: call 1 did not reach the agent or link its socket: %d %q %q", code, out, errOut)
	}
	rt53aSameFile(t, sock, filepath.Join(root, ".x"))

	out, errOut, _ = rt50aExec(t, m, "curl -s --max-time 5 --unix-socket agent.sock http://a/ && echo DIRECT; echo ---; curl -s --max-time 5 --unix-socket .x http://a/",
		agentbox.WithWritableRoots(root), agentbox.WithWorkingDir(root), agentbox.WithDenyRead(sock))
	t.Logf("call 2: stdout %q stderr %q", out, errOut)
	direct, viaLink, _ := strings.Cut(out, "---")
	if strings.Contains(direct, secret) || strings.Contains(direct, "DIRECT") {
		t.Fatalf("control: the deny does not hold for agent.sock's own name: %q", out)
	}
	if strings.Contains(viaLink, secret) {
		t.Errorf("the denied socket %s was reached through its other name .x: %q", sock, viaLink)
	}
}
