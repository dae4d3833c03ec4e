package classify

import (
	"errors"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Where the parser splits text into commands otherwise than bash and dash
// do, the text is first changed into one that both read alike, with the
// same commands: the line is then judged as the shells run it.
//
//   - A carriage return: the shells know no CRLF and read a CR as a
//     character of a word; the parser takes it for a blank (echo x<CR>#
//     ; rm -rf ~ read as echo x and a comment: TestRedteam42CRComment)
//     and backslash-CR-LF for a line continuation (echo a\<CR><LF>rm -rf
//     ~ read as one echo: TestRedteam42CRLFContinuation). Each CR becomes
//     \x01, a character of a word for the parser too.
//   - A comment that ends in a backslash: in the shells a comment runs to
//     the newline, a backslash in it plain text; the parser takes the
//     backslash-newline for a continuation and the next line's words for
//     more arguments of the command before the comment (echo # note\
//     rm -rf ~: TestRedteam42CommentContinuation). The backslash becomes
//     a space, which a comment does not see either.
//
// And where the parser reads a here-document otherwise than the shells
// (heredocs), the text is not judged: a parse error, escalated. A
// backslash in a double-quoted delimiter: <<"E\"F" ends at E"F in the
// shells, at E\"F for the parser, which reads the commands between as the
// document (TestRedteam42HeredocDelimEscape).

// maxCommentFixes bounds the parses commentEnds may make of one text.
const maxCommentFixes = 64

// wordCRs does the first change.
func wordCRs(text string) string {
	return strings.ReplaceAll(text, "\r", "\x01")
}

// commentEnds does the second, parsing the text again after each change;
// it returns the tree of the changed text and the text.
func commentEnds(lang syntax.LangVariant, f *syntax.File, text string) (*syntax.File, string, error) {
	if !strings.Contains(text, "#") || !strings.Contains(text, "\\\n") {
		return f, text, nil
	}
	for range maxCommentFixes {
		at := -1
		syntax.Walk(f, func(n syntax.Node) bool {
			if c, ok := n.(*syntax.Comment); ok && at < 0 && strings.HasSuffix(c.Text, "\\\n") {
				at = int(c.Hash.Offset()) + 1 + len(c.Text) - 2
			}
			return at < 0
		})
		if at < 0 || at >= len(text) || text[at] != '\\' {
			return f, text, nil
		}
		text = text[:at] + " " + text[at+1:]
		var err error
		if f, err = parseAs(lang, text); err != nil {
			return nil, text, err
		}
	}
	return nil, text, errors.New("too many comments that end in a backslash")
}

// heredocs reports a here-document the parser reads otherwise than the
// shells: one whose delimiter has a backslash in a double-quoted part, and
// one opened in a command substitution that closes on the same line,
// whose body the parser takes from the lines after it. The shells read a
// substitution in backquotes as a text of its own, as dash does $( ), so
// the document ends empty there and those lines are commands
// (echo `cat <<E` then rm -rf ~: TestRedteam43HeredocInSubst); bash reads
// the body of $( ) as the parser does.
func heredocs(f *syntax.File, lang syntax.LangVariant) error {
	var err error
	syntax.Walk(f, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.Redirect:
			if isHeredoc(n) && slices.ContainsFunc(n.Word.Parts, quotedBackslash) {
				err = errors.New("a backslash in a quoted here-document delimiter, which the shells and the classifier read differently")
			}
		case *syntax.CmdSubst:
			if n.Backquotes || lang != syntax.LangBash {
				syntax.Walk(n, func(m syntax.Node) bool {
					if r, ok := m.(*syntax.Redirect); ok && isHeredoc(r) && r.Hdoc != nil && r.Hdoc.Pos().After(n.Right) {
						err = errors.New("a here-document opened in a command substitution that ends on its line, which the shells and the classifier read differently")
					}
					return err == nil
				})
			}
		}
		return err == nil
	})
	return err
}

func isHeredoc(r *syntax.Redirect) bool {
	return (r.Op == syntax.Hdoc || r.Op == syntax.DashHdoc) && r.Word != nil
}

// quotedBackslash reports a double-quoted part holding a backslash.
func quotedBackslash(p syntax.WordPart) bool {
	dq, ok := p.(*syntax.DblQuoted)
	return ok && slices.ContainsFunc(dq.Parts, func(q syntax.WordPart) bool {
		l, ok := q.(*syntax.Lit)
		return ok && strings.Contains(l.Value, "\\")
	})
}
