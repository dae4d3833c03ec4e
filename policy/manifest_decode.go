package policy

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"

	"github.com/agentbox-dev/agentbox/internal/termsafe"
)

// decoder walks the yaml.Node tree of a manifest and collects every error
// with its position instead of stopping at the first.
type decoder struct {
	file  string
	base  string
	home  string
	m     *Manifest
	errs  []ManifestError
	warns []ManifestError

	homeLooked bool
}

// field is one key of a mapping and what to do with its value. where is the
// dotted path of the value, for messages.
type field struct {
	key string
	set func(val *yaml.Node, where string)
}

func (d *decoder) errorAt(line, col int, format string, args ...any) {
	if line < 1 {
		line = 1
	}
	if col < 1 {
		col = 1
	}
	d.errs = append(d.errs, ManifestError{File: d.file, Line: line, Col: col, Msg: fmt.Sprintf(format, args...)})
}

func (d *decoder) errorf(n *yaml.Node, format string, args ...any) {
	d.errorAt(n.Line, n.Column, format, args...)
}

func (d *decoder) warnf(pos Position, format string, args ...any) {
	d.warns = append(d.warns, ManifestError{File: d.file, Line: pos.Line, Col: pos.Col, Msg: fmt.Sprintf(format, args...)})
}

func posOf(n *yaml.Node) Position { return Position{Line: n.Line, Col: n.Column} }

