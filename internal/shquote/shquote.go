// Package shquote writes argument vectors as one string that a POSIX shell
// splits back into the same words: the form agentbox shows commands in
// (approvals, errors, the audit log, exec --json).
package shquote

import "strings"

// safe are the characters a word may hold and still be written bare.
const safe = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:,+@%"

// Join joins argv into one string a POSIX shell would split back into the
// same words, quoting with single quotes the words that need it.
func Join(argv []string) string {
	var b strings.Builder
	for i, a := range argv {
		if i > 0 {
			b.WriteByte(' ')
		}
		if a != "" && strings.Trim(a, safe) == "" {
			b.WriteString(a)
			continue
		}
		b.WriteByte('\'')
		b.WriteString(strings.ReplaceAll(a, "'", `'\''`))
		b.WriteByte('\'')
	}
	return b.String()
}
