package classify

import (
	"slices"
	"strings"
	"testing"
)

// After declare +n r / unset -n r, r is a plain variable: word expansion
// and arithmetic read r itself, no longer the old target.
func TestNamerefDroppedUse(t *testing.T) {
	c := Default()
	for _, tc := range []struct {
		command string
		want    Decision
	}{
		{`i=1; declare -n r=i; r=2; echo $((r))`, Allow}, // control
		{`i=1; declare -n r=i; declare +n r; echo $((r+1))`, Allow},
		{`i=1; declare -n r=i; declare +n r; r=/; i=2; rm -rf "$r"`, Forbidden},
		{`i=1; declare -n r=i; unset -n r; r=/; i=2; rm -rf "$r"`, Forbidden},
		{`i=1; declare -n r=i; typeset +n r; r=/; i=2; rm -rf "$r"`, Forbidden},
		{`i=/; declare -n r=i; declare +n r; r=build; rm -rf "$i"`, Forbidden}, // r=build no longer sets i
		{`i=1; declare -n r=i; unset -n r; echo "$r"`, Allow},
	} {
		if got := c.Classify(tc.command); got.Decision != tc.want {
			t.Errorf("%s: %s (rule %q), want %s", tc.command, got.Decision, got.Rule, tc.want)
		}
	}
}

// lits makes literal words; a word starting with $ is one only known at
// run time.
func lits(ws ...string) []field {
	var out []field
	for _, w := range ws {
		out = append(out, field{val: w, dyn: strings.HasPrefix(w, "$")})
	}
	return out
}

// declDrop and unsetDrop follow how bash parses the builtin's options.
func TestRefDropWords(t *testing.T) {
	for _, tc := range []struct {
		variant string
		words   []string
		inFunc  bool
		want    refDrop
		names   []string
	}{
		{"declare", []string{"+n", "r"}, false, dropSure, []string{"r"}},
		{"typeset", []string{"+n", "r=v", "s[0]"}, false, dropSure, []string{"r", "s"}},
		{"declare", []string{"-n", "+n", "r"}, false, dropSure, []string{"r"}}, // +n wins
		{"declare", []string{"+n", "+F", "r"}, false, dropSure, []string{"r"}},
		{"declare", []string{"+n", "--", "r"}, false, dropSure, []string{"r"}},
		{"declare", []string{"+n", "-f", "r"}, false, dropNone, nil},
		{"declare", []string{"-F", "+n", "r"}, false, dropNone, nil},
		{"declare", []string{"-p", "+n", "r"}, false, dropNone, nil},
		{"declare", []string{"--", "+n", "r"}, false, dropNone, nil},
		{"declare", []string{"r", "+n"}, false, dropNone, nil},
		{"declare", []string{"+nZ", "r"}, false, dropMaybe, []string{"r"}},
		{"declare", []string{"$o", "r"}, false, dropAny, nil},
		{"declare", []string{"+n", "$r"}, false, dropAny, nil},
		{"local", []string{"+n", "r"}, false, dropNone, nil},
		{"local", []string{"+n", "r"}, true, dropSure, []string{"r"}},
		{"export", []string{"+n", "r"}, false, dropNone, nil},
		{"unset", []string{"-n", "r"}, false, dropSure, []string{"r"}},
		{"unset", []string{"-vn", "--", "r"}, false, dropSure, []string{"r"}},
		{"unset", []string{"-fn", "r"}, false, dropNone, nil},
		{"unset", []string{"-n", "-f", "r"}, false, dropNone, nil},
		{"unset", []string{"--", "-n", "r"}, false, dropNone, nil},
		{"unset", []string{"-nZ", "r"}, false, dropMaybe, []string{"r"}},
		{"unset", []string{"$o", "r"}, false, dropAny, nil},
	} {
		var got refDrop
		var names []string
		if tc.variant == "unset" {
			got, names = unsetDrop(lits(tc.words...))
		} else {
			got, names = declDrop(tc.variant, lits(tc.words...), tc.inFunc)
		}
		if got != tc.want || !slices.Equal(names, tc.names) {
			t.Errorf("%s %q (in function %v): %d %q, want %d %q", tc.variant, tc.words, tc.inFunc, got, names, tc.want, tc.names)
		}
	}
}

// A drop the builtin surely makes keeps everyday lines as they were; one
// it may not make leaves the link's target only known at run time.
func TestRefDropVerdicts(t *testing.T) {
	c := Default()
	for _, tc := range []struct {
		command string
		want    Decision
	}{
		{`c=ls; declare -n r=c; declare "+n" r; r=pwd; $c`, Allow},
		{`c=ls; declare -n r=c; builtin declare +n r; r=pwd; $c`, Allow},
		{`c=ls; declare -n r=c; declare +n r 2>/dev/null; r=pwd; $c`, Allow},
		{`f() { local -n r=c; local +n r; r=/; rm -rf "$r"; }`, Forbidden}, // r itself
		{`c=ls; declare -n r=c; declare +n r=pwd; $c`, Allow},
		{`c=ls; declare -n r=c; unset -fn r; r=pwd; $c`, Allow}, // c=pwd
		{`c=/; declare -n r=c; declare +n r; rm -rf "$c"`, Forbidden},
	} {
		if got := c.Classify(tc.command); got.Decision != tc.want {
			t.Errorf("%s: %s (rule %q), want %s", tc.command, got.Decision, got.Rule, tc.want)
		}
	}
}

// declare behind builtin or command sets variables and namerefs as the
// bare declaration does.
func TestWrappedDecl(t *testing.T) {
	c := Default()
	for _, tc := range []struct {
		command string
		want    Decision
	}{
		{`c=ls; builtin declare c=pwd; $c`, Allow},
		{`c=ls; builtin declare c='rm -rf /'; $c`, Forbidden},
		{`c=ls; command declare 'c=rm -rf /'; $c`, Forbidden},
		{`c=ls; command typeset -n r=c; r='rm -rf /'; $c`, Forbidden},
		{`c=ls; builtin declare -n r=c; builtin declare +n r='rm -rf /'; $c`, Forbidden},
		{`c=ls; builtin local c='rm -rf /'; $c`, Allow}, // local fails outside a function
		{`c=ls; builtin declare -f c='rm -rf /'; $c`, Allow},
	} {
		if got := c.Classify(tc.command); got.Decision != tc.want {
			t.Errorf("%s: %s (rule %q), want %s", tc.command, got.Decision, got.Rule, tc.want)
		}
	}
}
