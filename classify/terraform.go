package classify

import (
	"encoding/json"
	"regexp"
	"slices"
	"strings"
)

// Terraform and OpenTofu run commands their configuration names (found by
// red-team round 60): a local-exec provisioner's command (with /bin/sh -c,
// or its interpreter) when a resource is created or destroyed, an external
// data source's program when the configuration is read (plan too), a
// remote-exec provisioner's inline lines on the host it connects to; and
// terragrunt the execute lists of its hooks. Where the line wrote the
// configuration files of the directory the tool works in (-chdir=, and the
// modules below it), those commands are judged as run.

// tfTool is one of the tools: the subcommands that evaluate the
// configuration (nil: every one) and the files it is made of.
type tfTool struct {
	runs  set
	files []string // name endings
}

var tfEvaluates = newSet("apply", "plan", "destroy", "refresh", "import", "console", "test")

// tfTools are the tools by name.
var tfTools = map[string]tfTool{
	"terraform":  {runs: tfEvaluates, files: []string{".tf", ".tf.json", ".tftest.hcl", ".tftest.json"}},
	"tofu":       {runs: tfEvaluates, files: []string{".tf", ".tf.json", ".tofu", ".tofu.json", ".tftest.hcl", ".tftest.json"}},
	"terragrunt": {files: []string{"terragrunt.hcl", "terragrunt.hcl.json", ".tf", ".tf.json"}},
}

// tfCommandKeys are the settings whose value is a command, and what it
// is: 's' a shell string (local-exec command), 'l' a list of shell
// strings (remote-exec inline), 'a' a list of words run as they are
// (external program, terragrunt execute), 'i' the interpreter a command
// of its block is given to.
var tfCommandKeys = map[string]byte{"command": 's', "inline": 'l', "program": 'a', "execute": 'a', "interpreter": 'i'}

// terraformCode judges the commands of the configuration the line wrote
// that u evaluates.
func (a *analyzer) terraformCode(u *unit) {
	t, ok := tfTools[u.name]
	if !ok || len(a.files) == 0 {
		return
	}
	dir := field{val: "."}
	sub := ""
	for _, f := range u.args {
		if d, ok := strings.CutPrefix(strings.TrimPrefix(f.val, "-"), "-chdir="); ok {
			dir = f
			dir.val = d
		} else if !strings.HasPrefix(f.val, "-") {
			sub = f.val
			break
		}
	}
	if t.runs != nil && !t.runs.has(sub) || dir.dyn {
		return
	}
	dk := fileKey(u.cwd, u.links, dir)
	for _, key := range a.writtenFiles(func(k string) bool {
		return (dk == "." || k == dk || strings.HasPrefix(k, dk+"/")) &&
			slices.ContainsFunc(t.files, func(e string) bool { return strings.HasSuffix(k, e) })
	}) {
		for _, text := range a.keyTexts(u, key) {
			if strings.HasSuffix(key, ".json") {
				a.tfJSON(u, text)
			} else {
				a.tfHCL(u, text)
			}
		}
	}
}

// tfJSON judges the commands of a configuration in JSON syntax: every
// object, at any depth, with a command setting.
func (a *analyzer) tfJSON(u *unit, text string) {
	var v any
	if json.Unmarshal([]byte(text), &v) != nil {
		return
	}
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			var interp []string
			if l, ok := x["interpreter"].([]any); ok {
				interp = jsonStrings(l)
			}
			for k, val := range x {
				switch tfCommandKeys[k] {
				case 's':
					if s, ok := val.(string); ok {
						a.tfCommand(u, interp, s)
					}
				case 'l':
					if l, ok := val.([]any); ok {
						for _, s := range jsonStrings(l) {
							a.tfCommand(u, nil, s)
						}
					}
				case 'a':
					if l, ok := val.([]any); ok {
						a.shellString(u, field{val: tfArgv(jsonStrings(l))})
					}
				}
				walk(val)
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		}
	}
	walk(v)
}

