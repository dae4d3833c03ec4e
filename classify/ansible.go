package classify

import (
	"maps"
	"path"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Ansible runs commands on the hosts of its inventory, this machine among
// them (localhost, -c local, the implicit localhost), found by red-team
// round 60: the argument of an ad-hoc command's shell, command or raw
// module (-m, -a; command is the default), the tasks of a playbook, and
// what its inventories and ansible.cfg give it to run (ssh options with a
// ProxyCommand, an interpreter, a vault password script). The files it
// reads that the line wrote (playbooks, task files, roles, variables,
// inventories, ansible.cfg) are judged as the code they are; Jinja's
// {{ }} are run-time values, and its pipe lookups commands the controller
// runs.

// ansibleKeys are the keys (a module's name, a module's parameter, a
// variable or setting, namespace and ansible_ prefix dropped) whose value
// ansible runs, and how: 's' shell code (free-form shell, command, raw
// and their cmd), 'a' a list of words run as they are (argv), 'f' a script
// of the controller, its first word (script, vault_password_file), 'o'
// ssh's options, 'p' a program run (an interpreter), 'm' a module and its
// free-form argument (action, local_action).
var ansibleKeys = map[string]byte{
	"command": 's', "shell": 's', "raw": 's', "cmd": 's', "win_shell": 's', "win_command": 's',
	"argv": 'a', "script": 'f', "vault_password_file": 'f',
	"ssh_args": 'o', "ssh_common_args": 'o', "ssh_extra_args": 'o', "sftp_extra_args": 'o', "scp_extra_args": 'o',
	"python_interpreter": 'p', "shell_executable": 'p', "become_exe": 'p', "ssh_executable": 'p',
	"action": 'm', "local_action": 'm',
}

// ansibleFileModules are the modules that write the file one of their
// parameters names (file with state=absent removes it, recursively).
var ansibleFileModules = map[string][]string{
	"file": {"path", "dest", "name"}, "copy": {"dest"}, "template": {"dest"}, "lineinfile": {"path", "dest"},
	"blockinfile": {"path", "dest"}, "replace": {"path", "dest"}, "get_url": {"dest"}, "unarchive": {"dest"},
	"fetch": {"dest"}, "assemble": {"dest"}, "ini_file": {"path", "dest"},
}

// ansibleLookups are the lookup plugins that run or read what they are
// given: 's' a command, 'r' a file read.
var ansibleLookups = map[string]byte{"pipe": 's', "lines": 's', "file": 'r', "template": 'r', "unvault": 'r'}

// ansibleLookup matches lookup('NAME', 'TERM') (query, q too).
var ansibleLookup = lazyRegexp(`\b(?:lookup|query|q)\(\s*['"]([\w.]+)['"]\s*,\s*(?:'([^']*)'|"([^"]*)")`)

// jinjaExpr and jinjaStmt match Jinja's expressions and its statements
// and comments.
var (
	jinjaExpr = lazyRegexp(`(?s)\{\{.*?\}\}`)
	jinjaStmt = lazyRegexp(`(?s)\{%.*?%\}|\{#.*?#\}`)
)

// ansibleInlineVar matches a KEY=VALUE of an INI inventory's host line or
// of -e (a quoted value, or a word).
var ansibleInlineVar = lazyRegexp(`(?:^|\s)([A-Za-z_][\w.]*)=('[^']*'|"[^"]*"|\S*)`)

// ansibleNames are ansible's programs that run a module or a playbook.
var ansibleNames = newSet("ansible", "ansible-playbook", "ansible-console", "ansible-pull")

// ansibleCode judges what u, an ansible program, runs: an ad-hoc
// module's argument, and the files it reads that the line wrote.
func (a *analyzer) ansibleCode(u *unit) {
	if !ansibleNames.has(u.name) {
		return
	}
	if u.name == "ansible-pull" {
		u.script = &stream{traits: trDownload} // a playbook of the repository it clones
	}
	if u.name == "ansible" {
		a.ansibleAdHoc(u)
	}
	for _, e := range optValues(u, "e", "--extra-vars") {
		if f, ok := strings.CutPrefix(e.val, "@"); ok {
			e.val = f
			a.ansibleFile(u, e)
			continue
		}
		a.ansibleText(u, e.val)
	}
	files := []field{{val: "ansible.cfg"}}
	if f, ok := a.envField(u, "ANSIBLE_CONFIG"); ok {
		files = append(files, f)
	}
	files = append(files, optValues(u, "i", "--inventory", "--inventory-file")...)
	files = append(files, optValues(u, "", "--vault-password-file", "--vault-pass-file")...)
	for _, f := range optValues(u, "", "--vault-id") {
		if _, file, ok := strings.Cut(f.val, "@"); ok {
			f.val = file
		}
		files = append(files, f)
	}
	files = append(files, u.operands()...)
	for _, f := range files {
		a.ansibleFile(u, f)
	}
	// Task files, roles, handlers, group_vars and host_vars: found by
	// the names the playbook or the directory layout gives them.
	for _, key := range a.writtenFiles(func(k string) bool {
		e := path.Ext(k)
		return e == ".yml" || e == ".yaml" || strings.Contains(k, "group_vars/") || strings.Contains(k, "host_vars/")
	}) {
		a.ansibleFile(u, field{val: keyPath(u, key)})
	}
	for _, key := range a.writtenFiles(func(k string) bool {
		return path.Ext(k) == ".py" && (strings.Contains(k, "library/") || strings.Contains(k, "module_utils/") || strings.Contains(k, "_plugins/"))
	}) {
		for _, t := range a.keyTexts(u, key) {
			a.moreCode(u, "python", t) // modules and plugins beside the playbook
		}
	}
}

// ansibleAdHoc judges an ad-hoc command's module and its argument (-m,
// -a; the command module when no -m is given).
func (a *analyzer) ansibleAdHoc(u *unit) {
	mod := field{val: "command"}
	if m := lastOptValue(u, "m", "--module-name"); m != nil {
		mod = *m
	}
	for _, arg := range optValues(u, "a", "--args") {
		if arg.dyn && (mod.dyn || ansibleKeys[ansibleKey(mod.val)] != 0) {
			u.script = &stream{traits: trUnknown}
		}
		if mod.dyn {
			mod.val = "shell"
		}
		a.ansibleModule(u, mod.val, arg.val)
	}
}

// ansibleModule judges a module given a free-form argument (k=v
// parameters, and for shell, command and raw the command).
func (a *analyzer) ansibleModule(u *unit, mod, arg string) {
	a.ansibleLookups(u, arg)
	k := ansibleKey(mod)
	if _, ok := ansibleFileModules[k]; ok {
		params := map[string]any{}
		for _, m := range ansibleInlineVar().FindAllStringSubmatch(arg, -1) {
			params[m[1]] = unquoteOuter(m[2])
		}
		a.ansibleFileModule(u, k, params)
		return
	}
	a.ansibleSetting(u, mod, arg)
	for _, m := range ansibleInlineVar().FindAllStringSubmatch(arg, -1) {
		if ansibleKeys[ansibleKey(m[1])] != 'm' {
			a.ansibleSetting(u, m[1], unquoteOuter(m[2])) // expect's command=, shell's cmd=
		}
	}
}

// ansibleKey returns the name a key stands for: ansible.builtin.shell is
// shell, ansible_python_interpreter python_interpreter.
func ansibleKey(k string) string {
	k = strings.ToLower(strings.TrimSpace(k))
	k = k[strings.LastIndexByte(k, '.')+1:]
	return strings.TrimPrefix(k, "ansible_")
}

// ansibleFile judges a file ansible reads, where the line wrote it: a
// script (an inventory or a vault password script with #!) as run, YAML
// or JSON by its keys, anything else as INI (an inventory, ansible.cfg).
func (a *analyzer) ansibleFile(u *unit, f field) {
	for _, t := range a.writtenTexts(u, nil, f) {
		if strings.HasPrefix(t, "#!") {
			a.writtenScript(u, f.val, a.script)
			continue
		}
		a.ansibleText(u, t)
	}
}

// ansibleText judges a text ansible reads: YAML (JSON too) walked key by
// key, else INI settings and KEY=VALUE variables.
func (a *analyzer) ansibleText(u *unit, text string) {
	var v any
	if !iniHeaded(text) && yaml.Unmarshal([]byte(text), &v) == nil {
		switch v.(type) {
		case map[string]any, []any:
			a.ansibleWalk(u, v)
			return
		}
	}
	a.ansibleLookups(u, text)
	for _, e := range iniEntries(text) {
		key := e.key[strings.LastIndexAny(e.key, " \t")+1:]
		a.ansibleSetting(u, key, unquoteOuter(e.val))
	}
	for _, m := range ansibleInlineVar().FindAllStringSubmatch(text, -1) {
		a.ansibleSetting(u, m[1], unquoteOuter(m[2]))
	}
}

// iniHeaded reports whether a text's first setting line is an INI
// section header ([all], [defaults]), which YAML would read as a list.
func iniHeaded(text string) bool {
	for l := range strings.Lines(text) {
		t := strings.TrimSpace(l)
		if t == "" || t[0] == '#' || t[0] == ';' {
			continue
		}
		return strings.HasPrefix(t, "[") && strings.HasSuffix(t, "]") && !strings.ContainsAny(t, ",'\"")
	}
	return false
}

// ansibleWalk judges every key of a YAML document that ansible runs, and
// the lookups of its strings.
func (a *analyzer) ansibleWalk(u *unit, v any) {
	switch x := v.(type) {
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(x)) {
			val := x[k]
			switch s := val.(type) {
			case string:
				a.ansibleSetting(u, k, s)
			case []any:
				if ansibleKeys[ansibleKey(k)] == 'a' {
					var words []string
					for _, w := range s {
						if ws, ok := w.(string); ok {
							words = append(words, ws)
						}
					}
					a.shellString(u, field{val: ansibleArgv(words)})
				}
			case map[string]any:
				if _, ok := ansibleFileModules[ansibleKey(k)]; ok {
					a.ansibleFileModule(u, ansibleKey(k), s)
				}
			}
			a.ansibleWalk(u, val)
		}
	case []any:
		for _, e := range x {
			a.ansibleWalk(u, e)
		}
	case string:
		a.ansibleLookups(u, x)
	}
}

