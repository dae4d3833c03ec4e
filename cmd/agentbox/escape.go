package main

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/agentbox-dev/agentbox/internal/termsafe"
)

// writeEscaped writes the character or invalid byte at the start of s to b,
// escaped by termsafe's rules, and returns how many bytes of s it took.
func writeEscaped(b *strings.Builder, s string) int {
	r, size := utf8.DecodeRuneInString(s)
	if r == utf8.RuneError && size == 1 {
		fmt.Fprintf(b, `\x%02x`, s[0])
		return 1
	}
	e, control := termsafe.Find(r)
	switch {
	case control:
		fmt.Fprintf(b, e.Format, r)
	case termsafe.Invisible(r) && r > 0xffff:
		fmt.Fprintf(b, `\U%08x`, r)
	case termsafe.Invisible(r):
		fmt.Fprintf(b, `\u%04x`, r)
	default:
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
		if termsafe.Escaped(r) {
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

// escapeLines is escapeControls for text of several lines that agentbox
// composed around what it did not write (an error naming a path read from
// disk, a manifest's summary): its line breaks and tabs stay, every other
// control is escaped.
func escapeLines(s string) string {
	if !needsEscape(s) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		if s[i] == '\n' || s[i] == '\t' {
			b.WriteByte(s[i])
			i++
			continue
		}
		i += writeEscaped(&b, s[i:])
	}
	return b.String()
}
