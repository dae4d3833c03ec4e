package classify

import (
	"encoding/json"
	"strings"
)

// composer runs the scripts of composer.json with the shell: run-script
// (run) NAME, a script's name as a command (composer test), and the event
// scripts of nearly every command (post-install-cmd, post-autoload-dump,
// pre-update-cmd, …). As with npm and package.json (convention.go), every
// script of a composer.json the line wrote is judged for any composer
// command (found by red-team round 61).

// composerAliases are the words composer's scripts begin with that stand
// for a command: @php and @composer run those programs, @putenv sets a
// variable for the scripts after it.
var composerAliases = map[string]string{"@php": "php", "@composer": "composer", "@putenv": "export"}

// composerCode judges the scripts of the composer.json (or the file
// $COMPOSER names) in composer's working directory (-d, --working-dir)
// that the line wrote.
func (a *analyzer) composerCode(u *unit) {
	dir := lastOptValue(u, "d", "--working-dir")
	file := field{val: "composer.json"}
	if f, ok := a.envField(u, "COMPOSER"); ok {
		file = f
	}
	for _, t := range a.writtenTexts(u, dir, file) {
		for _, s := range composerScripts(t) {
			a.shellString(u, field{val: s})
		}
	}
}

// composerScripts returns the shell commands of every script of a
// composer.json text: a script is a string or a list of them; a word
// starting with @ is an alias (composerAliases) or another script's name
// (judged as itself); a Class::method callback runs PHP, not the shell.
func composerScripts(text string) []string {
	var c struct {
		Scripts map[string]json.RawMessage `json:"scripts"`
	}
	if json.Unmarshal([]byte(text), &c) != nil {
		return nil
	}
	var out []string
	for _, raw := range c.Scripts {
		var list []string
		var one string
		if json.Unmarshal(raw, &one) == nil {
			list = []string{one}
		} else {
			_ = json.Unmarshal(raw, &list)
		}
		for _, s := range list {
			s = strings.TrimSpace(s)
			if strings.Contains(s, "::") && !strings.ContainsAny(s, " \t") {
				continue // Vendor\Class::method: PHP that composer calls
			}
			if strings.HasPrefix(s, "@") {
				first, rest, _ := strings.Cut(s, " ")
				prog, ok := composerAliases[first]
				if !ok {
					continue // @other-script
				}
				s = prog + " " + rest
			}
			out = append(out, s)
		}
	}
	return out
}
