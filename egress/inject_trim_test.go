package egress

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"net/http"
	"net/netip"
	"slices"
	"strings"
	"testing"

	"github.com/agentbox-dev/agentbox/vault"
)

func TestSentForm(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"tok", "tok"},
		{" tok", "tok"},
		{"tok ", "tok"},
		{"\ttok\t", "tok"},
		{" \t tok \t ", "tok"},
		{"to k", "to k"}, // inner blanks are the value's own
		{"  ", ""},
		{"", ""},
	} {
		if got := string(SentForm([]byte(tc.in))); got != tc.want {
			t.Errorf("SentForm(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// A value stored with blanks at its ends goes out without them, wherever
// its placeholder is in the header (alone, after a scheme, inside Basic),
// and the mask holds the form sent as well as the one stored.
func TestBuildHeadTrimsStoredBlanks(t *testing.T) {
	const ph = "agentbox-placeholder-TRIM-0123456789"
	basic := func(s string) string { return "Basic " + base64.StdEncoding.EncodeToString([]byte(s)) }
	for _, tc := range []struct {
		name, stored, header, want string
		err                        string
	}{
		{"plain", "tok", ph, "tok", ""},
		{"alone, trailing space", "tok ", ph, "tok", ""},
		{"alone, leading tab", "\ttok", ph, "tok", ""},
		{"after a scheme, trailing space", "tok ", "Bearer " + ph, "Bearer tok", ""},
		{"after a scheme, leading space", " tok", "Bearer " + ph, "Bearer tok", ""},
		{"inside Basic", " tok\t", basic("user:" + ph), basic("user:tok"), ""},
		{"only blanks", " \t ", ph, "", "only spaces and tabs"},
		{"only blanks, inside Basic", "  ", basic("user:" + ph), "", "only spaces and tabs"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			stored := tc.stored
			c := &credential{name: "TRIM", ph: []byte(ph), value: func(context.Context) (vault.Secret, error) {
				return vault.NewSecret([]byte(stored)), nil
			}}
			req, err := http.NewRequest("GET", "https://api.test/", nil)
			if err != nil {
				t.Fatal(err)
			}
			req.RequestURI, req.Host = "/", "api.test"
			req.Header.Set("Authorization", tc.header)
			mask := &echoMask{}
			hb, err := buildHead(context.Background(), req, []*credential{c}, "", mask, netip.Addr{})
			if tc.err != "" {
				var ce *credentialError
				if !errors.As(err, &ce) || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err %v, want a credential error %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			out := bytes.Clone(hb.bytes())
			hb.wipe()
			if !bytes.Contains(out, []byte("\r\nAuthorization: "+tc.want+"\r\n")) {
				t.Errorf("head %q, want Authorization: %q", out, tc.want)
			}
			got, err := http.ReadRequest(bufio.NewReader(bytes.NewReader(out)))
			if err != nil || got.Header.Get("Authorization") != tc.want {
				t.Errorf("the upstream reads %q (%v), want %q", got.Header.Get("Authorization"), err, tc.want)
			}
			for _, v := range []string{strings.Trim(stored, " \t"), stored} {
				if !slices.ContainsFunc(mask.values, func(m []byte) bool { return string(m) == v }) {
					t.Errorf("the mask does not hold %q", v)
				}
			}
		})
	}
}
