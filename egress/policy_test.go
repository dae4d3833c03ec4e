package egress

import (
	"context"
	"errors"
	"strings"
	"testing"
)

func TestPolicyDecide(t *testing.T) {
	var asked []string
	onRequest := func(_ context.Context, host string, port int) (bool, error) {
		asked = append(asked, host)
		switch host {
		case "ask-yes.test":
			return true, nil
		case "ask-err.test":
			return false, errors.New("approver offline")
		}
		return false, nil
	}
	tests := []struct {
		name   string
		policy Policy
		target string
		allow  bool
		rule   string
		asked  bool
	}{
		{"empty policy denies", Policy{}, "example.com:443", false, RuleDefaultDeny, false},
		{"allowed exact", Policy{Allowed: []string{"example.com"}}, "example.com:443", true, "allow:example.com", false},
		{"allowed wildcard", Policy{Allowed: []string{"*.example.com"}}, "api.example.com:443", true, "allow:*.example.com", false},
		{"wildcard not apex", Policy{Allowed: []string{"*.example.com"}}, "example.com:443", false, RuleDefaultDeny, false},
		{"port outside default", Policy{Allowed: []string{"example.com"}}, "example.com:22", false, RuleDefaultDeny, false},
		{"denied wins over allowed", Policy{Allowed: []string{"*.example.com"}, Denied: []string{"evil.example.com"}},
			"evil.example.com:443", false, "deny:evil.example.com", false},
		{"denied wildcard wins over exact allow", Policy{Allowed: []string{"a.example.com"}, Denied: []string{"*.example.com"}},
			"a.example.com:443", false, "deny:*.example.com", false},
		{"most specific allow named", Policy{Allowed: []string{"*", "*.example.com", "api.example.com"}},
			"api.example.com:443", true, "allow:api.example.com", false},
		{"longest wildcard named", Policy{Allowed: []string{"*.example.com", "*.api.example.com"}},
			"v1.api.example.com:443", true, "allow:*.api.example.com", false},
		{"deny * means everything not allowed", Policy{Allowed: []string{"example.com"}, Denied: []string{"*"}},
			"example.com:443", true, "allow:example.com", false},
		{"deny * refuses the rest without asking", Policy{Allowed: []string{"example.com"}, Denied: []string{"*"}, OnRequest: onRequest},
			"ask-yes.test:443", false, "deny:*", false},
		{"deny *:* covers other ports", Policy{Denied: []string{"*:*"}, OnRequest: onRequest},
			"ask-yes.test:22", false, "deny:*:*", false},
		{"OnRequest allows", Policy{OnRequest: onRequest}, "ask-yes.test:443", true, RuleCallbackAllow, true},
		{"OnRequest refuses", Policy{OnRequest: onRequest}, "ask-no.test:443", false, RuleCallbackDeny, true},
		{"OnRequest error refuses", Policy{OnRequest: onRequest}, "ask-err.test:443", false, RuleCallbackError, true},
		{"OnRequest not asked when allowed", Policy{Allowed: []string{"ask-no.test"}, OnRequest: onRequest},
			"ask-no.test:443", true, "allow:ask-no.test", false},
		{"OnRequest not asked when denied", Policy{Denied: []string{"ask-yes.test"}, OnRequest: onRequest},
			"ask-yes.test:443", false, "deny:ask-yes.test", false},
		{"IP literal needs explicit allow", Policy{Allowed: []string{"*"}}, "192.0.2.10:443", false, RuleDefaultDeny, false},
		{"IP literal allowed explicitly", Policy{Allowed: []string{"*", "192.0.2.10"}}, "192.0.2.10:443", true, "allow:192.0.2.10", false},
		{"IP literal never asks OnRequest", Policy{OnRequest: onRequest}, "192.0.2.10:443", false, RuleDefaultDeny, false},
		{"IP literal denied explicitly", Policy{Allowed: []string{"192.0.2.10"}, Denied: []string{"192.0.2.10"}},
			"192.0.2.10:443", false, "deny:192.0.2.10", false},
		{"IPv6 literal allowed explicitly", Policy{Allowed: []string{"[2001:db8::10]:443"}}, "[2001:db8::10]:443", true, "allow:[2001:db8::10]:443", false},
		{"IDN allow matches punycode target", Policy{Allowed: []string{"bücher.example"}}, "xn--bcher-kva.example:443", true, "allow:xn--bcher-kva.example", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			asked = nil
			rs, err := compilePolicy(tt.policy)
			if err != nil {
				t.Fatal(err)
			}
			tg, err := parseHostPort(tt.target, 0)
			if err != nil {
				t.Fatal(err)
			}
			v := rs.decide(context.Background(), tg)
			if v.allowed != tt.allow || v.rule != tt.rule {
				t.Fatalf("decide(%s) = %+v; want allowed=%v rule=%q", tt.target, v, tt.allow, tt.rule)
			}
			if (len(asked) > 0) != tt.asked {
				t.Errorf("OnRequest asked %v, want asked=%v", asked, tt.asked)
			}
			if v.reason == "" {
				t.Error("verdict without a reason")
			}
		})
	}
}

func TestNewInvalidPattern(t *testing.T) {
	for _, p := range []Policy{
		{Allowed: []string{"ok.example", "bad*.example"}},
		{Denied: []string{"https://x.example"}},
	} {
		_, err := New(Config{Policy: p})
		if err == nil || !errors.Is(err, ErrInvalidPattern) {
			t.Errorf("New(%+v) = %v; want ErrInvalidPattern", p, err)
			continue
		}
		if !strings.Contains(err.Error(), "bad*.example") && !strings.Contains(err.Error(), "https://x.example") {
			t.Errorf("error %q does not name the pattern", err)
		}
	}
}

func TestMultiSink(t *testing.T) {
	var a, b recorder
	s := MultiSink(&a, nil, SinkFunc(b.Record))
	d := Decision{Host: "x.test", Port: 443, Rule: RuleDefaultDeny}
	s.Record(d)
	if len(a.all()) != 1 || len(b.all()) != 1 || a.all()[0] != d {
		t.Fatalf("a %v b %v", a.all(), b.all())
	}
	if got := (Decision{Host: "2001:db8::1", Port: 443}).Target(); got != "[2001:db8::1]:443" {
		t.Errorf("Target() = %q", got)
	}
}
