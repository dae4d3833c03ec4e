package classify

import (
	"strings"
	"testing"

	"mvdan.cc/sh/v3/syntax"
)

func words(s string) []field {
	var out []field
	for _, w := range strings.Fields(s) {
		out = append(out, field{val: w})
	}
	return out
}

// findFilteredAt must agree with findNameFiltered on every prefix it is
// asked about.
func TestFindFilteredAt(t *testing.T) {
	for _, line := range []string{
		"d -name x.go -exec rm {} ; -exec cat {} ;",
		"d -exec rm {} ; -name x.go -exec cat {} ;",
		"d -name x.go -o -exec rm {} ;",
		"d -name -exec rm {} ;",
		"d -name * -exec rm {} ; -iname a -delete -exec cat {} +",
		"d -exec sh -c -name ; -exec rm {} ;",
		"d ! -name x -exec rm {} ;",
	} {
		args := words(line)
		var at []int
		for i, f := range args {
			if findExecActions.has(f.val) {
				at = append(at, i)
			}
		}
		at = append(at, len(args))
		got := findFilteredAt(args, at)
		for j, k := range at {
			if want := findNameFilteredSlow(args[:k]); got[j] != want {
				t.Errorf("%q prefix %d: got %v, want %v", line, k, got[j], want)
			}
		}
	}
}

// findNameFilteredSlow is the per-prefix scan findFilteredAt replaces.
func findNameFilteredSlow(args []field) bool {
	filtered := false
	for i := 0; i < len(args); i++ {
		switch f := args[i]; {
		case findExecActions.has(f.val):
			for i+1 < len(args) && args[i+1].val != ";" && args[i+1].val != "+" {
				i++
			}
		case findBranching.has(f.val):
			return false
		case findNameTests.has(f.val) && i+1 < len(args):
			if p := args[i+1]; !p.dyn && strings.Trim(p.val, "*?.^$/") != "" {
				filtered = true
			}
		}
	}
	return filtered
}

func TestFindPasteSize(t *testing.T) {
	for _, tc := range []struct {
		roots, words   string
		total, largest int
	}{
		{".", "rm {}", 1, 1},
		{". ab", "rm {} x{}y{}", 1 + 2 + 4 + 6, 6},
		{"aaaa b", "cat -- {}{}", 8 + 2, 8},
		{"a", "echo x", 0, 0},
	} {
		u := &unit{findRoots: words(tc.roots)}
		var built, longest int
		for _, f := range expandFindRoots(u, words(tc.words)) {
			if f.val != "rm" && f.val != "cat" && f.val != "--" && f.val != "echo" && f.val != "x" {
				built += len(f.val)
				longest = max(longest, len(f.val))
			}
		}
		total, largest := findPasteSize(words(tc.roots), words(tc.words))
		if total != tc.total || largest != tc.largest || total != built || largest != longest {
			t.Errorf("%q %q: got %d/%d, want %d/%d (built %d/%d)", tc.roots, tc.words, total, largest, tc.total, tc.largest, built, longest)
		}
	}
}

func TestJoinLits(t *testing.T) {
	for _, tc := range []struct {
		word string
		want []string // the parts' types: literal values, or "$" for others
	}{
		{"{}{}x", []string{"{}{}x"}},
		{"{}$X{}{}", []string{"{}", "$", "{}{}"}},
		{"a{b,c}d", []string{"a", "$", "d"}},
	} {
		f, err := syntax.NewParser().Parse(strings.NewReader("echo "+tc.word), "")
		if err != nil {
			t.Fatal(err)
		}
		w := f.Stmts[0].Cmd.(*syntax.CallExpr).Args[1]
		syntax.SplitBraces(w)
		var got []string
		for _, p := range joinLits(w.Parts) {
			if l, ok := p.(*syntax.Lit); ok {
				got = append(got, l.Value)
			} else {
				got = append(got, "$")
			}
		}
		if strings.Join(got, "|") != strings.Join(tc.want, "|") {
			t.Errorf("%q: got %q, want %q", tc.word, got, tc.want)
		}
	}
}
