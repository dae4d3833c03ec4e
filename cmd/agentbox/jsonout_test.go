package main

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestJSONEncoderEscapes(t *testing.T) {
	tests := []struct {
		in, want string // want: the encoded string, quotes included
	}{
		{"plain é ✓", `"plain é ✓"`},
		{"bidi\u202ex", `"bidi\u202ex"`},
		{"c1\u009bx", `"c1\u009bx"`},
		{"zero\u200bwidth", `"zero\u200bwidth"`},
		{"del\x7f", `"del\u007f"`},
		{"tag\U000E0041", `"tag\udb40\udc41"`},
		{"esc\x1b[2J\n", `"esc\u001b[2J\n"`},
		{"<&>", `"<&>"`},
	}
	for _, tt := range tests {
		var b strings.Builder
		enc := newJSONEncoder(&b)
		enc.SetIndent("", "  ")
		if err := enc.Encode(map[string]string{"k": tt.in}); err != nil {
			t.Fatal(err)
		}
		want := "{\n  \"k\": " + tt.want + "\n}\n"
		if b.String() != want {
			t.Errorf("%q: got %s, want %s", tt.in, b.String(), want)
		}
		var back map[string]string
		if err := json.Unmarshal([]byte(b.String()), &back); err != nil || back["k"] != tt.in {
			t.Errorf("%q: decodes to %q, %v", tt.in, back["k"], err)
		}
	}
}
