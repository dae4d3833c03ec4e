package classify

import (
	"path"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Python's task runners and pytest run what their project files say
// (found by red-team round 60): tox the commands of tox.ini's (setup.cfg's,
// pyproject.toml's, tox.toml's) test environments and the toxfile.py
// plugin, nox the noxfile.py it imports, pre-commit the entry of each hook
// of .pre-commit-config.yaml, pytest the plugins `-p NAME` names in its
// ini files' addopts, PYTEST_ADDOPTS and PYTEST_PLUGINS. Where the line
// wrote such a file, what it holds is judged as the code it is.

// pyRunner is a runner's: the options naming its configuration file, the
// files it reads by default, and what it does with their text.
type pyRunner struct {
	short string   // -c FILE
	long  []string // --conf FILE
	files []string // read when no option names one
	kind  string   // what the files are: tox, python, pre-commit
	ext   string   // added to a named value that lacks it (invoke -c NAME: NAME.py)
}

// pyRunners are the runners, by the names they run under (python -m
// NAME too).
var pyRunners = map[string]pyRunner{
	"tox":        {short: "c", long: []string{"--conf", "--configfile"}, files: []string{"tox.ini", "setup.cfg", "pyproject.toml", "tox.toml", "toxfile.py"}, kind: "tox"},
	"nox":        {short: "f", long: []string{"--noxfile"}, files: []string{"noxfile.py"}, kind: "python"},
	"pre-commit": {short: "c", long: []string{"--config"}, files: []string{".pre-commit-config.yaml", ".pre-commit-config.yml"}, kind: "pre-commit"},
	"pre_commit": {short: "c", long: []string{"--config"}, files: []string{".pre-commit-config.yaml", ".pre-commit-config.yml"}, kind: "pre-commit"},
	// invoke imports tasks.py (or the -c collection), doit dodo.py, even
	// to list the tasks (round 62).
	"invoke": pyInvoke, "inv": pyInvoke,
	"doit": {short: "f", long: []string{"--file"}, files: []string{"dodo.py"}, kind: "python"},
}

var pyInvoke = pyRunner{short: "c", long: []string{"--collection"}, files: []string{"tasks.py"}, kind: "python", ext: ".py"}

// pyRunnerConfigs judges the configuration files the line wrote that the
// runner u reads, and pytest's plugins.
func (a *analyzer) pyRunnerConfigs(u *unit) {
	if u.name == "pytest" || u.name == "py.test" {
		a.pytestPlugins(u)
	}
	r, ok := pyRunners[u.name]
	if !ok {
		return
	}
	files := optValues(u, r.short, r.long...)
	if len(files) == 0 {
		for _, f := range r.files {
			files = append(files, field{val: f})
		}
	} else if r.ext != "" {
		for i, f := range files {
			if !strings.HasSuffix(f.val, r.ext) {
				files[i].val += r.ext
			}
		}
	} else if u.name == "tox" {
		for _, f := range files {
			files = append(files, field{val: path.Join(f.val, "tox.ini"), dyn: f.dyn}) // tox 3's -c DIR
		}
		files = append(files, field{val: "toxfile.py"})
	}
	for _, f := range files {
		for _, t := range a.writtenTexts(u, nil, f) {
			a.pyRunnerFile(u, r.kind, f.val, t)
		}
	}
	if u.name == "tox" {
		a.toxOverrides(u)
	}
}

// pyRunnerFile judges the text of a runner's file of the kind.
func (a *analyzer) pyRunnerFile(u *unit, kind, file, text string) {
	switch kind {
	case "tox":
		a.toxConfig(u, file, text)
	case "pre-commit":
		a.preCommitConfig(u, text)
	default:
		a.moreCode(u, "python", text) // noxfile.py: imported
	}
}

// iniEntry is one setting of an INI file: its section, key and value
// (continuation lines joined by newlines).
type iniEntry struct{ section, key, val string }

// iniEntries reads an INI text as Python's configparser does: [section]
// headers, KEY = VALUE or KEY: VALUE, indented continuation lines, # and
// ; comment lines.
func iniEntries(text string) []iniEntry {
	var out []iniEntry
	section := ""
	for l := range strings.Lines(text) {
		l = strings.TrimRight(l, "\r\n")
		t := strings.TrimSpace(l)
		switch {
		case t == "" || t[0] == '#' || t[0] == ';':
		case (l[0] == ' ' || l[0] == '\t') && len(out) > 0 && out[len(out)-1].section == section:
			out[len(out)-1].val += "\n" + t
		case t[0] == '[' && strings.HasSuffix(t, "]"):
			section = strings.TrimSpace(t[1 : len(t)-1])
		default:
			at := strings.IndexAny(t, "=:")
			if at < 0 {
				continue
			}
			out = append(out, iniEntry{section, strings.TrimSpace(t[:at]), strings.TrimSpace(t[at+1:])})
		}
	}
	return out
}

// toxCommandKeys are the settings of a tox environment whose lines are
// commands tox runs.
var toxCommandKeys = newSet("commands", "commands_pre", "commands_post", "install_command", "list_dependencies_command")

// toxLegacyIni matches pyproject.toml's legacy_tox_ini string.
var toxLegacyIni = lazyRegexp(`(?s)legacy_tox_ini\s*=\s*("""|''')(.*?)("""|''')`)

// toxTomlCommands matches a tox TOML command setting: a list of lists.
var toxTomlCommands = lazyRegexp(`(?s)\b(commands|commands_pre|commands_post)\s*=\s*(\[\s*\[.*?\]\s*\])`)

// tomlList matches one inner list of a list of lists.
var tomlList = lazyRegexp(`\[([^\[\]]*)\]`)

// toxConfig judges a tox configuration: the command settings of an INI
// text (tox.ini, setup.cfg, pyproject.toml's legacy_tox_ini), the command
// lists of the TOML form, and toxfile.py, the plugin tox 4 imports.
func (a *analyzer) toxConfig(u *unit, file, text string) {
	if path.Base(file) == "toxfile.py" {
		a.moreCode(u, "python", text)
		return
	}
	ini := text
	if m := toxLegacyIni().FindStringSubmatch(text); m != nil {
		ini = m[2]
	}
	for _, e := range iniEntries(ini) {
		if toxCommandKeys.has(e.key) {
			a.toxCommands(u, e.val)
		}
	}
	for _, m := range toxTomlCommands().FindAllStringSubmatch(text, -1) {
		for _, l := range tomlList().FindAllStringSubmatch(m[2], -1) {
			var argv []string
			for _, s := range tomlStrings().FindAllStringSubmatch(l[1], -1) {
				argv = append(argv, toxSubstitute(s[1]+s[2]))
			}
			a.runArgv(u.name, argv)
		}
	}
}

// toxOverrides judges the command settings tox 4's -x/--override
// KEY=VALUE gives.
func (a *analyzer) toxOverrides(u *unit) {
	for _, f := range optValues(u, "x", "--override") {
		k, v, _ := strings.Cut(f.val, "=")
		if toxCommandKeys.has(k[strings.LastIndexByte(k, '.')+1:]) {
			if f.dyn {
				u.script = &stream{traits: trUnknown}
			}
			a.toxCommands(u, v)
		}
	}
}

// toxCommands judges a commands value: one command a line (a trailing
// backslash continues it), - and ! before it only about its status.
func (a *analyzer) toxCommands(u *unit, val string) {
	for l := range strings.Lines(strings.ReplaceAll(val, "\\\n", " ")) {
		l = strings.TrimLeft(strings.TrimSpace(l), "-! ")
		if l != "" {
			a.shellString(u, field{val: toxSubstitute(l)})
		}
	}
}

// toxSubst are tox's substitutions with the values a command sees, as far
// as the line can know them ({env:NAME} is the variable).
var toxSubst = map[string]string{"homedir": "~", "toxinidir": ".", "tox_root": ".", "/": "/", ":": ":",
	"envpython": "python", "posargs": ""}

// toxSubstRef matches a substitution: {name} or {name:default}.
var toxSubstRef = lazyRegexp(`\{([^{}:]*|:)(?::([^{}]*))?\}`)

// toxSubstitute puts in a command the values of tox's substitutions it
// knows: {homedir} is ~, {env:HOME} $HOME, {posargs:x} x.
func toxSubstitute(s string) string {
	return toxSubstRef().ReplaceAllStringFunc(s, func(m string) string {
		sm := toxSubstRef().FindStringSubmatch(m)
		name, def := sm[1], sm[2]
		switch {
		case name == "env":
			v, d, ok := strings.Cut(def, ":")
			if ok {
				return "${" + v + ":-" + d + "}"
			}
			return "${" + v + "}"
		case name == "posargs":
			return def
		}
		if v, ok := toxSubst[name]; ok {
			return v
		}
		return m
	})
}

// preCommitConfig judges the hooks of a pre-commit configuration: each
// hook's entry (with its args) is a command pre-commit runs, a script of
// the repository for language script; pygrep and fail entries are
// patterns and messages.
func (a *analyzer) preCommitConfig(u *unit, text string) {
	var cfg struct {
		Repos []struct {
			Hooks []struct {
				Entry    string   `yaml:"entry"`
				Language string   `yaml:"language"`
				Args     []string `yaml:"args"`
			} `yaml:"hooks"`
		} `yaml:"repos"`
	}
	if yaml.Unmarshal([]byte(text), &cfg) != nil {
		u.script = &stream{traits: trUnknown} // not read as pre-commit reads it
		return
	}
	for _, r := range cfg.Repos {
		for _, h := range r.Hooks {
			if h.Entry == "" || h.Language == "pygrep" || h.Language == "fail" {
				continue
			}
			cmd := strings.Join(append([]string{h.Entry}, quoteWords(h.Args)...), " ")
			a.shellString(u, field{val: cmd})
			if words := splitCmdline(h.Entry); h.Language == "script" && len(words) > 0 {
				a.writtenScript(u, words[0], a.script)
			}
		}
	}
}

// quoteWords quotes words for a shell, each one word.
func quoteWords(ws []string) []string {
	out := make([]string, len(ws))
	for i, w := range ws {
		out[i] = shellQuote(w)
	}
	return out
}

// pytestIni are the files pytest reads addopts from, and the section.
var pytestIni = []struct{ file, section string }{
	{"pytest.ini", "pytest"}, {".pytest.ini", "pytest"}, {"pytest.toml", "pytest"}, {"tox.ini", "pytest"},
	{"setup.cfg", "tool:pytest"}, {"pyproject.toml", "tool.pytest.ini_options"}, {"pyproject.toml", "tool.pytest"},
}

// pytestPlugins judges the written modules pytest imports as plugins:
// -p NAME of its arguments (PYTEST_ADDOPTS among them, envconfig.go),
// of the addopts of its ini files, and the names PYTEST_PLUGINS lists.
func (a *analyzer) pytestPlugins(u *unit) {
	var words []string
	for _, f := range u.args {
		words = append(words, f.val)
	}
	inis := pytestIni
	if c := lastOptValue(u, "c", "--config-file"); c != nil {
		inis = nil
		for _, s := range []string{"pytest", "tool:pytest", "tool.pytest.ini_options", "tool.pytest"} {
			inis = append(inis, struct{ file, section string }{c.val, s})
		}
	}
	for _, ini := range inis {
		for _, t := range a.writtenTexts(u, nil, field{val: ini.file}) {
			words = append(words, iniAddopts(t, ini.section)...)
		}
	}
	var mods []string
	for i, w := range words {
		switch {
		case w == "-p" && i+1 < len(words):
			mods = append(mods, words[i+1])
		case strings.HasPrefix(w, "-p") && len(w) > 2 && w[2] != '-':
			mods = append(mods, w[2:])
		}
	}
	if p, ok := a.envField(u, "PYTEST_PLUGINS"); ok {
		if p.dyn {
			u.script = &stream{traits: trUnknown}
		}
		mods = append(mods, strings.Split(p.val, ",")...)
	}
	for _, m := range mods {
		m = strings.TrimSpace(m)
		if m == "" || strings.HasPrefix(m, "no:") {
			continue
		}
		p := strings.ReplaceAll(m, ".", "/")
		for _, f := range []string{p + ".py", p + "/__init__.py"} {
			for _, t := range a.writtenTexts(u, nil, field{val: f}) {
				a.moreCode(u, "python", t)
			}
		}
	}
}

// iniAddopts returns the words of the addopts setting of section in an
// ini or TOML text: a string split as a command line, or each string of a
// TOML list split so.
func iniAddopts(text, section string) []string {
	var out []string
	for _, e := range iniEntries(text) {
		if e.section != section || e.key != "addopts" {
			continue
		}
		v := e.val
		if strings.HasPrefix(v, "[") || strings.HasPrefix(v, `"`) || strings.HasPrefix(v, "'") {
			// TOML: a string, or a list of strings
			if ss := tomlStrings().FindAllStringSubmatch(v, -1); ss != nil {
				v = ""
				for _, s := range ss {
					v += " " + s[1] + s[2]
				}
			}
		}
		out = append(out, splitCmdline(v)...)
	}
	return out
}
