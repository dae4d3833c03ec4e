package policy

import (
	"errors"
	"strings"
	"testing"
)

func TestParseHostPattern(t *testing.T) {
	tests := []struct {
		in, want string // want "" means an error
		wildcard bool
		port     int
		ip       bool
	}{
		{"api.example.com", "api.example.com", false, PortDefault, false},
		{"API.Example.COM.", "api.example.com", false, PortDefault, false},
		{"*.example.com", "*.example.com", true, PortDefault, false},
		{"*.example.com:443", "*.example.com:443", true, 443, false},
		{"example.com:*", "example.com:*", false, PortAny, false},
		{"localhost", "localhost", false, PortDefault, false},
		{"_acme.example.com", "_acme.example.com", false, PortDefault, false},
		{"bücher.de", "xn--bcher-kva.de", false, PortDefault, false},
		{"*.Bücher.de", "*.xn--bcher-kva.de", true, PortDefault, false},
		{"203.0.113.7", "203.0.113.7", false, PortDefault, true},
		{"203.0.113.7:8080", "203.0.113.7:8080", false, 8080, true},
		{"2001:db8::1", "2001:db8::1", false, PortDefault, true},
		{"2001:DB8:0::1", "2001:db8::1", false, PortDefault, true},
		{"[2001:db8::1]", "2001:db8::1", false, PortDefault, true},
		{"[2001:db8::1]:443", "[2001:db8::1]:443", false, 443, true},
		{"[2001:db8::1]:*", "[2001:db8::1]:*", false, PortAny, true},
		{"*", "*", false, PortDefault, false},
		{"*:25", "*:25", false, 25, false},

		{"", "", false, 0, false},
		{" x.com", "", false, 0, false},
		{"http://x.com", "", false, 0, false},
		{"x.com/path", "", false, 0, false},
		{"user@x.com", "", false, 0, false},
		{"x .com", "", false, 0, false},
		{"*x.com", "", false, 0, false},
		{"x.*.com", "", false, 0, false},
		{"*.*.x.com", "", false, 0, false},
		{"**", "", false, 0, false},
		{"*.", "", false, 0, false},
		{"*.1", "", false, 0, false},
		{"x.com:", "", false, 0, false},
		{"x.com:https", "", false, 0, false},
		{"x.com:0", "", false, 0, false},
		{"x.com:65536", "", false, 0, false},
		{"x..com", "", false, 0, false},
		{".x.com", "", false, 0, false},
		{"x!.com", "", false, 0, false},
		{strings.Repeat("a", 64) + ".com", "", false, 0, false},
		{strings.Repeat("a.", 127) + "com", "", false, 0, false},
		{"999", "", false, 0, false},
		{"2130706433", "", false, 0, false},
		{"127.1", "", false, 0, false},
		{"0x7f.0.0.1", "", false, 0, false},
		{"x.0x10", "", false, 0, false},
		{"1.2.3.256", "", false, 0, false},
		{"[1.2.3.4]", "", false, 0, false},
		{"[::1]x", "", false, 0, false},
		{"fe80::1%eth0", "", false, 0, false},
		{"2001:db8::1:443x", "", false, 0, false},
	}
	for _, tt := range tests {
		p, err := ParseHostPattern(tt.in)
		if tt.want == "" {
			if err == nil {
				t.Errorf("ParseHostPattern(%q) = %v, want an error", tt.in, p)
			}
			continue
		}
		if err != nil {
			t.Errorf("ParseHostPattern(%q): %v", tt.in, err)
			continue
		}
		if p.String() != tt.want || p.Wildcard != tt.wildcard || p.Port != tt.port || p.Addr.IsValid() != tt.ip || p.Raw != tt.in {
			t.Errorf("ParseHostPattern(%q) = %+v (%s), want %s wildcard=%v port=%d ip=%v", tt.in, p, p, tt.want, tt.wildcard, tt.port, tt.ip)
		}
		// The canonical form parses to the same pattern.
		if q, err := ParseHostPattern(p.String()); err != nil || q.String() != p.String() {
			t.Errorf("canonical %q does not round-trip: %v, %v", p.String(), q, err)
		}
	}
}

func TestHostPatternMatch(t *testing.T) {
	tests := []struct {
		pattern, host string
		port          int
		want          bool
	}{
		{"api.example.com", "api.example.com", 443, true},
		{"api.example.com", "api.example.com", 80, true},
		{"api.example.com", "api.example.com", 8443, false}, // default ports are 80 and 443
		{"api.example.com:*", "api.example.com", 8443, true},
		{"api.example.com", "API.EXAMPLE.COM.", 80, true},
		{"api.example.com", "example.com", 443, false},
		{"api.example.com", "xapi.example.com", 443, false},
		{"api.example.com", "api.example.com.evil.net", 443, false},
		{"*.example.com", "a.example.com", 443, true},
		{"*.example.com", "a.b.example.com", 443, true},
		{"*.example.com", "example.com", 443, false},
		{"*.example.com", "badexample.com", 443, false},
		{"*.example.com", "a.example.com.evil.net", 443, false},
		{"api.example.com:443", "api.example.com", 443, true},
		{"api.example.com:443", "api.example.com", 80, false},
		{"bücher.de", "xn--bcher-kva.de", 443, true},
		{"xn--bcher-kva.de", "BÜCHER.de", 443, true},
		{"203.0.113.7", "203.0.113.7", 443, true},
		{"203.0.113.7", "203.0.113.8", 443, false},
		{"203.0.113.7", "203.0.113.7.nip.io", 443, false},
		{"127.0.0.1", "2130706433", 443, false},
		{"127.0.0.1", "127.1", 443, false},
		{"2001:db8::1", "[2001:db8:0:0::1]", 443, true},
		{"example.com", "93.184.216.34", 443, false},
		{"*", "anything.at.all", 443, true},
		{"*", "anything.at.all", 22, false},
		{"*:*", "anything.at.all", 22, true},
	}
	for _, tt := range tests {
		p, err := ParseHostPattern(tt.pattern)
		if err != nil {
			t.Fatalf("ParseHostPattern(%q): %v", tt.pattern, err)
		}
		if got := p.Match(tt.host, tt.port); got != tt.want {
			t.Errorf("%q.Match(%q, %d) = %v, want %v", tt.pattern, tt.host, tt.port, got, tt.want)
		}
	}
}

