package classify

import (
	"path"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Files programs write by options of their own, with text the line may
// choose (found by red-team round 58): script(1)'s typescript (its
// operand, -O/--log-out, -B/--log-io; -I/--log-in and -T/--log-timing
// too), screen's -Logfile, bash's history -w/-a FILE and tmux's
// save-buffer PATH. Each is a write as a redirection is: a system file or
// a credential store written is output-redirect-system, and the text
// (the session's output where the line knows it, else text only known at
// run time) is judged where it lands in a file a shell runs later.

// toolWrite records that u writes out to the file f (appended when app)
// the way a redirection of its own would: u is judged once more with
// that redirection, and the text is kept and judged as writeText does.
func (a *analyzer) toolWrite(u *unit, f field, out stream, app bool) {
	if !f.dyn && (f.val == "" || f.val == "-" || f.val == "/dev/null") {
		return // script -qc CMD /dev/null: a terminal for CMD, nothing kept
	}
	op := syntax.RdrOut
	if app {
		op = syntax.AppOut
	}
	w := &unit{kind: kCall, name: u.name, prog: u.prog, args: u.args, cwd: u.cwd, links: u.links,
		redirs: []redir{{op: op, target: f}}}
	a.emit(w)
	a.writeText(w, f, out, app)
}

// unknownText is what a file gets whose text the line cannot know.
var unknownText = stream{traits: trUnknown}

// scriptLog are script(1)'s options that name a file it writes, and
// whether the session's output is what it gets (else its input or
// timing: text the line does not know).
var scriptLog = map[string]bool{"-O": true, "--log-out": true, "-B": true, "--log-io": true,
	"-I": false, "--log-in": false, "-T": false, "--log-timing": false, "--timing": false}

// scriptValues are script's other short options that take a value.
const scriptValues = "cEmo"

// scriptLogs returns the files script(1) with args writes, each with
// whether it gets the session's output, and whether it appends (-a).
func scriptLogs(args []field) (files []field, output []bool, app bool) {
	var ops []field
	logged := false
	for i := 0; i < len(args); i++ {
		v := args[i].val
		if v == "--" {
			ops = append(ops, args[i+1:]...)
			break
		}
		if strings.HasPrefix(v, "--") {
			name, val, hasVal := strings.Cut(v, "=")
			name = wrappers()["script"].longOpt(name) // --log-o: abbreviated as getopt allows
			if name == "--append" || isAbbrev(name, "--append") {
				app = true
			}
			out, ok := scriptLog[name]
			switch {
			case ok && hasVal:
				g := args[i]
				g.val = val
				files, output, logged = append(files, g), append(output, out), true
			case ok && name != "--timing" && i+1 < len(args):
				i++
				files, output, logged = append(files, args[i]), append(output, out), true
			case !hasVal && contains([]string{"--command", "--echo", "--logging-format", "--output-limit"}, name):
				i++
			}
			continue
		}
		if len(v) < 2 || v[0] != '-' {
			ops = append(ops, args[i])
			continue
		}
		for j := 1; j < len(v); j++ {
			c := v[j]
			attached := v[j+1:]
			if c == 'a' {
				app = true
			}
			out, isLog := scriptLog["-"+string(c)]
			if c == 't' { // -t[FILE]: the value only attached
				isLog, out = attached != "", false
			}
			if !isLog && !strings.ContainsRune(scriptValues, rune(c)) {
				continue
			}
			val := field{}
			switch {
			case attached != "":
				val = args[i]
				val.val = attached
			case i+1 < len(args):
				i++
				val = args[i]
			}
			if isLog {
				files, output, logged = append(files, val), append(output, out), true
			}
			break
		}
	}
	if len(ops) > 0 {
		files, output = append(files, ops[0]), append(output, true)
	} else if !logged {
		files, output = append(files, field{val: "typescript"}), append(output, true)
	}
	return files, output, app
}

// wrapperLog is an option of a wrapper that names a file it writes: its
// short letter and long name (one dash for screen's -Logfile), whether
// the file gets the command's output (else text the line does not
// know: a trace, statistics, a job log) and whether it is appended to.
type wrapperLog struct {
	short  byte
	long   string
	output bool
	app    bool
}

// wrapperLogs are the log files of the wrappers (script's: scriptLogs);
// logPositional those that take the log file as their first operand
// (logsave LOGFILE CMD), logAppend the flags that append.
var (
	wrapperLogs = map[string][]wrapperLog{
		"screen":            {{long: "-Logfile", output: true, app: true}},
		"strace":            {{short: 'o', long: "--output"}},
		"ltrace":            {{short: 'o', long: "--output"}},
		"time":              {{short: 'o', long: "--output"}},
		"valgrind":          {{long: "--log-file"}, {long: "--xml-file"}},
		"xvfb-run":          {{short: 'e', long: "--error-file"}, {short: 'f', long: "--auth-file"}},
		"srun":              {{short: 'o', long: "--output", output: true}, {short: 'e', long: "--error"}},
		"start-stop-daemon": {{short: 'O', long: "--output", output: true, app: true}},
		"memusage":          {{short: 'd', long: "--data"}, {short: 'p', long: "--png"}},
		"parallel":          {{long: "--joblog"}},
		"rlwrap":            {{short: 'l', app: true}, {short: 'H'}},
		"fakeroot":          {{short: 's'}},
	}
	logPositional = newSet("logsave")
	logAppend     = map[string]string{"time": "a", "strace": "A", "logsave": "a"}
)

// sessionLogs records the files the wrapper name (run as u with args)
// writes by its own options: each gets out, the output of the command it
// ran, or text the line does not know.
func (a *analyzer) sessionLogs(u *unit, name string, args []field, out stream) {
	if name == "script" {
		files, output, app := scriptLogs(args)
		for i, f := range files {
			text := unknownText
			if output[i] {
				text = out
			}
			a.toolWrite(u, f, text, app)
		}
		return
	}
	logs, spec := wrapperLogs[name], wrappers()[name]
	if spec == nil || len(logs) == 0 && !logPositional.has(name) {
		return
	}
	opts := args
	if cmd, _, _, _ := spec.unwrap(args); len(cmd) <= len(args) {
		opts = args[:len(args)-len(cmd)]
	}
	app := hasFlag(opts, logAppend[name])
	if logPositional.has(name) {
		for _, f := range opts {
			if !strings.HasPrefix(f.val, "-") {
				a.toolWrite(u, f, out, app) // logsave LOGFILE CMD
				break
			}
		}
	}
	for _, l := range logs {
		for _, f := range wrapperOptValues(spec, opts, l) {
			appended := app || l.app
			if name == "parallel" && strings.HasPrefix(f.val, "+") {
				f.val, appended = f.val[1:], true // --joblog +FILE
			}
			text := unknownText
			if l.output {
				text = out
			}
			a.toolWrite(u, f, text, appended)
		}
	}
}

// wrapperOptValues returns the values of the option l among a wrapper's
// option words: long (exact, abbreviated as getopt allows, or =VALUE) or
// short, in clusters read with the wrapper's value-taking letters.
func wrapperOptValues(spec *wrapSpec, opts []field, l wrapperLog) []field {
	var out []field
	for i := 0; i < len(opts); i++ {
		v := opts[i].val
		switch {
		case v == "--":
			return out
		case strings.HasPrefix(v, "--") || l.long != "" && !strings.HasPrefix(l.long, "--") && strings.HasPrefix(v, l.long):
			name, val, hasVal := strings.Cut(v, "=")
			if strings.HasPrefix(name, "--") {
				name = spec.longOpt(name)
			}
			valued := contains(spec.argLong, name) || contains(spec.dashLong, name)
			switch {
			case name == l.long && hasVal:
				g := opts[i]
				g.val = val
				out = append(out, g)
			case name == l.long && i+1 < len(opts):
				i++
				out = append(out, opts[i])
			case valued && !hasVal:
				i++
			}
		case len(v) > 1 && v[0] == '-':
			for j := 1; j < len(v); j++ {
				if strings.IndexByte(spec.argShort, v[j]) < 0 {
					continue
				}
				g := opts[i]
				g.val = v[j+1:]
				if g.val == "" && i+1 < len(opts) {
					i++
					g = opts[i]
				}
				if v[j] == l.short && l.short != 0 {
					out = append(out, g)
				}
				break
			}
		}
	}
	return out
}

// historyWrites records bash's history -w FILE (the list, overwriting
// FILE) and -a FILE (appending the new lines), FILE being $HISTFILE when
// not given: history -s puts any text in the list, so the file gets text
// the line does not follow.
func (a *analyzer) historyWrites(u *unit) {
	if u.name != "history" || u.dynName {
		return
	}
	mode := ""
	var ops []field
	for _, f := range u.args {
		switch v := f.val; {
		case len(v) > 1 && v[0] == '-' && !strings.HasPrefix(v, "--"):
			mode += v[1:]
		case f.dyn:
			mode += "w" // an option only known at run time may be -w
			ops = append(ops, f)
		default:
			ops = append(ops, f)
		}
	}
	if !strings.ContainsAny(mode, "wa") || strings.ContainsAny(mode, "sp") {
		return
	}
	if len(ops) == 0 {
		f, ok := a.envField(u, "HISTFILE") // history -w: the file HISTFILE names
		if !ok || f.dyn {
			return
		}
		ops = []field{f}
	}
	a.toolWrite(u, ops[0], unknownText, !strings.Contains(mode, "w"))
}

// shellVarRisky reports whether a SHELL value names a program that is
// not a shell (or one only known at run time): script -c, tmux new and
// the like run their command string as $SHELL -c STRING, which is then
// that program's code, not shell text (SHELL=/usr/bin/gawk script -qc
// 'BEGIN{…}'). Found by red-team round 58.
func shellVarRisky(v field) bool {
	if v.dyn {
		return true
	}
	base := path.Base(strings.TrimSpace(v.val))
	return v.val != "" && !shellNames.has(base) && !shellNames.has(strings.TrimRight(base, "0123456789."))
}

// anyRiskyEnv reports whether an assignment of env is riskyEnv: a
// transparent wrapper is still judged with it, since a command string it
// hands to $SHELL does not carry its environment (SHELL=/usr/bin/gawk
// script -qc '…').
func anyRiskyEnv(env []envVar) bool {
	for _, e := range env {
		if riskyEnv(e) {
			return true
		}
	}
	return false
}

// shellVarUsers are the wrappers that run their command string as $SHELL
// -c STRING.
var shellVarUsers = newSet("script", "flock", "tmux")

// shellVarRun judges a command string u (a shellVarUsers program) runs as
// $SHELL -c STRING where the line set SHELL to a program that is not a
// shell: as that program run with -c and the string (SHELL=/usr/bin/gawk
// script -qc 'BEGIN{…}' is gawk -c 'BEGIN{…}'). The string is still
// judged as shell text too.
func (a *analyzer) shellVarRun(u *unit, f field) {
	if !shellVarUsers.has(u.name) {
		return
	}
	sh, ok := a.envField(u, "SHELL")
	if !ok || sh.dyn || !shellVarRisky(sh) {
		return
	}
	a.run(u.inner(u.name, []field{sh, {val: "-c"}, f}))
}