// jsonStrings returns the strings of a JSON list.
func jsonStrings(l []any) []string {
	var out []string
	for _, e := range l {
		if s, ok := e.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

var (
	// tfSetting matches a command setting of HCL: KEY = "…", KEY = […]
	// or KEY = <<EOT (group 3 the heredoc's marker).
	tfSetting = lazyRegexp(`\b(command|inline|program|execute|interpreter)\s*=\s*(?:("(?:[^"\\\n]|\\.)*")|(\[[^\]]*\])|<<-?([A-Za-z_]\w*)[ \t]*\n)`)
	// hclString matches a quoted HCL string.
	hclString = lazyRegexp(`"((?:[^"\\\n]|\\.)*)"`)
)

// tfHCL judges the commands of a configuration in HCL: each command
// setting, a command given to its block's interpreter when it has one.
func (a *analyzer) tfHCL(u *unit, text string) {
	for _, m := range tfSetting().FindAllStringSubmatchIndex(text, -1) {
		key := text[m[2]:m[3]]
		var vals []string
		switch {
		case m[4] >= 0:
			vals = []string{hclUnquote(text[m[4]+1 : m[5]-1])}
		case m[6] >= 0:
			for _, s := range hclString().FindAllStringSubmatch(text[m[6]:m[7]], -1) {
				vals = append(vals, hclUnquote(s[1]))
			}
		default:
			vals = []string{hclHeredoc(text[m[1]:], text[m[8]:m[9]])}
		}
		switch tfCommandKeys[key] {
		case 's':
			a.tfCommand(u, hclInterpreter(text, m[0]), vals[0])
		case 'l':
			for _, v := range vals {
				a.tfCommand(u, nil, v)
			}
		case 'a':
			a.shellString(u, field{val: tfArgv(vals)})
		}
	}
}

// tfCommand judges a command: with sh -c, or as the last word of its
// interpreter's.
func (a *analyzer) tfCommand(u *unit, interp []string, cmd string) {
	if len(interp) == 0 {
		a.shellString(u, field{val: tfValue(cmd)})
		return
	}
	a.shellString(u, field{val: tfArgv(append(interp, cmd))})
}

// hclInterpreter returns the interpreter list of the block holding the
// setting at pos, none when it has none.
func hclInterpreter(text string, pos int) []string {
	start, depth := 0, 0
	for i := pos - 1; i >= 0; i-- {
		if text[i] == '}' {
			depth++
		} else if text[i] == '{' {
			if depth == 0 {
				start = i
				break
			}
			depth--
		}
	}
	end, depth := len(text), 0
	for i := pos; i < len(text); i++ {
		if text[i] == '{' {
			depth++
		} else if text[i] == '}' {
			if depth == 0 {
				end = i
				break
			}
			depth--
		}
	}
	for _, m := range tfSetting().FindAllStringSubmatchIndex(text[start:end], -1) {
		if text[start+m[2]:start+m[3]] == "interpreter" && m[6] >= 0 {
			var out []string
			for _, s := range hclString().FindAllStringSubmatch(text[start+m[6]:start+m[7]], -1) {
				out = append(out, hclUnquote(s[1]))
			}
			return out
		}
	}
	return nil
}

// hclHeredoc returns the text of a heredoc from its first line up to the
// line holding only the marker (<<- strips the indentation; both kept the
// same here: the shell reads them alike).
func hclHeredoc(rest, marker string) string {
	var b strings.Builder
	for l := range strings.Lines(rest) {
		if strings.TrimSpace(l) == marker {
			break
		}
		b.WriteString(l)
	}
	return b.String()
}

// hclUnquote reads the escapes of a quoted HCL string.
func hclUnquote(s string) string {
	r := strings.NewReplacer(`\\`, `\`, `\"`, `"`, `\n`, "\n", `\t`, "\t", `\r`, "\r")
	return r.Replace(s)
}

// tfTemplate matches an interpolation or a directive of a template.
var tfTemplate = lazyRegexp(`[$%]\{[^{}]*\}`)

// tfValue makes a template's interpolations (${var.x}, ${self.id})
// and directives run-time values; $${ is a literal ${.
func tfValue(s string) string {
	s = strings.ReplaceAll(s, "$${", "\x00{")
	s = strings.ReplaceAll(s, "%%{", "%\x01{")
	s = tfTemplate().ReplaceAllLiteralString(s, "${TF_TEMPLATE_VALUE}")
	return strings.NewReplacer("\x00{", "${", "\x01{", "{").Replace(s)
}

// tfArgv returns words a program is run with as a shell line giving
// them: each quoted, its interpolations run-time values.
func tfArgv(ws []string) string { return templateArgv(ws, tfTemplate(), "TF_TEMPLATE_VALUE") }

// templateArgv returns words as a shell line giving them, each quoted,
// what expr matches in them (a template's expressions) replaced by "$value",
// a value only known at run time.
func templateArgv(ws []string, expr *regexp.Regexp, value string) string {
	out := make([]string, len(ws))
	for i, w := range ws {
		var b strings.Builder
		last := 0
		for _, m := range expr.FindAllStringIndex(w, -1) {
			b.WriteString(shellQuote(w[last:m[0]]) + `"${` + value + `}"`)
			last = m[1]
		}
		b.WriteString(shellQuote(w[last:]))
		out[i] = b.String()
	}
	return strings.Join(out, " ")
}
