//go:build linux

package egress_test

import (
	"slices"
	"strings"
	"testing"
)

// refusal is one row of TestNetRefused: a sandboxed curl through the HTTP
// proxy that must be refused, with what the refusal must look like and the
// servers it must not have reached.
type refusal struct {
	name string
	pol  netPolicy
	args []string // curl arguments after curlArgv's
	want decisionWant
	// notLooked are names the resolver must never have been asked about.
	notLooked []string
	// unreached are servers ("IP:port") that must have seen no connection.
	unreached []string
}

// viaProxy, "" makes curl use the proxy for every host: by itself it
// connects directly to localhost and loopback literals, whatever NO_PROXY
// says (TestNetBypass covers that path: it only reaches the sandbox's own
// loopback).
const viaProxy = "--noproxy"

// TestNetRefused: denied names, names not on the allow-list, and names or
// literals that resolve to addresses the guard refuses. Plain HTTP gets a
// 403 response, HTTPS a 403 to its CONNECT (curl exit 56); both carry
// X-Agentbox-Deny with the rule, which OnDecision and ExecResult.Violations
// report too. Every blocked address answers in the topology, so a guard
// that let one through would show as a connection.
func TestNetRefused(t *testing.T) {
	inNetns(t)
	t.Parallel()
	allow := func(p ...string) netPolicy { return netPolicy{allow: p} }
	both := netPolicy{allow: []string{"allowed.test", "denied.test"}, deny: []string{"denied.test"}}
	cases := []refusal{
		// The lists.
		{"denied_name_https", both, []string{"https://denied.test/r"},
			decisionWant{"connect", "denied.test", 443, "deny:denied.test", ""}, []string{"denied.test"}, []string{deniedAddr + ":443"}},
		{"denied_name_http", both, []string{"http://denied.test/r"},
			decisionWant{"http", "denied.test", 80, "deny:denied.test", ""}, []string{"denied.test"}, []string{deniedAddr + ":80"}},
		{"denied_wildcard_wins", netPolicy{allow: []string{"allowed.test"}, deny: []string{"*.test"}}, []string{"https://allowed.test/r"},
			decisionWant{"connect", "allowed.test", 443, "deny:*.test", ""}, []string{"allowed.test"}, nil},
		{"not_allowed_https", allow("allowed.test"), []string{"https://other.test/r"},
			decisionWant{"connect", "other.test", 443, "default-deny", ""}, []string{"other.test"}, []string{otherAddr + ":443"}},
		{"not_allowed_http", allow("allowed.test"), []string{"http://other.test/r"},
			decisionWant{"http", "other.test", 80, "default-deny", ""}, []string{"other.test"}, []string{otherAddr + ":80"}},
		{"empty_allow_list", netPolicy{}, []string{"https://allowed.test/r"},
			decisionWant{"connect", "allowed.test", 443, "default-deny", ""}, []string{"allowed.test"}, nil},
		{"wildcard_is_subdomains_only", allow("*.allowed.test"), []string{"https://allowed.test/r"},
			decisionWant{"connect", "allowed.test", 443, "default-deny", ""}, []string{"allowed.test"}, nil},
		{"port_not_allowed", allow("allowed.test"), []string{"https://allowed.test:8443/r"},
			decisionWant{"connect", "allowed.test", 8443, "default-deny", ""}, []string{"allowed.test"}, nil},
		{"ip_literal_of_allowed_name", allow("allowed.test"), []string{"http://" + allowedAddr + "/r"},
			decisionWant{"http", allowedAddr, 80, "default-deny", ""}, nil, nil},
		{"denied_ip_literal", netPolicy{allow: []string{allowedAddr}, deny: []string{allowedAddr}}, []string{"https://" + allowedAddr + "/r"},
			decisionWant{"connect", allowedAddr, 443, "deny:" + allowedAddr, ""}, nil, nil},

		// The address guard, whatever the lists say: names...
		{"name_to_loopback_https", allow("loop.test"), []string{"https://loop.test/r"},
			decisionWant{"connect", "loop.test", 443, "guard:loopback", "127.0.0.1"}, nil, []string{"127.0.0.1:443"}},
		{"name_to_loopback_http", allow("loop.test"), []string{"http://loop.test/r"},
			decisionWant{"http", "loop.test", 80, "guard:loopback", "127.0.0.1"}, nil, []string{"127.0.0.1:80"}},
		{"localhost", allow("localhost"), []string{viaProxy, "", "http://localhost/r"},
			decisionWant{"http", "localhost", 80, "guard:loopback", ""}, nil, []string{"127.0.0.1:80", "[::1]:80"}},
		{"name_to_mapped_loopback", allow("mapped.test"), []string{"http://mapped.test/r"},
			decisionWant{"http", "mapped.test", 80, "guard:loopback", ""}, nil, []string{"127.0.0.1:80"}},
		{"name_to_private", allow("private.test"), []string{"https://private.test/r"},
			decisionWant{"connect", "private.test", 443, "guard:private", privateAddr}, nil, []string{privateAddr + ":443"}},
		{"name_to_metadata", allow("meta.test"), []string{"http://meta.test/latest/meta-data/"},
			decisionWant{"http", "meta.test", 80, "guard:metadata", metadataAddr}, nil, []string{metadataAddr + ":80"}},
		{"name_to_host_address", allow("hostaddr.test"), []string{"https://hostaddr.test/r"},
			decisionWant{"connect", "hostaddr.test", 443, "guard:host-address", hostAddr}, nil, []string{hostAddr + ":443"}},
		// Linux connects 0.0.0.0 to the local host.
		{"name_to_unspecified", allow("zero.test"), []string{"http://zero.test/r"},
			decisionWant{"http", "zero.test", 80, "guard:unspecified", "0.0.0.0"}, nil, []string{"127.0.0.1:80", hostAddr + ":80"}},
		{"name_to_mapped_host_address", allow("mappedhost.test"), []string{"http://mappedhost.test/r"},
			decisionWant{"http", "mappedhost.test", 80, "guard:host-address", ""}, nil, []string{hostAddr + ":80"}},
		// ...and IP literals listed explicitly.
		{"literal_loopback_http", allow("127.0.0.1"), []string{viaProxy, "", "http://127.0.0.1/r"},
			decisionWant{"http", "127.0.0.1", 80, "guard:loopback", ""}, nil, []string{"127.0.0.1:80"}},
		{"literal_loopback_https", allow("127.0.0.1"), []string{viaProxy, "", "https://127.0.0.1/r"},
			decisionWant{"connect", "127.0.0.1", 443, "guard:loopback", ""}, nil, []string{"127.0.0.1:443"}},
		{"literal_ipv6_loopback", allow("::1"), []string{viaProxy, "", "http://[::1]/r"},
			decisionWant{"http", "::1", 80, "guard:loopback", ""}, nil, []string{"[::1]:80"}},
		{"literal_private", allow(privateAddr), []string{"http://" + privateAddr + "/r"},
			decisionWant{"http", privateAddr, 80, "guard:private", ""}, nil, []string{privateAddr + ":80"}},
		{"literal_metadata", allow(metadataAddr), []string{"http://" + metadataAddr + "/latest/meta-data/"},
			decisionWant{"http", metadataAddr, 80, "guard:metadata", ""}, nil, []string{metadataAddr + ":80"}},
		{"literal_host_address", allow(hostAddr), []string{"http://" + hostAddr + "/r"},
			decisionWant{"http", hostAddr, 80, "guard:host-address", ""}, nil, []string{hostAddr + ":80"}},
		{"literal_unspecified", allow("0.0.0.0"), []string{"http://0.0.0.0/r"},
			decisionWant{"http", "0.0.0.0", 80, "guard:unspecified", ""}, nil, []string{"127.0.0.1:80", hostAddr + ":80"}},
		// Plain-HTTP fronting: the Host header must name the request target.
		{"host_header_mismatch", allow("allowed.test"), []string{"-H", "Host: other.test", "http://allowed.test/host-mismatch"},
			decisionWant{"http", "allowed.test", 80, "host-mismatch", ""}, []string{"other.test"}, []string{otherAddr + ":80"}},
		// Whatever curl makes of a decimal host, the proxy must refuse it.
		{"decimal_loopback", allow("127.0.0.1"), []string{viaProxy, "", "--path-as-is", "http://2130706433/r"},
			decisionWant{"http", "", 80, "", ""}, []string{"2130706433"}, []string{"127.0.0.1:80"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			o := runSandboxed(t, c.pol, curlArgv(c.args...))
			r := o.curl(t)
			https := c.want.proto == "connect"
			switch {
			case https && (r.connect != "403" || r.exit != 56):
				t.Errorf("want the CONNECT refused with 403 (curl exit 56), got connect=%s code=%s exit=%d\n%s", r.connect, r.code, r.exit, o.dump())
			case !https && (r.code != "403" || r.exit != 0):
				t.Errorf("want a 403 response, got code=%s exit=%d\n%s", r.code, r.exit, o.dump())
			}
			hdr := r.denyHeader()
			if len(hdr) != 1 || (c.want.rule != "" && hdr[0] != c.want.rule) {
				t.Errorf("X-Agentbox-Deny %q, want one naming %q\n%s", hdr, c.want.rule, o.dump())
			}
			if strings.Contains(r.body, "upstream ") {
				t.Errorf("ESCAPE: an upstream server answered:\n%s", o.dump())
			}
			o.wantNoneAllowed(t)
			if c.want.host != "" {
				o.wantRefused(t, c.want)
			} else if !slices.ContainsFunc(o.decisions, func(d decision) bool { return !d.Allowed }) {
				t.Errorf("no refusal reported\n%s", o.dump())
			}
			o.wantNotLooked(t, c.notLooked...)
			expectUnreached(t, c.unreached...)
		})
	}
}
