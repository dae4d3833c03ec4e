package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/agentbox-dev/agentbox/internal/termsafe"
)

// newJSONEncoder returns an encoder for the CLI's --json outputs. They go
// to the operator's terminal unless redirected, and carry strings the agent
// chose (planted paths, host names), so every character termsafe escapes
// in text (bidi overrides, C1 controls, invisible ones) is written as a
// \u escape: the same string to any JSON reader, and nothing a terminal
// acts on or hides (TestRedteam41JSONRawBidi). encoding/json escapes the
// C0 controls itself.
func newJSONEncoder(w io.Writer) *json.Encoder {
	enc := json.NewEncoder(jsonOut{w})
	enc.SetEscapeHTML(false)
	return enc
}

// jsonOut rewrites what an Encoder writes. An Encoder writes each value
// whole, in one Write, so no character is split between two writes.
type jsonOut struct{ w io.Writer }

func (j jsonOut) Write(p []byte) (int, error) {
	if !needsEscape(string(p)) {
		return j.w.Write(p)
	}
	var b bytes.Buffer
	for i := 0; i < len(p); {
		r, size := utf8.DecodeRune(p[i:])
		// Below DEL, only the encoder's own line breaks are left: the
		// controls within strings are escaped already.
		if r >= 0x7f && (r != utf8.RuneError || size > 1) && termsafe.Escaped(r) {
			for _, u := range utf16.Encode([]rune{r}) {
				fmt.Fprintf(&b, `\u%04x`, u)
			}
		} else {
			b.Write(p[i : i+size])
		}
		i += size
	}
	if _, err := j.w.Write(b.Bytes()); err != nil {
		return 0, err
	}
	return len(p), nil
}
