//go:build linux

package egress_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// TestNetStoredEchoOtherProcess: the memory of injected credentials
// (TestNetRedteam55StoredEchoNextCommand's fix) is shared beyond one
// Manager, through the state directory: separate agentbox processes, such
// as two `agentbox exec` calls, have a Manager each, and the second must
// mask what the first one's command sent to an upstream that keeps a
// request's headers. Here two Managers stand for the two processes: they
// share nothing but the state directory. Manager A's command logs in with
// the placeholder (the value goes out and the upstream keeps it); Manager
// B's command, and one of a Manager made after, ask the upstream what it
// kept: the answer is masked. The control: A's login reaches the upstream
// with the real value, and B reaches the store.
func TestNetStoredEchoOtherProcess(t *testing.T) {
	inNetns(t)
	t.Setenv("SSL_CERT_FILE", filepath.Join(workDir, caFileName))
	t.Setenv("AGENTBOX_STATE_DIR", t.TempDir())
	host := fmt.Sprintf("allowed.test:%d", rt55cStorePort)
	a := newStoreSession(t, host, "/rt55c", boundToken(host))
	b := newStoreSession(t, host, "/rt55c", boundToken(host))

	if res := a.run(a.login); !strings.Contains(res.Stdout, "logged in") {
		t.Fatalf("premise: login: exit %d\n%s\n%s", res.ExitCode, res.Stdout, res.Stderr)
	}
	for name, s := range map[string]*storeSession{"a Manager made before": b, "a Manager made after": newStoreSession(t, host, "/rt55c", boundToken(host))} {
		res := s.run(s.last)
		if !strings.Contains(res.Stdout, "last authorization: Bearer ") {
			t.Fatalf("premise: %s: last: exit %d\n%s\n%s", name, res.ExitCode, res.Stdout, res.Stderr)
		}
		if strings.Contains(res.Stdout, testSecret) || !strings.Contains(res.Stdout, strings.Repeat("*", len(testSecret))) {
			t.Errorf("%s read, from the bound host, the value another Manager's command sent, not masked: %q", name, res.Stdout)
		}
	}
}
