package classify

import (
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// redirects expands the redirections of a statement. It returns the ones
// that name files, what feeds standard input when one does, and what
// here-documents and here-strings feed other descriptors (read -u 3 …
// 3<<< text).
func (a *analyzer) redirects(rs []*syntax.Redirect) ([]redir, *stream, map[string]stream) {
	var out []redir
	var stdin *stream
	var fds map[string]stream
	here := func(fd string, s stream) {
		if fd == "" || fd == "0" {
			stdin = &s
			return
		}
		if fds == nil {
			fds = map[string]stream{}
		}
		fds[fd] = s
	}
	for _, r := range rs {
		fd := ""
		if r.N != nil {
			fd = r.N.Value
		}
		switch r.Op {
		case syntax.Hdoc, syntax.DashHdoc:
			here(fd, a.heredoc(r))
			continue
		case syntax.WordHdoc:
			fs := a.expandWord(r.Word)
			s := joinStream(fs)
			s.text += "\n"
			here(fd, s)
			continue
		}
		fs := a.expandWord(r.Word)
		if len(fs) == 0 {
			continue
		}
		t := fs[0]
		rd := redir{op: r.Op, target: t, fd: fd}
		out = append(out, rd)
		if rd.isFileRead() && (fd == "" || fd == "0") {
			s := t.src
			if t.src.traits&trProcSubst == 0 {
				s.traits |= trFile
			}
			if w, ok := a.fileStream(a.cwd, a.links, t); ok {
				s = w // written (or downloaded) earlier on the line: bash < a
			}
			stdin = &s
		}
		if rd.isFileRead() && fd != "" && fd != "0" {
			if w, ok := a.fileStream(a.cwd, a.links, t); ok {
				here(fd, w) // bash 3<a <&3, read -u 3 3<a
			}
		}
		if r.Op == syntax.DplIn && isFD(t.val) && t.val != "-" && (fd == "" || fd == "0") {
			// bash <&3: what descriptor 3 reads, opened on this command
			// or by an earlier exec 3<a.
			n := strings.TrimSuffix(t.val, "-")
			if s, ok := fds[n]; ok {
				stdin = &s
			} else if s, ok := a.inFDs[n]; ok {
				stdin = &s
			}
		}
	}
	return out, stdin, fds
}

// fileStream returns what the file f holds when the line wrote (or
// downloaded) it: any of the texts it may hold.
func (a *analyzer) fileStream(cwd string, links map[string]string, f field) (stream, bool) {
	text, ok := a.files[fileKey(cwd, links, f)]
	if !ok || f.dyn {
		return stream{}, false
	}
	texts := fileTexts(text)
	if slices.Contains(texts, downloaded) {
		return stream{traits: trDownload}, true
	}
	if slices.ContainsFunc(texts, func(t string) bool { return strings.HasPrefix(t, "\x00") }) {
		// What a program wrote there is only known at run time (find ~ >
		// l; while read f; … done < l), not the marker's text.
		return stream{traits: trUnknown | trFile}, true
	}
	return literal(strings.Join(texts, "\n")), true
}

// heredoc returns the body of a here-document as a stream.
func (a *analyzer) heredoc(r *syntax.Redirect) stream {
	if r.Hdoc == nil {
		return literal("")
	}
	var b fieldBuilder
	for _, p := range r.Hdoc.Parts {
		a.expandPart(&b, p, true, false)
	}
	return joinStream(b.done())
}

// joinStream joins fields into a known text stream; run-time parts keep
// their source text, which a nested parse sees as expansions again.
func joinStream(fs []field) stream {
	s := stream{exact: true}
	var vals []string
	for _, f := range fs {
		s.traits |= f.src.traits
		vals = append(vals, f.val)
		s.exact = s.exact && !f.dyn
	}
	s.text, s.textKnown = strings.Join(vals, " "), true
	return s
}
