package classify

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"
)

// addCorpusSeeds adds every corpus command to the fuzz seed corpus.
func addCorpusSeeds(f *testing.F) {
	for _, tc := range loadCorpus(f) {
		f.Add(tc.command)
	}
}

// noBug fails t when the analysis of input panicked: Classify turns a
// panic into a parse-error result, which the fuzzers must still see.
func noBug(t *testing.T, r Result, input string) {
	t.Helper()
	if strings.Contains(r.Reason, classifierBug) {
		t.Fatalf("classifying %q panicked: %s", input, r.Reason)
	}
}

// FuzzClassify: the classifier never panics, always returns a valid
// decision, and never allows input the parser rejects.
func FuzzClassify(f *testing.F) {
	addCorpusSeeds(f)
	for _, s := range []string{"", "'", "$(", "${", "<<EOF", "`", "((", "[[ x", "a |", "!", "{a,b", "$'\\x", "\x00", "f(){", "case x in"} {
		f.Add(s)
	}
	c := Default()
	f.Fuzz(func(t *testing.T, cmd string) {
		r := c.Classify(cmd)
		noBug(t, r, cmd)
		if !r.Decision.Valid() {
			t.Fatalf("Classify(%q) returned invalid decision %d", cmd, r.Decision)
		}
		if _, err := parse(wordCRs(cmd)); err != nil && r.Decision < Escalated { // read as Classify reads it (lexfix.go)
			t.Fatalf("Classify(%q) = %v/%s although the parser rejects it: %v", cmd, r.Decision, r.Rule, err)
		}
		if r.Decision != Allow && r.Rule == "" && r.Decision != Sandboxed {
			t.Fatalf("Classify(%q) = %v with no rule", cmd, r.Decision)
		}
	})
}

// positional matches $0, $1, $@, $*, ${1} …: bash -c has its own.
var positional = regexp.MustCompile(`\$\{?[0-9@*#]`)

// FuzzWrapped: a command classifies the same when it is grouped, put in a
// subshell, or handed to bash -c / sh -c / eval as one quoted string,
// except that running a shell is never "allow" by itself.
func FuzzWrapped(f *testing.F) {
	addCorpusSeeds(f)
	c := Default()
	f.Fuzz(func(t *testing.T, cmd string) {
		if _, err := parse(cmd); err != nil || strings.ContainsAny(cmd, "\x00") || positional.MatchString(cmd) || strings.HasSuffix(cmd, `\`) ||
			strings.Contains(cmd, "#") { // the parser's comment handling differs inside ( )

			return
		}
		base := c.Classify(cmd)
		noBug(t, base, cmd)
		if base.Rule == RuleParseError {
			return // limits (depth, size) are hit at different levels
		}
		same := []string{"( " + cmd + "\n)", "{ " + cmd + "\n}"}
		for _, w := range same {
			if _, err := parse(w); err != nil {
				continue // e.g. an empty group is a syntax error
			}
			got := c.Classify(w)
			noBug(t, got, w)
			if got.Decision != base.Decision {
				t.Fatalf("Classify(%q) = %v/%s but Classify(%q) = %v/%s", cmd, base.Decision, base.Rule, w, got.Decision, got.Rule)
			}
		}
		if s := strings.TrimSpace(cmd); strings.HasPrefix(s, "-") || strings.HasPrefix(s, "+") {
			return // bash -c '-x…' reads an option, not a command
		}
		floor := max(base.Decision, Sandboxed)
		q := "'" + strings.ReplaceAll(cmd, "'", `'\''`) + "'"
		for _, w := range []string{"bash -c " + q, "sh -c " + q, "eval " + q, "sudo -u root bash -lc " + q} {
			want := floor
			if strings.HasPrefix(w, "sudo") {
				want = max(base.Decision, Escalated)
			}
			if strings.HasPrefix(w, "sh -c") {
				// sh reads its string as dash and as bash, the stricter
				// standing: bash syntax dash refuses (0(){ :;}), $'…'.
				want = max(c.ClassifyShell("dash", cmd).Decision, Sandboxed)
			}
			got := c.Classify(w)
			noBug(t, got, w)
			if got.Decision != want {
				t.Fatalf("Classify(%q) = %v/%s but Classify(%q) = %v/%s, want %v", cmd, base.Decision, base.Rule, w, got.Decision, got.Rule, want)
			}
		}
	})
}

// FuzzClassifyArgs: argument vectors never panic and quoting them for a
// shell gives the same decision as classifying the vector.
func FuzzClassifyArgs(f *testing.F) {
	f.Add("rm", "-rf", "/")
	f.Add("bash", "-c", "rm -rf /")
	f.Add("env", "sudo", "ls")
	f.Add("git", "push", "origin")
	f.Add("echo", "$(x)", ";")
	c := Default()
	f.Fuzz(func(t *testing.T, name, a1, a2 string) {
		if strings.ContainsAny(name+a1+a2, "\x00") || name == "" || !utf8.ValidString(name) || !utf8.ValidString(a1) || !utf8.ValidString(a2) {
			return
		}
		r := c.ClassifyArgs(name, []string{a1, a2})
		noBug(t, r, fmt.Sprintf("%q %q %q", name, a1, a2))
		if !r.Decision.Valid() {
			t.Fatalf("invalid decision %d", r.Decision)
		}
		q := func(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }
		line := q(name) + " " + q(a1) + " " + q(a2)
		got := c.Classify(line)
		noBug(t, got, line)
		if got.Decision != r.Decision {
			t.Fatalf("ClassifyArgs(%q,%q,%q) = %v/%s but Classify(%q) = %v/%s", name, a1, a2, r.Decision, r.Rule, line, got.Decision, got.Rule)
		}
	})
}
