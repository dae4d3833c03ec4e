package policy

import (
	"strings"
	"testing"
)

func TestCredentialHosts(t *testing.T) {
	cases := []struct {
		name, allowed, want string
		byName              bool
	}{
		// The seed's example: each credential to its own vendor only.
		{"ANTHROPIC_API_KEY", "api.anthropic.com *.googleapis.com", "api.anthropic.com", true},
		{"GMAIL_TOKEN", "api.anthropic.com *.googleapis.com", "gmail.googleapis.com www.googleapis.com", true},
		// An allowed pattern narrower than the vendor's, or wider.
		{"GOOGLE_API_KEY", "storage.googleapis.com api.openai.com", "storage.googleapis.com", true},
		{"OPENAI_API_KEY", "*.openai.com", "api.openai.com", true},
		// The vendor is not allowed (a gateway in front of it, say):
		// every allowed host, as for a name agentbox does not know.
		{"OPENAI_API_KEY", "llm.corp.example", "llm.corp.example", false},
		{"API_KEY", "a.example b.example:8443 *", "a.example b.example:8443", false},
		{"GH_TOKEN", "api.github.com:443 example.com", "api.github.com:443", true},
		// Everything allowed: the vendor's hosts, never "*" itself.
		{"ANTHROPIC_API_KEY", "*", "api.anthropic.com", true},
		{"API_KEY", "*", "", false},
	}
	for _, tc := range cases {
		var allowed []HostPattern
		for _, s := range strings.Fields(tc.allowed) {
			p, err := ParseHostPattern(s)
			if err != nil {
				t.Fatal(err)
			}
			allowed = append(allowed, p)
		}
		hosts, byName := CredentialHosts(tc.name, allowed)
		var got []string
		for _, h := range hosts {
			got = append(got, h.String())
		}
		if strings.Join(got, " ") != tc.want || byName != tc.byName {
			t.Errorf("%s with %q: %q by name %v, want %q %v", tc.name, tc.allowed, got, byName, tc.want, tc.byName)
		}
	}
}

// Every vendor host parses and none matches every host.
func TestVendorHostsWellFormed(t *testing.T) {
	for _, v := range vendorHosts {
		if !strings.HasSuffix(v.prefix, "_") || !isCredentialName(v.prefix) {
			t.Errorf("prefix %q", v.prefix)
		}
		for _, h := range v.hosts {
			p, err := ParseHostPattern(h)
			if err != nil || p.Any {
				t.Errorf("%s: %q: %v", v.prefix, h, err)
			}
		}
	}
}