// yamlLineRE extracts the line from the YAML parser's syntax errors, which
// carry no column.
var yamlLineRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^yaml: line (\d+): (.*)$`) })

// decode parses data and fills d.m.
func (d *decoder) decode(data []byte) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			d.errorAt(1, 1, "the manifest is empty; it needs at least a name (e.g. name: my-agent)")
			return
		}
		d.syntaxError(err, data)
		return
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); err == nil {
		d.errorAt(extra.Line, extra.Column, "a manifest is one YAML document; remove this second document (and the --- before it)")
	} else if !errors.Is(err, io.EOF) {
		d.syntaxError(err, data)
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) != 1 {
		d.errorAt(1, 1, "the manifest is empty; it needs at least a name (e.g. name: my-agent)")
		return
	}
	root := doc.Content[0]
	if !d.expectMapping(root, "the manifest") {
		return
	}
	var nameSeen bool
	d.mapping(root, "", []field{
		{"name", func(v *yaml.Node, w string) { nameSeen = true; d.name(v, w) }},
		{"version", d.version},
		{"description", func(v *yaml.Node, w string) { d.m.Description, _ = d.text(v, w) }},
		{"runtime", d.runtime},
		{"permissions", d.permissions},
		{"limits", d.limits},
		{"audit", d.audit},
	})
	if !nameSeen {
		d.errorf(root, "missing required key \"name\" (e.g. name: my-agent)")
	}
	d.crossChecks()
}

func (d *decoder) syntaxError(err error, data []byte) {
	msg := err.Error()
	line := 1
	if m := yamlLineRE().FindStringSubmatch(msg); m != nil {
		line, _ = strconv.Atoi(m[1])
		msg = m[2]
	} else {
		msg = strings.TrimPrefix(msg, "yaml: ")
	}
	// A tab in the indentation is the usual cause of "found character
	// that cannot start any token", which does not say so; "found a tab
	// character that violates indentation" names the line before.
	lines := []int{line}
	if strings.Contains(msg, "tab character") {
		lines = append(lines, line+1)
	}
	for _, l := range lines {
		if col := tabIndent(data, l); col > 0 {
			d.errorAt(l, col, "YAML syntax error: a tab indents this line, and YAML indents with spaces only; replace the tab with spaces")
			return
		}
	}
	// The parser reports no column; 1 keeps the FILE:LINE:COL shape.
	d.errorAt(line, 1, "YAML syntax error: %s", msg)
}

// tabIndent returns the 1-based column of the first tab in the
// indentation of line (1-based) of data, or 0 when it has none.
func tabIndent(data []byte, line int) int {
	lines := bytes.Split(data, []byte("\n"))
	if line < 1 || line > len(lines) {
		return 0
	}
	l := lines[line-1]
	indent := l[:len(l)-len(bytes.TrimLeft(l, " \t"))]
	return bytes.IndexByte(indent, '\t') + 1
}

// join appends key to a dotted path.
func join(where, key string) string {
	if where == "" {
		return key
	}
	return where + "." + key
}

// plain checks what every node must satisfy (no aliases, merge keys or
// custom tags) and reports false after recording an error.
func (d *decoder) plain(n *yaml.Node, where string) bool {
	if n.Kind == yaml.AliasNode {
		d.errorf(n, "%s: YAML aliases (*%s) are not supported in manifests; write the value out", where, n.Value)
		return false
	}
	if strings.ContainsFunc(n.Tag, termsafe.IsControl) || !utf8.ValidString(n.Tag) {
		// YAML decodes %XX in tags: one could carry an escape sequence.
		d.errorf(n, "%s: YAML tag %q holds a control character; remove it", where, n.Tag)
		return false
	}
	if strings.HasPrefix(n.Tag, "!") && !strings.HasPrefix(n.Tag, "!!") && n.Tag != "!" {
		d.errorf(n, "%s: custom YAML tag %q is not supported; remove it", where, n.Tag)
		return false
	}
	return true
}

// describe names what a node is, for "must be X, not Y" messages.
func describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.AliasNode:
		return "an alias"
	case yaml.ScalarNode:
		switch n.ShortTag() {
		case "!!null":
			return "an empty value"
		case "!!str":
			return fmt.Sprintf("the string %q", n.Value)
		case "!!int":
			return "the integer " + n.Value
		case "!!float":
			return "the number " + n.Value
		case "!!bool":
			return "the boolean " + n.Value
		default:
			return fmt.Sprintf("a value tagged %q (%q)", n.ShortTag(), n.Value)
		}
	}
	return "an unknown YAML node"
}

func (d *decoder) wrongType(n *yaml.Node, where, want string) {
	hint := ""
	quoted := n.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle) != 0
	switch {
	case n.Kind != yaml.ScalarNode || n.ShortTag() != "!!str":
	case strings.Contains(want, "integer"):
		if _, err := strconv.ParseInt(n.Value, 10, 64); err == nil && quoted {
			hint = " (remove the quotes)"
		}
	case want == "true or false":
		switch v := strings.ToLower(n.Value); {
		case quoted && (v == "true" || v == "false"):
			hint = " (remove the quotes)"
		case slices.Contains([]string{"yes", "no", "on", "off", "y", "n"}, v):
			hint = " (write true or false)"
		}
	}
	d.errorf(n, "%s must be %s, not %s%s", where, want, describe(n), hint)
}

func isNull(n *yaml.Node) bool { return n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null" }

func (d *decoder) expectMapping(n *yaml.Node, where string) bool {
	if !d.plain(n, where) {
		return false
	}
	if n.Kind != yaml.MappingNode {
		d.wrongType(n, where, "a mapping of keys to values")
		return false
	}
	return true
}

// mapping checks that n is a mapping whose keys are all in fields, each at
// most once, and calls each field's set with its value. A null n is an empty
// mapping.
func (d *decoder) mapping(n *yaml.Node, where string, fields []field) {
	if isNull(n) || !d.expectMapping(n, nameOr(where)) {
		return
	}
	seen := map[string]*yaml.Node{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if !d.plain(k, nameOr(where)) {
			continue
		}
		if k.Kind != yaml.ScalarNode || k.ShortTag() == "!!merge" {
			if k.ShortTag() == "!!merge" {
				d.errorf(k, "merge keys (<<) are not supported in manifests; write the keys out")
			} else {
				d.errorf(k, "keys in %s must be plain names, not %s", nameOr(where), describe(k))
			}
			continue
		}
		if first, dup := seen[k.Value]; dup {
			d.errorf(k, "duplicate key %q in %s (first set at line %d); keep only one", k.Value, nameOr(where), first.Line)
			continue
		}
		seen[k.Value] = k
		f := findField(fields, k.Value)
		if f == nil {
			d.unknownKey(k, where, fields)
			continue
		}
		if d.m.keys == nil {
			d.m.keys = map[string]Position{}
		}
		d.m.keys[join(where, k.Value)] = posOf(k)
		f.set(v, join(where, k.Value))
	}
}

func nameOr(where string) string {
	if where == "" {
		return "the manifest"
	}
	return where
}

func findField(fields []field, key string) *field {
	for i := range fields {
		if fields[i].key == key {
			return &fields[i]
		}
	}
	return nil
}

func (d *decoder) unknownKey(k *yaml.Node, where string, fields []field) {
	keys := make([]string, len(fields))
	for i, f := range fields {
		keys[i] = f.key
	}
	if s := suggest(k.Value, keys); s != "" {
		d.errorf(k, "unknown key %q in %s (did you mean %q?)", k.Value, nameOr(where), s)
		return
	}
	d.errorf(k, "unknown key %q in %s; allowed keys: %s", k.Value, nameOr(where), strings.Join(keys, ", "))
}

// str decodes a string scalar; want describes the expected value.
func (d *decoder) str(n *yaml.Node, where, want string) (string, bool) {
	if !d.plain(n, where) {
		return "", false
	}
	if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!str" {
		d.wrongType(n, where, want)
		return "", false
	}
	if !d.printable(n, where, false) {
		return "", false
	}
	return n.Value, true
}

// printable reports whether n's value is free of control characters,
// refusing it with an error otherwise. Manifest strings reach the
// operator's terminal (validate's summary, run's banner, errors), where an
// escape sequence, a line break or a bidirectional override could hide or
// rewrite what the manifest grants. lineBreaks admits tabs and line breaks
// (not U+2028/U+2029), for free text that is folded onto one line before
// it is printed.
func (d *decoder) printable(n *yaml.Node, where string, lineBreaks bool) bool {
	for _, r := range n.Value {
		if lineBreaks && (r == '\t' || r == '\n' || r == '\r') {
			continue
		}
		if termsafe.IsControl(r) {
			d.errorf(n, "%s: contains a control character (U+%04X); remove it", where, r)
			return false
		}
		// Outside free text, nor an invisible one: a path or name that
		// shows as another would mislead whoever reads the summary.
		if !lineBreaks && termsafe.Invisible(r) {
			d.errorf(n, "%s: contains an invisible character (U+%04X); remove it", where, r)
			return false
		}
	}
	return true
}

// text decodes free text, which may run over several lines.
func (d *decoder) text(n *yaml.Node, where string) (string, bool) {
	if !d.plain(n, where) {
		return "", false
	}
	if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!str" {
		d.wrongType(n, where, "a string")
		return "", false
	}
	if !d.printable(n, where, true) {
		return "", false
	}
	return n.Value, true
}

// boolean decodes true or false; anything else is an error and false.
func (d *decoder) boolean(n *yaml.Node, where string) bool {
	if !d.plain(n, where) {
		return false
	}
	if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!bool" {
		d.wrongType(n, where, "true or false")
		return false
	}
	return strings.EqualFold(n.Value, "true")
}

// list calls each for every item of a sequence. A null n is an empty list.
func (d *decoder) list(n *yaml.Node, where string, each func(item *yaml.Node, where string)) {
	if isNull(n) || !d.plain(n, where) {
		return
	}
	if n.Kind != yaml.SequenceNode {
		hint := ""
		if n.Kind == yaml.ScalarNode {
			hint = fmt.Sprintf(" (write [%q])", n.Value)
		}
		d.errorf(n, "%s must be a list, not %s%s", where, describe(n), hint)
		return
	}
	for i, item := range n.Content {
		each(item, fmt.Sprintf("%s[%d]", where, i))
	}
}

// strList decodes a list of non-empty strings, warning about duplicates.
func (d *decoder) strList(n *yaml.Node, where, want string, each func(s string, item *yaml.Node, where string)) {
	seen := map[string]int{}
	d.list(n, where, func(item *yaml.Node, w string) {
		s, ok := d.str(item, w, want)
		if !ok {
			return
		}
		if s == "" {
			d.errorf(item, "%s is empty; remove it or write %s", w, want)
			return
		}
		if line, dup := seen[s]; dup {
			d.warnf(posOf(item), "%s: %q is listed twice (also at line %d)", where, s, line)
			return
		}
		seen[s] = item.Line
		each(s, item, w)
	})
}

// positiveInt decodes an integer greater than zero, at most limit; absent
// says what leaving the key out gives.
func (d *decoder) positiveInt(n *yaml.Node, where string, limit int64, absent string) (int64, bool) {
	if !d.plain(n, where) {
		return 0, false
	}
	if n.Kind == yaml.ScalarNode && n.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle) == 0 {
		digits := strings.TrimLeft(n.Value, "+-")
		switch {
		case len(digits) > 1 && digits[0] == '0' && strings.Trim(digits, "0123456789_") == "":
			// YAML 1.1 reads 017 as octal 15; no reader expects that.
			d.errorf(n, "%s: %s has a leading zero, which YAML reads as octal; write %s", where, n.Value, cmp.Or(strings.TrimLeft(digits, "0_"), "0"))
			return 0, false
		case len(digits) > 1 && digits[0] == '0' && strings.ContainsRune("xXoObB", rune(digits[1])):
			var v int64
			if err := n.Decode(&v); err == nil {
				d.errorf(n, "%s: write %s in decimal, %d", where, n.Value, v)
			} else {
				d.errorf(n, "%s: write %s in decimal", where, n.Value)
			}
			return 0, false
		case digits != "" && strings.Trim(digits, "0123456789_") == "" && n.ShortTag() != "!!int" && !strings.HasPrefix(n.Value, "-"):
			// Past what an integer holds, YAML makes it a float.
			d.errorf(n, "%s is too large (at most %d)", where, limit)
			return 0, false
		}
	}
	if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!int" {
		d.wrongType(n, where, "an integer greater than 0")
		return 0, false
	}
	var v int64
	if err := n.Decode(&v); err != nil || v > limit {
		d.errorf(n, "%s is too large (at most %d)", where, limit)
		return 0, false
	}
	if v <= 0 {
		d.errorf(n, "%s must be greater than 0, not %d; remove the key for %s", where, v, absent)
		return 0, false
	}
	return v, true
}

// isName reports whether name has the syntax of agent names,
// [a-z0-9][a-z0-9-]* (a DNS label's).
func isName(name string) bool {
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || i > 0 && c == '-') {
			return false
		}
	}
	return name != ""
}

// maxNameLen is the longest agent name (a DNS label's limit).
const maxNameLen = 63

// CheckName reports whether name is a valid agent name.
func CheckName(name string) error {
	switch {
	case name == "":
		return errors.New("name is empty; use lowercase letters, digits and hyphens (e.g. my-agent)")
	case len(name) > maxNameLen:
		return fmt.Errorf("name is %d characters long; the limit is %d", len(name), maxNameLen)
	case !isName(name):
		msg := fmt.Sprintf("name %q is not valid: use lowercase letters, digits and hyphens, starting with a letter or digit", name)
		if s := suggestName(name); s != "" && s != name {
			msg += fmt.Sprintf(" (e.g. %q)", s)
		}
		return errors.New(msg)
	}
	return nil
}

// latinLetters transliterates the accented Latin letters of lower-case
// names: a name with other letters gets no suggestion.
var latinLetters = strings.NewReplacer(
	"à", "a", "á", "a", "â", "a", "ã", "a", "ä", "a", "å", "a", "ā", "a", "ą", "a", "æ", "ae",
	"ç", "c", "ć", "c", "č", "c", "ď", "d", "đ", "d", "è", "e", "é", "e", "ê", "e", "ë", "e", "ē", "e", "ę", "e", "ě", "e",
	"ğ", "g", "ì", "i", "í", "i", "î", "i", "ï", "i", "ī", "i", "ı", "i", "ł", "l", "ñ", "n", "ń", "n", "ň", "n",
	"ò", "o", "ó", "o", "ô", "o", "õ", "o", "ö", "o", "ø", "o", "ō", "o", "ő", "o", "œ", "oe",
	"ř", "r", "ś", "s", "š", "s", "ş", "s", "ß", "ss", "ť", "t", "ţ", "t",
	"ù", "u", "ú", "u", "û", "u", "ü", "u", "ū", "u", "ů", "u", "ű", "u", "ý", "y", "ÿ", "y", "ź", "z", "ż", "z", "ž", "z",
)

// suggestName maps name to the nearest valid name, or "" when none is near.
func suggestName(name string) string {
	var b strings.Builder
	for _, r := range latinLetters.Replace(strings.ToLower(name)) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
			b.WriteRune(r)
		case unicode.IsLetter(r):
			return "" // dropping it would change the name past recognition
		default:
			b.WriteByte('-')
		}
	}
	s := strings.Trim(b.String(), "-")
	for strings.Contains(s, "--") {
		s = strings.ReplaceAll(s, "--", "-")
	}
	if len(s) > maxNameLen {
		s = strings.TrimRight(s[:maxNameLen], "-")
	}
	return s
}

func (d *decoder) name(n *yaml.Node, where string) {
	s, ok := d.str(n, where, "a string such as my-agent")
	if !ok {
		return
	}
	if err := CheckName(s); err != nil {
		d.errorf(n, "%v", err)
		return
	}
	d.m.Name = s
}

func (d *decoder) version(n *yaml.Node, where string) {
	if !d.plain(n, where) {
		return
	}
	// A bare 1.0 or 2 is a number to YAML; its literal text is kept.
	if n.Kind != yaml.ScalarNode || (n.ShortTag() != "!!str" && n.ShortTag() != "!!int" && n.ShortTag() != "!!float") {
		d.wrongType(n, where, "a string such as \"1.0.0\"")
		return
	}
	if !d.printable(n, where, false) {
		return
	}
	d.m.Version = n.Value
}

func (d *decoder) runtime(n *yaml.Node, where string) {
	s, ok := d.str(n, where, "one of native, gvisor, docker, firecracker")
	if !ok {
		return
	}
	names := make([]string, len(Runtimes))
	for i, r := range Runtimes {
		names[i] = string(r)
		if string(r) == s {
			d.m.Runtime = r
			return
		}
	}
	msg := fmt.Sprintf("runtime %q is not one of %s", s, strings.Join(names, ", "))
	if sug := suggest(s, names); sug != "" {
		msg += fmt.Sprintf(" (did you mean %q?)", sug)
	}
	d.errorf(n, "%s", msg)
}

// homeDir returns the home directory for "~", looking it up once.
func (d *decoder) homeDir() string {
	if d.home == "" && !d.homeLooked {
		d.homeLooked = true
		if h, err := os.UserHomeDir(); err == nil {
			d.home = h
		}
	}
	return d.home
}

// shellExpansion reports whether s holds, anywhere, what a shell would
// expand and a manifest does not: $NAME, ${…}, $(…), `…` (/home/$USER/.ssh).
func shellExpansion(s string) bool {
	if strings.Contains(s, "`") {
		return true // `whoami` (red-team round 53)
	}
	for i := 0; i < len(s)-1; i++ {
		if c := s[i+1]; s[i] == '$' && (c == '{' || c == '(' || c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z') {
			return true
		}
	}
	return false
}

