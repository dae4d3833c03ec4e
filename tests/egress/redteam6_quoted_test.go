//go:build linux

package egress_test

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/agentbox-dev/agentbox/vault"
)

// rt6QuotedSecret is a value with the characters Go's %q escapes: a
// password can hold a quote or a backslash, and a value may hold a tab or
// bytes beyond ASCII (any header value byte but control characters).
const rt6QuotedSecret = `pa"ss\word-7c1e0d5b`

type rt6Provider struct{ value string }

func (p rt6Provider) Credential(_ context.Context, name string) (vault.Secret, error) {
	if name != "API_TOKEN" {
		return vault.Secret{}, vault.ErrNotFound
	}
	return vault.NewSecret([]byte(p.value)), nil
}

// TestNetRedteam6QuotedError: the response to a request that carried the
// value cannot be parsed, and net/http's error quotes the offending line
// with %q. The relay used to mask the error text, but the mask looks for
// the value byte for byte, and %q had escaped its quote and backslash: the
// 502 the sandbox got held the value, escaped, which the agent unescapes.
// The upstream's text is now withheld from the 502 when the request
// carried a value (the control: the refusal still says what failed).
func TestNetRedteam6QuotedError(t *testing.T) {
	inNetns(t)
	for _, value := range []string{testSecret, rt6QuotedSecret} {
		run, _ := rt6ReflectingWith(t, rt6Provider{value})
		out := run("/rt6-badheader")
		if !strings.Contains(out, "reading the upstream response failed") {
			t.Errorf("%q: control: the malformed response was not refused", value)
		}
		quoted := strconv.Quote(value)
		quoted = quoted[1 : len(quoted)-1]
		if strings.Contains(out, value) || strings.Contains(out, quoted) {
			t.Errorf("ESCAPE: %q: the real value (as %q) reached the sandbox in the proxy's 502 for a response it could not parse", value, quoted)
		}
		if !strings.Contains(out, "the upstream's text is withheld") {
			t.Errorf("%q: the 502 does not say that the upstream's text is withheld: %q", value, out)
		}
	}
}
