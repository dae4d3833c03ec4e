package egress

import (
	"fmt"
	"strings"
	"testing"
)

// TestRedteam27TrimmedEchoUnmasked: a credential's value that begins or
// ends with a space or tab (a token pasted with a stray blank:
// `agentbox vault add` removes only one trailing newline) is injected as
// it is, OWS and all. Every HTTP parser drops leading and trailing OWS from
// a field value (RFC 9110 §5.5), so the bound host authenticates with the
// token as meant (the user never notices the blank) and any echo of the
// header (an echo service, a debug endpoint, an error page quoting the
// header, CORS-style reflection) repeats the value without the blank. The
// echo mask looks only for the value byte for byte, blank included, so
// the whole token reaches the sandbox in the clear, and no
// credential-leak decision is logged.
//
// This is not the documented "transformed echo" limit: the upstream
// repeats exactly the field value it received; the transformation is the
// HTTP framing's own, and the proxy is the one that put the blank on the
// wire.
//
// Severity: medium (full disclosure of the secret to the agent, given a
// value with a leading/trailing blank and a bound host that reflects the
// header).
//
// A fix: trim leading/trailing SP/HTAB from a value before injecting it
// into a header (what the upstream sees anyway), or mask the trimmed form
// as well; and/or refuse such values at `vault add`.
//
// Fixed: headBuilder.secret injects SentForm, the value without SP/HTAB at
// its ends (only blanks: the credential is refused), and headBuilder.remember
// masks that form and the stored one (TestBuildHeadTrimsStoredBlanks).
func TestRedteam27TrimmedEchoUnmasked(t *testing.T) {
	for _, tc := range []struct {
		name, stored string
		attack       bool
	}{
		{"control: plain value", apiValue, false},
		{"trailing space", apiValue + " ", true},
		{"leading space", " " + apiValue, true},
		{"trailing tab", apiValue + "\t", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			stored := tc.stored
			e2 := newCredEnv(t, func(c *Config) {
				for i := range c.Credentials {
					if c.Credentials[i].Name == "API_KEY" {
						v := stored
						c.Credentials[i].Value = (&credEnv{}).value(v)
					}
				}
			})
			resp, body := do(t, e2.client("http"), "GET", "https://api.test/echo", map[string]string{"Authorization": e2.ph["API_KEY"]}, nil)
			if resp.StatusCode != 200 {
				t.Fatalf("status %d: %s", resp.StatusCode, body)
			}
			// The upstream got the token (as it reads it: trimmed).
			seen := e2.up["api.test"].all()
			if len(seen) == 0 || strings.TrimSpace(seen[len(seen)-1].Header.Get("Authorization")) != apiValue {
				t.Fatalf("the upstream did not get the value: %+v", seen)
			}
			var out strings.Builder
			fmt.Fprintf(&out, "%s\n", body)
			for k, vs := range resp.Header {
				fmt.Fprintf(&out, "%s: %s\n", k, strings.Join(vs, ","))
			}
			for k, vs := range resp.Trailer {
				fmt.Fprintf(&out, "%s: %s\n", k, strings.Join(vs, ","))
			}
			got := out.String()
			if i := strings.Index(got, apiValue); i >= 0 {
				t.Errorf("stored %q: the value reached the client unmasked: %q", stored, got[max(0, i-40):min(len(got), i+len(apiValue)+10)])
			}
			if !strings.Contains(got, "Authorization: "+strings.Repeat("*", 4)) && !tc.attack {
				t.Errorf("control: no masked echo seen")
			}
		})
	}
}
