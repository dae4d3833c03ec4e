//go:build linux

package egress_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentbox-dev/agentbox"
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
	u := "https://" + host
	curl := `curl -sS --max-time 20 `
	login := curl + `-H "Authorization: Bearer $API_TOKEN" ` + u + `/rt55c-login`
	last := curl + u + `/rt55c-last`
	run := func(m *agentbox.Manager, script string) *agentbox.ExecResult {
		t.Helper()
		res, err := m.ExecArgs(ctxT(t, 90e9), "/bin/sh", []string{"-c", script}, agentbox.WithApproved())
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	a, b := rt55cStoreManager(t, host), rt55cStoreManager(t, host)

	// B reaches the store (which may still be starting) before any value
	// went out.
	var res *agentbox.ExecResult
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		res = run(b, last)
		if strings.Contains(res.Stdout, "last authorization:") || time.Now().After(deadline) {
			break
		}
	}
	if !strings.Contains(res.Stdout, "last authorization:") {
		t.Fatalf("premise: the store was not reached: exit %d\n%s\n%s", res.ExitCode, res.Stdout, res.Stderr)
	}

	if res = run(a, login); !strings.Contains(res.Stdout, "logged in") {
		t.Fatalf("premise: login: exit %d\n%s\n%s", res.ExitCode, res.Stdout, res.Stderr)
	}
	for name, m := range map[string]*agentbox.Manager{"a Manager made before": b, "a Manager made after": rt55cStoreManager(t, host)} {
		res = run(m, last)
		if !strings.Contains(res.Stdout, "last authorization: Bearer ") {
			t.Fatalf("premise: %s: last: exit %d\n%s\n%s", name, res.ExitCode, res.Stdout, res.Stderr)
		}
		if strings.Contains(res.Stdout, testSecret) || !strings.Contains(res.Stdout, strings.Repeat("*", len(testSecret))) {
			t.Errorf("%s read, from the bound host, the value another Manager's command sent, not masked: %q", name, res.Stdout)
		}
	}
}
