package egress

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
)

// TestRedteam56LateMalformedAnswerQuotesEcho: round 55 made a response
// on a connection to a bound host masked from the moment a value went out
// on another connection (a long poll, relay.exchange's late recall). A
// response the proxy cannot parse is refused with the parser's error,
// which quotes the offending line; the relay withholds that text "if
// mask.active()" (TestEchoInUnreadableResponseMasked). That test is a
// snapshot of the mask as it was when the request was written: the late
// recall runs only once a response parsed. A long poll asked before the
// value went out and answered, after it went out, with an unparseable
// head that repeats the stored value is refused with the value quoted.
//
// Attack: tunnel B: GET /wait (no placeholder), held by the upstream;
// tunnel A: GET /login with "Authorization: Bearer PLACEHOLDER" (the value
// is injected and stored); the upstream answers B with a status line
// repeating what it stored; the proxy's 502 on B quotes it.
//
// Why it works: egress/relay.go:(*relay).exchange: on a readResponse
// error, `if mask.active()` decides whether the upstream's text is
// withheld; r.recall(mask) is called only `if err == nil`, and the check
// is not mask.readable() (r.sent.watch: a value may go out at any time).
//
// Severity: high (the credential's plaintext reaches the sandbox), in the
// threat model of TestEchoInUnreadableResponseMasked and
// TestRedteam55LongPollOpenedBeforeInjection. The same malformed answer
// asked after the injection is withheld (the control).
//
// Found by red-team round 56. Fixed: egress/relay.go (a malformed answer's text is withheld where the
// mask is readable, not only active).
func TestRedteam56LateMalformedAnswerQuotesEcho(t *testing.T) {
	const (
		host  = "rt56b-lateerr.test"
		value = "sk-live-56LATEERR0123456789abcdef"
	)
	e, a := rt55cLongPoll(t, host, "203.0.113.162", value, func(w http.ResponseWriter, v string) {
		conn, brw, err := http.NewResponseController(w).Hijack()
		if err != nil {
			return
		}
		defer conn.Close()
		fmt.Fprintf(brw, "HTTP/1.1 %s\r\n\r\n", strings.ReplaceAll(v, " ", "-"))
		_ = brw.Flush()
	})
	if a.err != nil || a.status != http.StatusBadGateway {
		t.Fatalf("premise: the malformed answer was not refused: %d %v %q", a.status, a.err, a.body)
	}

	// Control: the same malformed answer to a request asked after the
	// injection is refused with its text withheld.
	if resp, body, _ := doRaw(t, e, host, "/wait", nil); resp.StatusCode != http.StatusBadGateway || strings.Contains(body, value) || !strings.Contains(body, "withheld") {
		t.Fatalf("control: asked after the injection: %d %q", resp.StatusCode, body)
	}

	if strings.Contains(a.body, value) {
		t.Errorf("the sandbox read the credential's value in the refusal of a long poll's malformed answer: %q", a.body)
	}
}
