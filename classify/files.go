package classify

import (
	"slices"
	"strings"
)

// Files written on the line are not part of the shell's state (they
// outlive a subshell), but a write on a path that may not be taken (a
// branch, a loop body, a function never called, a background job racing
// what follows) may not have happened: the file may hold the text before
// it or the one written. analyzer.files keeps every text a file may hold,
// separated by altSep, and running the file judges each.

// altSep separates the texts a file written on the line may hold.
const altSep = "\x00or\x00"

// fileKey is the analyzer.files key of the path f: resolved against the
// working directory cwd the analysis follows and through the links the line
// made, so that a file written before a cd is found after it (echo … >
// d/s.sh; cd d; sh s.sh) and through a link (ln -s s.sh t.sh; sh t.sh).
func fileKey(cwd string, links map[string]string, f field) string {
	if f.dyn {
		return cleanTarget(f.val)
	}
	g := f
	g.val = writeThrough(links, f.val)
	return cleanTarget(resolveIn(cwd, g).val)
}

// fileTexts returns the texts a file may hold (analyzer.files value).
func fileTexts(s string) []string { return strings.Split(s, altSep) }

// writeFile records that the file key now holds text (appended to what it
// held when app), or, on a path that may not be taken (unsure), may.
func (a *analyzer) writeFile(key, text string, app bool) {
	if a.files == nil {
		a.files = map[string]string{}
	}
	old, had := a.files[key]
	texts := []string{text}
	if app {
		texts = nil
		for _, t := range fileTexts(old) {
			texts = append(texts, t+text)
		}
	}
	if a.unsure > 0 && had {
		texts = append(fileTexts(old), texts...)
	}
	slices.Sort(texts)
	texts = slices.Compact(texts)
	s := strings.Join(texts, altSep)
	switch {
	case len(texts) > maxFileTexts && slices.Contains(texts, downloaded):
		s = downloaded + altSep + "\x00unknown"
	case len(s) > maxValue || len(texts) > maxFileTexts:
		s = "\x00unknown"
	}
	a.files[key] = s
}

// maxFileTexts bounds the texts a file may hold: each append on a path
// that may not be taken (a loop body judged once per loop word) doubles
// them. Past it the text is unknown, as past maxValue (a download kept).
const maxFileTexts = 16
