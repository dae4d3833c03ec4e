package egress

import (
	"errors"
	"strings"
	"testing"
)

func TestPatternMatch(t *testing.T) {
	type probe struct {
		host string
		port int
		want bool
	}
	tests := []struct {
		pattern string
		canon   string
		probes  []probe
	}{
		{"example.com", "example.com", []probe{
			{"example.com", 443, true},
			{"example.com", 80, true},
			{"EXAMPLE.com.", 443, true},
			{"example.com", 8080, false},
			{"www.example.com", 443, false},
			{"example.com.evil.test", 443, false},
			{"notexample.com", 443, false},
		}},
		{"Example.COM.:8443", "example.com:8443", []probe{
			{"example.com", 8443, true},
			{"example.com", 443, false},
		}},
		{"*.example.com", "*.example.com", []probe{
			{"www.example.com", 443, true},
			{"a.b.example.com", 80, true},
			{"WWW.Example.Com.", 443, true},
			{"example.com", 443, false}, // subdomains only, not the apex
			{"www.example.com", 22, false},
			{"wwwexample.com", 443, false},
			{"www.example.com.evil.test", 443, false},
		}},
		{"*.example.com:*", "*.example.com:*", []probe{
			{"git.example.com", 22, true},
			{"example.com", 22, false},
		}},
		{"bücher.example", "xn--bcher-kva.example", []probe{
			{"xn--bcher-kva.example", 443, true},
			{"BÜCHER.example", 443, true},
			{"bucher.example", 443, false},
		}},
		{"*.bücher.example", "*.xn--bcher-kva.example", []probe{
			{"www.bücher.example", 443, true},
		}},
		{"192.0.2.10", "192.0.2.10", []probe{
			{"192.0.2.10", 443, true},
			{"192.0.2.10", 22, false},
			{"192.0.2.11", 443, false},
			{"3221225994", 443, false}, // non-canonical spelling never matches
		}},
		{"192.0.2.10:8080", "192.0.2.10:8080", []probe{
			{"192.0.2.10", 8080, true},
			{"192.0.2.10", 80, false},
		}},
		{"[2001:db8::10]:443", "[2001:db8::10]:443", []probe{
			{"2001:db8::10", 443, true},
			{"[2001:DB8:0::10]", 443, true},
			{"2001:db8::10", 80, false},
		}},
		{"2001:db8::10", "2001:db8::10", []probe{
			{"[2001:db8::10]", 80, true},
		}},
		{"*", "*", []probe{
			{"anything.test", 443, true},
			{"anything.test", 80, true},
			{"anything.test", 22, false},
			{"192.0.2.10", 443, true}, // the policy keeps IP literals out of "*" allows
		}},
		{"*:*", "*:*", []probe{
			{"anything.test", 22, true},
		}},
		{"*:22", "*:22", []probe{
			{"anything.test", 22, true},
			{"anything.test", 443, false},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.pattern, func(t *testing.T) {
			p, err := ParsePattern(tt.pattern)
			if err != nil {
				t.Fatal(err)
			}
			if p.String() != tt.canon {
				t.Errorf("String() = %q, want %q", p.String(), tt.canon)
			}
			for _, pr := range tt.probes {
				if got := p.Match(pr.host, pr.port); got != pr.want {
					t.Errorf("Match(%q, %d) = %v, want %v", pr.host, pr.port, got, pr.want)
				}
			}
		})
	}
}

func TestParsePatternInvalid(t *testing.T) {
	tests := []struct {
		pattern string
		why     string
	}{
		{"", "empty"},
		{" example.com", "white space"},
		{"https://example.com", "not URLs"},
		{"example.com/path", "no path"},
		{"user@example.com", "no path"},
		{"*example.com", `"*" is allowed only`},
		{"ex*ample.com", `"*" is allowed only`},
		{"www.*.example.com", `"*" is allowed only`},
		{"*.*.example.com", "only one"},
		{"**", `"*" is allowed only`},
		{"*.", "empty"},
		{"*.192.0.2.1", "wildcard cannot apply to an IP"},
		{"*.1", "non-canonical"},
		{"*.example.1", "ends in a number"},
		{"example.com:0", "out of range"},
		{"example.com:65536", "out of range"},
		{"example.com:http", "not a number"},
		{"example.com:", "empty port"},
		{"2001:db8::1:443x", "need brackets"},
		{"[2001:db8::1", "unbalanced"},
		{"[2001:db8::1]x", "after ']'"},
		{"[192.0.2.1]:443", "not an IPv6"},
		{"2130706433", "non-canonical"},
		{"127.1", "non-canonical"},
		{"a..b", "empty label"},
		{"exa mple.com", "not allowed"},
		{"fe80::1%eth0", "zoned"},
	}
	for _, tt := range tests {
		t.Run(tt.pattern, func(t *testing.T) {
			_, err := ParsePattern(tt.pattern)
			if err == nil {
				t.Fatalf("ParsePattern(%q) succeeded", tt.pattern)
			}
			if !errors.Is(err, ErrInvalidPattern) {
				t.Errorf("error does not wrap ErrInvalidPattern: %v", err)
			}
			msg := err.Error()
			if !strings.Contains(msg, `"`+tt.pattern+`"`) && !strings.Contains(msg, tt.pattern) {
				t.Errorf("error %q does not name the pattern", msg)
			}
			if !strings.Contains(msg, tt.why) {
				t.Errorf("error %q does not say %q", msg, tt.why)
			}
		})
	}
}