func TestHostPatternCovers(t *testing.T) {
	tests := []struct {
		outer, inner string
		want         bool
	}{
		{"*", "x.com", true},
		{"*", "x.com:22", false},
		{"*:*", "x.com:22", true},
		{"x.com", "*", false},
		{"x.com", "x.com", true},
		{"x.com", "x.com:443", true},
		{"x.com", "x.com:8443", false},
		{"x.com", "x.com:*", false},
		{"x.com:*", "x.com:8443", true},
		{"x.com:443", "x.com", false},
		{"x.com:443", "x.com:443", true},
		{"x.com:443", "x.com:80", false},
		{"*.x.com", "a.x.com", true},
		{"*.x.com", "x.com", false},
		{"*.x.com", "*.x.com", true},
		{"*.x.com", "*.a.x.com", true},
		{"*.a.x.com", "*.x.com", false},
		{"a.x.com", "*.x.com", false},
		{"*.x.com:443", "a.x.com", false},
		{"1.2.3.4", "1.2.3.4:80", true},
		{"1.2.3.4", "x.com", false},
		{"2001:db8::1", "[2001:db8::1]:443", true},
	}
	for _, tt := range tests {
		o, err1 := ParseHostPattern(tt.outer)
		i, err2 := ParseHostPattern(tt.inner)
		if err := errors.Join(err1, err2); err != nil {
			t.Fatal(err)
		}
		if got := o.Covers(i); got != tt.want {
			t.Errorf("%q.Covers(%q) = %v, want %v", tt.outer, tt.inner, got, tt.want)
		}
	}
}

func TestCheckCredentialName(t *testing.T) {
	for _, ok := range []string{"ANTHROPIC_API_KEY", "GMAIL_TOKEN", "_X", "GITHUB_TOKEN", "NODE_AUTH_TOKEN",
		"GOOGLE_API_KEY", "NPM_TOKEN", "AWS_SECRET_ACCESS_KEY", "PATHFINDER_KEY", "HOMEBREW_GITHUB_API_TOKEN"} {
		if err := CheckCredentialName(ok); err != nil {
			t.Errorf("CheckCredentialName(%q) = %v", ok, err)
		}
	}
	for _, bad := range []string{"", "lower", "1X", "A-B", "A.B", "A B", "Ä", strings.Repeat("A", 129)} {
		if err := CheckCredentialName(bad); err == nil || errors.Is(err, ErrReservedCredentialName) {
			t.Errorf("CheckCredentialName(%q) = %v, want a syntax error", bad, err)
		}
	}
	for _, reserved := range []string{"PATH", "LD_PRELOAD", "LD_LIBRARY_PATH", "DYLD_INSERT_LIBRARIES", "HOME",
		"SHELL", "IFS", "ENV", "BASH_ENV", "PYTHONPATH", "PYTHONSTARTUP", "NODE_OPTIONS", "PERL5LIB", "RUBYOPT",
		"GIT_SSH_COMMAND", "GIT_CONFIG_COUNT", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY",
		"SSL_CERT_FILE", "NODE_EXTRA_CA_CERTS", "REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE", "GLIBC_TUNABLES",
		"LC_ALL", "TMPDIR", "XDG_CONFIG_HOME", "LESSOPEN", "PS4", "PROMPT_COMMAND", "JAVA_TOOL_OPTIONS",
		"SSLKEYLOGFILE", "AGENTBOX_STATE_DIR", "KUBECONFIG", "MALLOC_CHECK_"} {
		err := CheckCredentialName(reserved)
		if !errors.Is(err, ErrReservedCredentialName) {
			t.Errorf("CheckCredentialName(%q) = %v, want ErrReservedCredentialName", reserved, err)
			continue
		}
		if !strings.Contains(err.Error(), "is reserved: ") {
			t.Errorf("CheckCredentialName(%q) = %q: the message must say why", reserved, err)
		}
	}
}

// TestReservedNamesTable keeps the table well formed: every entry is a
// valid credential name or prefix, has a reason, and appears once.
func TestReservedNamesTable(t *testing.T) {
	seen := map[string]bool{}
	for _, r := range reservedNames {
		name := strings.TrimSuffix(r.name, "*")
		if seen[r.name] || r.why == "" || name == "" || !isCredentialName(name) {
			t.Errorf("bad or duplicate entry %+v", r)
		}
		seen[r.name] = true
	}
}

func TestAlertKindsTable(t *testing.T) {
	seen := map[string]bool{}
	for _, k := range AlertKinds {
		if seen[k.Name] || k.Desc == "" || CheckAlertKind(k.Name) != nil {
			t.Errorf("bad or duplicate alert kind %+v", k)
		}
		seen[k.Name] = true
	}
	for _, l := range LogLevels {
		if got, err := ParseLogLevel(string(l)); err != nil || got != l {
			t.Errorf("ParseLogLevel(%q) = %q, %v", l, got, err)
		}
	}
}
