package classify

import "slices"

// traits say what kind of data a command writes to its standard output, or
// what a substitution produces. They travel down pipelines so that a shell at
// the end of `curl … | tee log | sh` knows its script came from the network.
type traits uint16

const (
	trDownload  traits = 1 << iota // fetched from the network (curl, wget -O-)
	trDecode                       // decoded or de-obfuscated (base64 -d, xxd -r, rev, gunzip)
	trHistory                      // the shell history (history, fc -l)
	trFile                         // the content of a named file (cat FILE)
	trUnknown                      // produced by a program the classifier cannot see into
	trProcSubst                    // a process substitution path (/dev/fd/N)
	trSocket                       // read from a raw network connection (nc, telnet, socat)
	trShellOut                     // the output of an interactive shell
)

// stream describes a flow of bytes: its traits and, when the classifier can
// compute it (echo, printf, a here-string), its exact text. When textKnown
// is false, text may still hold the parts of the flow that are known.
type stream struct {
	traits    traits
	text      string
	textKnown bool
	exact     bool     // text has no run-time part kept as its source ($X): a quoted here-string
	possible  string   // what echo or printf may print, each run-time part taken as empty or its default (never its source): followed where the output is evaluated as arithmetic
	tree      *[]field // names of the files below these directories (find DIR), resolved
	// lines, where the text is not known, are lines the output is made
	// of, some of them, in some order (a line filter's output of a known
	// text, the strings a program's code prints): each may run.
	lines string
}

// merge adds the traits of o to s; the text is kept only when both agree on it.
func (s *stream) merge(o stream) {
	s.traits |= o.traits
	s.addTree(o)
	if o.textKnown && !s.textKnown && s.traits&^trFile == o.traits&^trFile {
		s.text, s.textKnown, s.exact = o.text, true, o.exact
	}
}

// addTree adds the listed directories of o to s's: names from either
// listing may be in s (cat $(find ~ -type f)).
func (s *stream) addTree(o stream) {
	switch {
	case o.tree == nil || s.tree == o.tree:
	case s.tree == nil:
		s.tree = o.tree
	default:
		t := slices.Concat(*s.tree, *o.tree)
		s.tree = &t
	}
}

// literal returns a stream of known text.
func literal(text string) stream { return stream{text: text, textKnown: true} }

// executable reports whether the code a shell would run from s is risky, and
// names the rule that covers it; "" means the text is known or harmless.
func (s stream) execRule() string {
	switch {
	case s.traits&trDownload != 0:
		return RuleCurlPipeShell
	case s.traits&trDecode != 0:
		return RuleBase64PipeShell
	case s.traits&trHistory != 0:
		return RuleHistoryExec
	case s.traits&trUnknown != 0 && !s.textKnown:
		return RuleEvalExec
	}
	return ""
}
