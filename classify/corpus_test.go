package classify

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"testing"
)

// corpusCase is one line of testdata/corpus.tsv.
type corpusCase struct {
	line     int
	decision Decision
	rule     string // "" = any rule
	command  string
}

func loadCorpus(t testing.TB) []corpusCase {
	t.Helper()
	f, err := os.Open("testdata/corpus.tsv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []corpusCase
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	n := 0
	for sc.Scan() {
		n++
		line := sc.Text()
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		quoted := strings.HasPrefix(line, "q:")
		line = strings.TrimPrefix(line, "q:")
		parts := strings.SplitN(line, "\t", 3)
		if len(parts) != 3 {
			t.Fatalf("corpus line %d: want 3 tab-separated fields", n)
		}
		d, err := ParseDecision(parts[0])
		if err != nil {
			t.Fatalf("corpus line %d: %v", n, err)
		}
		cmd := parts[2]
		if quoted {
			if cmd, err = strconv.Unquote(cmd); err != nil {
				t.Fatalf("corpus line %d: %v", n, err)
			}
		}
		rule := parts[1]
		if rule == "-" {
			rule = ""
		}
		out = append(out, corpusCase{line: n, decision: d, rule: rule, command: cmd})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestCorpus checks every canonical command, evasion and benign look-alike
// in testdata/corpus.tsv against its expected decision and rule.
func TestCorpus(t *testing.T) {
	c := Default()
	cases := loadCorpus(t)
	if len(cases) < 300 {
		t.Fatalf("corpus has %d cases, want at least 300", len(cases))
	}
	for _, tc := range cases {
		got := c.Classify(tc.command)
		noBug(t, got, tc.command)
		if got.Decision != tc.decision || (tc.rule != "" && got.Rule != tc.rule) {
			want := tc.decision.String()
			if tc.rule != "" {
				want += "/" + tc.rule
			}
			t.Errorf("line %d: Classify(%q) = %s/%s (%s; %q), want %s", tc.line, tc.command, got.Decision, got.Rule, got.Reason, got.Command, want)
		}
	}
}

// TestCorpusCoversEveryRule makes sure each built-in rule has at least one
// corpus case that expects it.
func TestCorpusCoversEveryRule(t *testing.T) {
	seen := map[string]bool{}
	for _, tc := range loadCorpus(t) {
		seen[tc.rule] = true
	}
	for _, name := range BuiltinRuleNames() {
		if name == RuleProtectedPathWrite {
			continue // needs options; covered in classifier_test.go
		}
		if !seen[name] {
			t.Errorf("no corpus case expects rule %q", name)
		}
	}
}
