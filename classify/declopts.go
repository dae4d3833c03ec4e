package classify

import (
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// One reading of the options of declare, typeset, local, readonly,
// export and nameref serves the declaration clause (its words after quote
// removal, declWords: "-n", '-i', -""n alike) and declare behind builtin
// or command (its expanded fields), so the two cannot drift. Bash stops
// reading options at -- and at the first word that is not one. An option
// word only known at run time (o=-n; declare $o r=c) may be any option:
// its names may become namerefs, integers, readonly, lower-case … (see
// dynDecl).

// declSpec is what a declaration's options say.
type declSpec struct {
	set, unset uint8 // attributes set (-i) and cleared (+i)
	nameref    bool  // -n: the names become namerefs
	global     bool  // -g: not local to the function
	drop       bool  // +n: the names stop being namerefs
	noVars     bool  // -f, -F, -p: functions or a listing, no variable changes
	invalid    bool  // an option some bash lacks: the builtin may fail
	dyn        bool  // an option word only known at run time
	names      []field
}

// declAttrBits are the option letters that give a variable an attribute
// that changes what later assignments store.
var declAttrBits = map[rune]uint8{
	'l': attrLower, 'u': attrUpper, 'c': attrCap, 'r': attrReadonly, 'i': attrInt, 'A': attrAssoc,
}

// isDeclVariant reports whether variant takes declare's options (-n, -g).
func isDeclVariant(variant string) bool {
	return variant == "declare" || variant == "typeset" || variant == "local"
}

// readDeclOpts reads a declaration's words (dyn marks one only known at
// run time): its options, and the words after them (names, NAME=VALUE).
// A run-time word may be an option: the words after it are still read as
// options where they look like one.
func readDeclOpts(variant string, words []field) declSpec {
	var s declSpec
	switch variant {
	case "readonly":
		s.set = attrReadonly
	case "nameref":
		s.nameref = true
	}
	i := 0
	for ; i < len(words); i++ {
		w := words[i]
		if w.dyn {
			s.dyn = true
			continue
		}
		if w.val == "--" {
			i++
			break
		}
		if len(w.val) < 2 || w.val[0] != '-' && w.val[0] != '+' {
			break
		}
		s.option(variant, w.val)
	}
	s.names = words[i:]
	switch {
	case s.noVars:
		s.set, s.unset, s.nameref, s.drop, s.names = 0, 0, false, false, nil
	case s.dyn:
		s.set |= attrInt | attrMixed // may be -i, -l …: arithmetic is judged, the value left to run time
	}
	return s
}

// option reads one option word (-rn, +x).
func (s *declSpec) option(variant, w string) {
	minus := w[0] == '-'
	for _, c := range w[1:] {
		switch {
		case slices.Contains(declNoDrop, string(w[0])+string(c)):
			s.noVars = true
		case isDeclVariant(variant) && c == 'n':
			s.nameref = s.nameref || minus
			s.drop = s.drop || !minus
		case isDeclVariant(variant) && c == 'g' && minus:
			s.global = true
		}
		if !strings.ContainsRune(declOpts, c) {
			s.invalid = true
		}
		bit := declAttrBits[c]
		if minus {
			s.set |= bit
		} else {
			s.unset |= bit &^ attrReadonly // +r cannot undo readonly
		}
	}
}

// dynDecl follows a name given to a declaration with an option only
// known at run time: it may have become a nameref. Joining the states
// with and without the link gives a link whose target is only known at
// run time, set here directly: a write through it may set any variable.
// The attributes it may have got (readDeclOpts: attrInt|attrMixed) make
// later assignments to it judged as arithmetic, their value left to run
// time.
func (a *analyzer) dynDecl(name string) {
	if !isVarName(name) {
		return
	}
	if a.refs == nil {
		a.refs = map[string]string{}
	}
	if _, ok := a.refs[name]; !ok {
		a.refs[name] = refRuntime
	}
}

// declName follows a name given without a value to declare behind
// builtin or command (builtin declare -i x; -n r; -r X), as the
// declaration clause does.
func (a *analyzer) declName(name string, fl declFlags, readonly, dyn bool) {
	if !isVarName(name) || nameTables.has(a.refName(name)) {
		return
	}
	switch {
	case dyn:
		a.setAttrs(name, fl.set, fl.unset)
		a.dynDecl(name)
		return
	case fl.nameref:
		a.declareRef(&syntax.Assign{Name: &syntax.Lit{Value: name}})
		return
	case (fl.set|fl.unset)&(attrCase|attrInt|attrAssoc) != 0:
		a.setAttrs(name, fl.set, fl.unset)
	}
	if readonly {
		a.markReadonly(name)
	}
}
