package main

import "testing"

func TestEscapeLines(t *testing.T) {
	for in, want := range map[string]string{
		"plain\n\tindented ✅": "plain\n\tindented ✅",
		"a\x1b[2Jb\nc":        `a\x1b[2Jb` + "\nc",
		"bidi \u202e here":    `bidi \u202e here`,
		"bad \xff byte":       `bad \xff byte`,
		"cr\rline":            `cr\x0dline`,
		"rep\u200bo/.git":     `rep\u200bo/.git`,
		"nb\u00a0sp \ufeff":   `nb\u00a0sp \ufeff`,
		"tag \U000e0041":      `tag \U000e0041`,
	} {
		if got := escapeLines(in); got != want {
			t.Errorf("escapeLines(%q) = %q, want %q", in, got, want)
		}
	}
}
