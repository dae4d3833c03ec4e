package egress

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeRecord is an InjectionRecord in memory, standing for the one that
// processes share; others marks every key recorded by another process.
type fakeRecord struct {
	mu     sync.Mutex
	keys   []string
	others bool
	fail   error
}

func (r *fakeRecord) Record(key string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.fail != nil {
		return r.fail
	}
	r.keys = append(r.keys, key)
	return nil
}

func (r *fakeRecord) Recorded(key string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, k := range r.keys {
		if k == key {
			return true
		}
	}
	return r.others
}

func (r *fakeRecord) recordOthers() {
	r.mu.Lock()
	r.others = true
	r.mu.Unlock()
}

// TestInjectionRecordOtherProcess: a credential's value sent by another
// process's proxy (its Injections.Record says so) is masked in what this
// proxy reads from the bound host: in a response asked after the record
// says so, and in one asked before and answered after (a long poll read
// while the record changes). Before any record, the same echo passes: the
// premise that the mask follows the record, not this proxy's own
// injections alone.
func TestInjectionRecordOtherProcess(t *testing.T) {
	const (
		host  = "rec.test"
		value = "sk-live-RECORD0123456789abcdef"
	)
	rec := &fakeRecord{}
	release := make(chan struct{})
	e, _, _ := rt52aEchoEnv(t, host, "203.0.113.91", value, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/last": // what another process's request left with the upstream
			fmt.Fprintf(w, "last authorization: Bearer %s\n", value)
		case "/wait":
			w.WriteHeader(200)
			_, _ = io.WriteString(w, "waiting\n")
			http.NewResponseController(w).Flush()
			<-release
			fmt.Fprintf(w, "last authorization: Bearer %s\n", value)
		}
	}, func(c *Config) { c.Injections = &Injections{Record: rec} })

	if _, body, _ := doRaw(t, e, host, "/last", nil); !strings.Contains(body, value) {
		t.Fatalf("premise: with nothing recorded the echo should pass as it is: %q", body)
	}

	// A long poll asked before another process records the value.
	tb, bb := e.interceptedConn(t, host+":443")
	defer tb.Close()
	fmt.Fprintf(tb, "GET /wait HTTP/1.1\r\nHost: %s\r\n\r\n", host)
	resp, err := http.ReadResponse(bb, &http.Request{Method: "GET"})
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("long poll: %v %v", resp, err)
	}
	first := make([]byte, len("waiting\n"))
	if _, err := io.ReadFull(resp.Body, first); err != nil {
		t.Fatal(err)
	}

	rec.recordOthers()
	close(release)
	_ = tb.SetReadDeadline(time.Now().Add(10 * time.Second))
	rest, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(rest), value) || !strings.Contains(string(rest), strings.Repeat("*", len(value))) {
		t.Errorf("a response read after another process recorded the value was not masked: %q", rest)
	}
	if _, body, _ := doRaw(t, e, host, "/last", nil); strings.Contains(body, value) || !strings.Contains(body, strings.Repeat("*", len(value))) {
		t.Errorf("a response asked after another process recorded the value was not masked: %q", body)
	}
}

// TestInjectionRecordWritten: a value this proxy injects is recorded
// before it goes; a value whose going cannot be recorded does not go (the
// request is refused, credential-unavailable), since another process's
// command could read its echo unmasked.
func TestInjectionRecordWritten(t *testing.T) {
	for _, fail := range []bool{false, true} {
		t.Run(fmt.Sprintf("fail=%v", fail), func(t *testing.T) {
			const (
				host  = "rec2.test"
				value = "sk-live-RECORD2abcdef0123456789"
			)
			rec := &fakeRecord{}
			if fail {
				rec.fail = errors.New("disk full")
			}
			e, ph, got := rt52aEchoEnv(t, host, "203.0.113.92", value, func(w http.ResponseWriter, r *http.Request) {
				_, _ = io.WriteString(w, "ok\n")
			}, func(c *Config) { c.Injections = &Injections{Record: rec} })
			resp, body, _ := doRaw(t, e, host, "/login", map[string]string{"Authorization": "Bearer " + ph})
			sent := false
			for _, g := range got() {
				sent = sent || strings.Contains(g, value)
			}
			if fail {
				if resp.StatusCode != http.StatusBadGateway || resp.Header.Get("X-Agentbox-Deny") != RuleCredentialError || sent {
					t.Errorf("an injection that could not be recorded: %d %s %q, value sent upstream: %v",
						resp.StatusCode, resp.Header.Get("X-Agentbox-Deny"), body, sent)
				}
				return
			}
			if resp.StatusCode != 200 || !sent {
				t.Fatalf("control: the login failed: %d %q (value sent: %v)", resp.StatusCode, body, sent)
			}
			if len(rec.keys) != 2 || rec.keys[0] != "RT52A_KEY" || rec.keys[1] != "RT52A_KEY@203.0.113.92" {
				t.Errorf("recorded %q, want the one credential that went out and where", rec.keys)
			}
		})
	}
}
