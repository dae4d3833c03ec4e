package main

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// escapeRule is a range of characters that never reach the operator's
// terminal as they are, and the form each is written in instead.
type escapeRule struct {
	lo, hi rune
	format string // takes the rune
}

// escapeRules is the one list of what agentbox escapes in text that is not
// its own (an agent's host names and reasons, audit log fields, agent
// names): whatever could drive the terminal or reorder what it shows.
// Bytes that are not UTF-8 are written \xHH as well.
var escapeRules = []escapeRule{
	{0x00, 0x1f, `\x%02x`},     // C0 controls
	{0x7f, 0x9f, `\x%02x`},     // DEL and C1 controls
	{0x061c, 0x061c, `\u%04x`}, // Arabic letter mark
	{0x200e, 0x200f, `\u%04x`}, // left-to-right and right-to-left marks
	{0x2028, 0x2029, `\u%04x`}, // line and paragraph separators
	{0x202a, 0x202e, `\u%04x`}, // bidirectional embeddings and overrides
	{0x2066, 0x2069, `\u%04x`}, // bidirectional isolates
}

// escapeRuleFor returns the rule that escapes r, if any.
func escapeRuleFor(r rune) (escapeRule, bool) {
	for _, e := range escapeRules {
		if e.lo <= r && r <= e.hi {
			return e, true
		}
	}
	return escapeRule{}, false
}

// writeEscaped writes the character or invalid byte at the start of s to b,
// escaped by escapeRules, and returns how many bytes of s it took.
func writeEscaped(b *strings.Builder, s string) int {
	r, size := utf8.DecodeRuneInString(s)
	if r == utf8.RuneError && size == 1 {
		fmt.Fprintf(b, `\x%02x`, s[0])
		return 1
	}
	if e, ok := escapeRuleFor(r); ok {
		fmt.Fprintf(b, e.format, r)
	} else {
		b.WriteString(s[:size])
	}
	return size
}

// needsEscape reports whether escapeControls would change s.
func needsEscape(s string) bool {
	if !utf8.ValidString(s) {
		return true
	}
	for _, r := range s {
		if _, ok := escapeRuleFor(r); ok {
			return true
		}
	}
	return false
}

// escapeControls keeps text that came from the agent (host names, reasons)
// from driving the operator's terminal or reordering the line it is on.
func escapeControls(s string) string {
	if !needsEscape(s) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		i += writeEscaped(&b, s[i:])
	}
	return b.String()
}