// ansibleSetting judges the value of one key, by what ansibleKeys says
// it is.
func (a *analyzer) ansibleSetting(u *unit, key, val string) {
	k := ansibleKey(key)
	switch ansibleKeys[k] {
	case 's':
		a.shellString(u, field{val: jinjaValue(val)})
	case 'f':
		if w := splitCmdline(val); len(w) > 0 {
			a.writtenScript(u, w[0], a.script)
		}
	case 'o':
		// ssh's options: the commands of -o ProxyCommand and the like.
		words := []field{{val: "ssh"}}
		for _, w := range splitCmdline(jinjaValue(val)) {
			words = append(words, field{val: w})
		}
		a.sshOptions(u.inner(u.name, words), sshValueLetters)
	case 'p':
		a.writtenScript(u, strings.TrimSpace(val), a.script)
	case 'm':
		mod, arg, _ := strings.Cut(strings.TrimSpace(val), " ")
		if ansibleKeys[ansibleKey(mod)] != 'm' {
			a.ansibleModule(u, mod, arg)
		}
	}
	if _, ok := ansibleFileModules[k]; ok && strings.Contains(val, "=") {
		a.ansibleModule(u, k, val) // file: path=~/.ssh state=absent
	}
}

// ansibleFileModule judges a file module's parameters: the file it
// writes, or with state=absent removes.
func (a *analyzer) ansibleFileModule(u *unit, mod string, params map[string]any) {
	for _, p := range ansibleFileModules[mod] {
		s, ok := params[p].(string)
		if !ok || s == "" {
			continue
		}
		f := field{val: jinjaValue(s), dyn: jinjaExpr().MatchString(s)}
		if state, _ := params["state"].(string); mod == "file" && state == "absent" {
			a.run(u.inner(u.name, []field{{val: "rm"}, {val: "-rf"}, f}))
			continue
		}
		a.toolWrite(u, f, unknownText, false)
	}
}