// braceExpansion reports whether s holds a brace expansion a shell would
// expand ({a,b}, {1..3}): a pattern too (red-team round 53).
func braceExpansion(s string) bool {
	i := strings.IndexByte(s, '{')
	if i < 0 {
		return false
	}
	inner, _, ok := strings.Cut(s[i+1:], "}")
	return ok && (strings.Contains(inner, ",") || strings.Contains(inner, ".."))
}

// path decodes one path entry.
func (d *decoder) path(n *yaml.Node, where string) (PathRule, bool) {
	var s string
	if n.Kind == yaml.ScalarNode && n.Tag == "!!null" && n.Style == 0 && n.Value == "~" {
		// YAML reads a bare ~ as null; where a path is expected it is home.
		s = "~"
	} else if v, ok := d.str(n, where, "a path string"); ok {
		s = v
	} else {
		return PathRule{}, false
	}
	if s != "" && strings.TrimSpace(s) == "" {
		d.errorf(n, "%s: %q is blank; remove it or write a path", where, s)
		return PathRule{}, false
	}
	if strings.TrimSpace(s) != s {
		d.errorf(n, "%s: %q starts or ends with white space, which names another file than it shows; remove it", where, s)
		return PathRule{}, false
	}
	home := ""
	if s == "~" || strings.HasPrefix(s, "~/") {
		home = d.homeDir()
	}
	p, err := ExpandPath(s, home, d.base)
	if err != nil {
		d.errorf(n, "%s: %v", where, err)
		return PathRule{}, false
	}
	if strings.ContainsAny(s, globChars) || braceExpansion(s) {
		if _, err := os.Lstat(p); err != nil {
			d.errorf(n, "%s: %q is a pattern, and paths here are not patterns (it would match only a file of that very name, which does not exist): list each path", where, s)
			return PathRule{}, false
		}
	}
	if shellExpansion(s) {
		if _, err := os.Lstat(p); err != nil {
			d.errorf(n, "%s: %q names an environment variable or a command's output ($NAME, ${…}, $(…), `…`), and manifests expand none (it would name a file of that very name, which does not exist): write ~/ for the home, or the path itself", where, s)
			return PathRule{}, false
		}
	}
	return PathRule{Raw: s, Path: p, Pos: posOf(n)}, true
}

// globChars are the characters a pattern is written with; a path rule
// holding one names a file of that very name, and unless one exists the
// author meant a pattern, which a rule that matches nothing would betray
// in silence (a deny of "*.pem" that denies nothing).
const globChars = "*?["

// maxMemoryMB keeps MaxMemoryBytes from overflowing.
const maxMemoryMB = math.MaxInt64 >> 20
