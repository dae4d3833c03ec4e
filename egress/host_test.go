package egress

import (
	"errors"
	"net/netip"
	"strings"
	"testing"
)

func TestParseHost(t *testing.T) {
	tests := []struct {
		in       string
		wantName string
		wantIP   string
		wantErr  string // substring; "" means success
		// decoded is the address a non-canonical IPv4 spelling stands for.
		decoded string
	}{
		{in: "example.com", wantName: "example.com"},
		{in: "Example.COM.", wantName: "example.com"},
		{in: "a_b.example.com", wantName: "a_b.example.com"},
		{in: "bücher.example", wantName: "xn--bcher-kva.example"},
		{in: "BÜCHER.example.", wantName: "xn--bcher-kva.example"},
		{in: "例え.テスト", wantName: "xn--r8jz45g.xn--zckzah"},
		{in: "xn--bcher-kva.example", wantName: "xn--bcher-kva.example"},
		{in: "0xfoo.example", wantName: "0xfoo.example"},
		{in: "1e100.net", wantName: "1e100.net"},
		{in: "127.0.0.1", wantIP: "127.0.0.1"},
		{in: "127.0.0.1.", wantIP: "127.0.0.1"},
		{in: "192.0.2.10", wantIP: "192.0.2.10"},
		{in: "[::1]", wantIP: "::1"},
		{in: "::1", wantIP: "::1"},
		{in: "[2001:DB8::A]", wantIP: "2001:db8::a"},
		{in: "[::ffff:127.0.0.1]", wantIP: "::ffff:127.0.0.1"},
		// Unicode spellings of digits and dots map to the address itself
		// (and so meet the guard), never to a name that gets resolved.
		{in: "127。0。0。1", wantIP: "127.0.0.1"},
		{in: "１２７．０．０．１", wantIP: "127.0.0.1"},
		{in: "①②⑦.0.0.1", wantIP: "127.0.0.1"},
		{in: "①②⑦.1", wantErr: "non-canonical", decoded: "127.0.0.1"},
		{in: "ｅｘａｍｐｌｅ.com", wantName: "example.com"},

		// Non-canonical IPv4 spellings: refused, never resolved.
		{in: "2130706433", wantErr: "non-canonical", decoded: "127.0.0.1"},
		{in: "0x7f.1", wantErr: "non-canonical", decoded: "127.0.0.1"},
		{in: "0X7F.1", wantErr: "non-canonical", decoded: "127.0.0.1"},
		{in: "127.1", wantErr: "non-canonical", decoded: "127.0.0.1"},
		{in: "127.0.1", wantErr: "non-canonical", decoded: "127.0.0.1"},
		{in: "0177.0.0.1", wantErr: "non-canonical", decoded: "127.0.0.1"},
		{in: "127.0.0.01", wantErr: "non-canonical", decoded: "127.0.0.1"},
		{in: "0x7f000001", wantErr: "non-canonical", decoded: "127.0.0.1"},
		{in: "017700000001", wantErr: "non-canonical", decoded: "127.0.0.1"},
		{in: "0x7f.0.0.0x1", wantErr: "non-canonical", decoded: "127.0.0.1"},
		{in: "3232235777", wantErr: "non-canonical", decoded: "192.168.1.1"},
		{in: "0xa9.0xfe.0xa9.0xfe", wantErr: "non-canonical", decoded: "169.254.169.254"},
		{in: "0", wantErr: "non-canonical", decoded: "0.0.0.0"},
		{in: "0x", wantErr: "non-canonical", decoded: "0.0.0.0"},
		{in: "1.2.3.4.5", wantErr: "ends in a number"},
		{in: "example.123", wantErr: "ends in a number"},
		{in: "256.1.1.1", wantErr: "ends in a number"},
		{in: "1.2.3.0x100", wantErr: "ends in a number"},
		{in: "99999999999", wantErr: "ends in a number"},
		{in: "08.1.1.1", wantErr: "ends in a number"},

		{in: "", wantErr: "empty"},
		{in: ".", wantErr: "empty"},
		{in: "a..b", wantErr: "empty label"},
		{in: "example.com..", wantErr: "empty label"},
		{in: "exa mple.com", wantErr: "not allowed"},
		{in: "exa\x00mple.com", wantErr: "not allowed"},
		{in: "evil.com/x", wantErr: "not allowed"},
		{in: strings.Repeat("a", 64) + ".com", wantErr: "label longer"},
		{in: strings.Repeat("a.", 127) + "com", wantErr: "longer than 253"},
		{in: "[fe80::1%eth0]", wantErr: "zoned"},
		{in: "fe80::1%eth0", wantErr: "zoned"},
		{in: "[127.0.0.1]", wantErr: "not an IPv6"},
		{in: "[::1", wantErr: "unbalanced"},
		{in: "a:b", wantErr: "not an IPv6"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := parseHost(tt.in)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("parseHost(%q) = %+v, %v; want error containing %q", tt.in, got, err, tt.wantErr)
				}
				if !errors.Is(err, ErrInvalidHost) {
					t.Errorf("error %v does not wrap ErrInvalidHost", err)
				}
				var nc *NonCanonicalIPError
				if tt.decoded != "" {
					if !errors.As(err, &nc) || nc.Addr != netip.MustParseAddr(tt.decoded) {
						t.Errorf("error %v: want NonCanonicalIPError for %s", err, tt.decoded)
					}
				}
				return
			}
			if err != nil {
				t.Fatalf("parseHost(%q): %v", tt.in, err)
			}
			if got.name != tt.wantName || (tt.wantIP != "") != got.isIP() ||
				(tt.wantIP != "" && got.ip != netip.MustParseAddr(tt.wantIP)) {
				t.Fatalf("parseHost(%q) = %+v, want name %q ip %q", tt.in, got, tt.wantName, tt.wantIP)
			}
		})
	}
}

func TestParseHostPort(t *testing.T) {
	tests := []struct {
		in      string
		def     int
		want    string
		wantErr bool
	}{
		{"example.com:443", 0, "example.com:443", false},
		{"Example.com.:8080", 0, "example.com:8080", false},
		{"example.com", 80, "example.com:80", false},
		{"example.com", 0, "", true},
		{"[2001:db8::1]:443", 0, "[2001:db8::1]:443", false},
		{"[2001:db8::1]", 80, "[2001:db8::1]:80", false},
		{"192.0.2.1:0", 0, "", true},
		{"192.0.2.1:65536", 0, "", true},
		{"192.0.2.1:+80", 0, "", true},
		{"192.0.2.1:", 80, "", true},
		{"2130706433:80", 0, "", true},
	}
	for _, tt := range tests {
		got, err := parseHostPort(tt.in, tt.def)
		if (err != nil) != tt.wantErr {
			t.Errorf("parseHostPort(%q, %d) error = %v, want error %v", tt.in, tt.def, err, tt.wantErr)
			continue
		}
		if err == nil && got.String() != tt.want {
			t.Errorf("parseHostPort(%q, %d) = %s, want %s", tt.in, tt.def, got, tt.want)
		}
	}
}