// ansibleLookups judges the lookups of a text: pipe and lines run their
// term as a command on the controller, file and template read it.
func (a *analyzer) ansibleLookups(u *unit, text string) {
	if !strings.Contains(text, "(") {
		return
	}
	for _, m := range ansibleLookup().FindAllStringSubmatch(text, -1) {
		term := m[2] + m[3]
		switch ansibleLookups[ansibleKey(m[1])] {
		case 's':
			a.shellString(u, field{val: jinjaValue(term)})
		case 'r':
			a.run(u.inner(u.name, []field{{val: "cat"}, {val: term}}))
		}
	}
}

// unquoteOuter drops the quotes around a whole value ('…' or "…").
func unquoteOuter(s string) string {
	s = strings.TrimSpace(s)
	if len(s) >= 2 && (s[0] == '\'' || s[0] == '"') && s[len(s)-1] == s[0] {
		return s[1 : len(s)-1]
	}
	return s
}

// jinjaValue makes a template's expressions run-time values and drops
// its statements and comments.
func jinjaValue(s string) string {
	s = jinjaStmt().ReplaceAllLiteralString(s, "")
	return jinjaExpr().ReplaceAllLiteralString(s, "${ANSIBLE_TEMPLATE_VALUE}")
}

// ansibleArgv returns argv words as a shell line giving them, each
// quoted, their expressions run-time values.
func ansibleArgv(ws []string) string { return templateArgv(ws, jinjaExpr(), "ANSIBLE_TEMPLATE_VALUE") }
