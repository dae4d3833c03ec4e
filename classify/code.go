package classify

import (
	"regexp"
	"strings"
	"sync"
)

// codeFacts is what a scan of interpreter code found.
type codeFacts struct {
	revShell     bool          // opens a network connection and hands it a shell
	forkBomb     bool          // forks in a loop
	decodeExec   bool          // decodes data and executes it
	downloadExec bool          // downloads code and executes it
	deleteRoot   bool          // recursively deletes /, a home or a system directory
	dynamic      bool          // the code itself is only known at run time
	runsInput    bool          // runs its input as shell commands (awk '{system($0)}', print | "sh")
	runsStdin    bool          // runs its standard input as code of its language (exec(sys.stdin.read()))
	dynDelete    bool          // recursively deletes a path only known at run time (shutil.rmtree(p))
	kill         bool          // sends a signal to a process (os.kill, process.kill, perl kill)
	spawns       []opaqueSpawn // spawn calls whose command is only known at run time (codespawn.go)
	secretRead   bool          // opens a credential store by name (codefiles.go)
	writes       []string      // the files it writes, where it names them (codefiles.go)
	deletes      []string      // the known paths it deletes recursively, as written (relative to the working directory)
	strs         []string      // its string literals: what it may print
}

func containsAny(s string, subs ...string) bool {
	for _, x := range subs {
		if strings.Contains(s, x) {
			return true
		}
	}
	return false
}

var (
	netMarkers = []string{"socket", "fsockopen", "net.connect", "createconnection", "/dev/tcp/", "/dev/udp/",
		"/inet/tcp/", "/inet/udp/", "io::socket", "s_client", "tcpclient", "net.dial", "ztcp"}
	shellMarkers = []string{"/bin/sh", "/bin/bash", "/bin/zsh", "/bin/dash", "sh -i", "bash -i", "\"sh\"", "'sh'",
		"\"bash\"", "'bash'", "cmd.exe", "powershell", "pty.spawn", "dup2", "subprocess", "child_process", "exec(",
		"spawn(", "system(", "popen", "proc_open", "shell_exec", "passthru", "os.execute", "exec ", "`", "getinputstream",
		"exec.command", "iex ", "iex(", "invoke-expression", "start-process"}
	decodeMarkers = []string{"b64decode", "decodebytes", "decode_base64", "base64_decode", "decode64", "atob(", "'base64')",
		"\"base64\")", "unpack(\"m", "unpack('m", "unhexlify", "fromhex", "codecs.decode", "zlib.decompress", "frombase64string",
		"base64.getdecoder", "rot13", "rot_13", "gzinflate", "str_rot13", "unpack('u", "unpack(\"u", "decodestring"}
	execMarkers = []string{"exec(", "eval(", "compile(", "system(", "popen", "subprocess", "instance_eval", "child_process",
		"new function", "execsync", "spawn", "shell_exec", "passthru", "os.execute", "loadstring",
		"iex(", "| iex", "|iex", "invoke-expression", "exec ", "eval ", "`"}
	downloadMarkers = []string{"urlopen", "urllib", "requests.get", "requests.post", "http.get", "https.get", "fetch(",
		"net::http", "open-uri", "urlretrieve", "lwp::", "http::tiny", "file_get_contents('http", "file_get_contents(\"http",
		"downloadstring", "downloadfile", "invoke-webrequest", "iwr ", "irm ", "invoke-restmethod", "net.webclient",
		"curl_exec", "httpclient", "socket.http"}
	loopMarkers = []string{"while", "for(;;)", "for (;;)", "loop", "until", "repeat", "1..", "forever"}
)

// callSpec says how a call in code runs commands: its name, and whether a
// single string argument is shell text (true) or code in the same language.
type callSpec struct {
	name  string
	shell bool
}

// commandCalls are the call names whose string arguments run commands, per
// language. An empty language key applies to all.
var commandCalls = sync.OnceValue(func() map[string][]callSpec {
	return map[string][]callSpec{
		"": {{"system", true}, {"popen", true}, {"spawnSync", true}, {"spawn", true}, {"execSync", true},
			{"execFileSync", true}, {"execFile", true}, {"check_output", true}, {"check_call", true}, {"getoutput", true},
			{"getstatusoutput", true}, {"Popen", true}, {"subprocess.run", true}, {"subprocess.call", true},
			{"shell_exec", true}, {"passthru", true}, {"proc_open", true}, {"os.execute", true}, {"io.popen", true},
			{"do shell script", true}, {"system2", true}, {"execv", true}, {"execvp", true}, {"execl", true}, {"execlp", true}},
		"python":      {{"exec", false}, {"eval", false}, {"call", true}, {"run", true}},
		"perl":        {{"exec", true}, {"qx", true}},
		"ruby":        {{"exec", true}, {"%x", true}},
		"php":         {{"exec", true}},
		"node":        {{"exec", true}},
		"awk":         {},
		"r":           {},
		"lua":         {},
		"tcl":         {{"exec", true}},
		"applescript": {},
	}
})

// deleteCalls recursively delete their argument.
var deleteCalls = []string{"rmtree", "rm_rf", "rm_r", "remove_dir_all", "rmSync", "rmdirSync", "rimraf", "remove_tree",
	"rmdir_p", "deltree", "Remove-Item", "RemoveAll", "unlink_recursive"}

// scanCode inspects interpreter code. It returns the facts and the shell
// strings and argument vectors the code would run.
func scanCode(lang, code string, depth int) (f codeFacts, shells []string, argvs [][]string) {
	if depth > 4 || code == "" {
		return f, nil, nil
	}
	if lang == "m4" {
		shells, f.dynamic = m4Code(code) // templatecode.go
		return f, shells, nil
	}
	lc := strings.ToLower(code)
	net := containsAny(lc, netMarkers...)
	if net && (lang == "awk" || containsAny(lc, "/dev/tcp/", "/dev/udp/") || containsAny(lc, shellMarkers...)) {
		f.revShell = true
	}
	if strings.Contains(lc, "fork") && containsAny(lc, loopMarkers...) {
		f.forkBomb = true
	}
	if containsAny(lc, decodeMarkers...) && containsAny(lc, execMarkers...) {
		f.decodeExec = true
	}
	if containsAny(lc, downloadMarkers...) && containsAny(lc, execMarkers...) {
		f.downloadExec = true
	}
	for _, name := range deleteCalls {
		for _, c := range callArgs(code, name) {
			p, isJoin := joinedPath(c.arg)
			switch {
			case isJoin && !p.dyn:
				f.deletes = append(f.deletes, p.val)
			case len(c.lits) > 0 && !c.dyn:
				f.deletes = append(f.deletes, c.lits[0])
			}
			switch {
			case len(c.lits) > 0 && !c.dyn && criticalTarget(field{val: c.lits[0]}):
				f.deleteRoot = true
			case isJoin && !p.dyn:
				// rmtree(os.path.join("build", "tmp")) is known.
				f.deleteRoot = f.deleteRoot || criticalTarget(p)
			case isJoin:
				// As for rm -rf "$X/tmp": risky when X empty would be.
				f.dynDelete = f.dynDelete || dynBareCritical(p.bare)
			case c.call && (len(c.lits) == 0 || c.dyn):
				f.dynDelete = true // rmtree(path), rmSync(dir + "/x")
			}
		}
		if deletesHome(code, name) {
			f.deleteRoot = true
		}
	}
	f.runsStdin = evalsStdin(lang, code)
	if re, ok := killCalls()[lang]; ok && re.MatchString(blankStrings(code)) {
		f.kill = true
	}
	if lang == "tcl" || lang == "expect" {
		shells = append(shells, tclCodeFacts(&f, code)...) // tclcode.go: bare words, file delete, open, exec
		for _, line := range strings.FieldsFunc(code, func(r rune) bool { return r == '\n' || r == ';' }) {
			line = strings.TrimSpace(line)
			for _, kw := range []string{"spawn ", "exec "} {
				if strings.HasPrefix(line, kw) {
					shells = append(shells, strings.TrimSpace(line[len(kw):]))
				}
			}
		}
	}
	specs := append(append([]callSpec(nil), commandCalls()[""]...), commandCalls()[lang]...)
	for _, cs := range specs {
		for _, c := range callArgs(code, cs.name) {
			lits := c.lits
			if c.dyn {
				// os.system("r"+"m -rf /"): the command is put together
				// at run time; its known start is still classified.
				f.dynamic = true
			}
			switch {
			case len(lits) == 0:
			case !cs.shell:
				sub, sh, av := scanCode(lang, lits[0], depth+1)
				f.merge(sub)
				shells = append(shells, sh...)
				argvs = append(argvs, av...)
			case len(lits) == 1:
				shells = append(shells, lits[0])
			default:
				argvs = append(argvs, lits)
			}
		}
	}
	if paths, writes := codeFiles(lang, code); len(paths) > 0 {
		for _, p := range paths {
			f.secretRead = f.secretRead || isSecretPathIn("", p)
		}
		if writes {
			f.writes = paths
		}
	}
	if sp := opaqueSpawns(lang, code); len(sp) > 0 {
		f.dynamic, f.spawns = true, sp
	}
	if lang == "perl" || lang == "ruby" {
		sh, av, opaque := pipeOpens(code)
		shells, argvs = append(shells, sh...), append(argvs, av...)
		if opaque {
			f.dynamic = true
			f.spawns = append(f.spawns, opaqueSpawn{})
		}
	}
	if lang == "perl" || lang == "ruby" || lang == "php" || lang == "node" {
		shells = append(shells, backticks(code)...)
	}
	if lang == "awk" {
		// awk: system("cmd"), "cmd" | getline, print | "cmd"
		shells = append(shells, awkPipes(code)...)
		f.runsInput = awkRunsInput().MatchString(code)
	}
	if lang == "rust" {
		av, sh, opaque := rustCommands(code) // rustcode.go
		argvs, shells = append(argvs, av...), append(shells, sh...)
		if opaque {
			f.dynamic = true
			f.spawns = append(f.spawns, opaqueSpawn{})
		}
	}
	if lang == "powershell" {
		if _, err := parse(code); err == nil {
			shells = append(shells, code)
		}
	}
	return f, shells, argvs
}

func (f *codeFacts) merge(o codeFacts) {
	f.revShell = f.revShell || o.revShell
	f.forkBomb = f.forkBomb || o.forkBomb
	f.decodeExec = f.decodeExec || o.decodeExec
	f.downloadExec = f.downloadExec || o.downloadExec
	f.deleteRoot = f.deleteRoot || o.deleteRoot
	f.dynamic = f.dynamic || o.dynamic
	f.runsInput = f.runsInput || o.runsInput
	f.runsStdin = f.runsStdin || o.runsStdin
	f.dynDelete = f.dynDelete || o.dynDelete
	f.kill = f.kill || o.kill
	f.spawns = append(f.spawns, o.spawns...)
	f.secretRead = f.secretRead || o.secretRead
	f.writes = append(f.writes, o.writes...)
	f.deletes = append(f.deletes, o.deletes...)
}

// awkPipes returns the commands of awk's "cmd" | getline and print | "cmd".
func awkPipes(code string) []string {
	var out []string
	for i := 0; i < len(code); i++ {
		if code[i] != '"' {
			continue
		}
		lit, n := readLiteral(code[i:])
		if n == 0 {
			break
		}
		// gawk's |& (a two-way pipe to a coprocess) runs its command as | does.
		after := strings.TrimLeft(code[i+n:], " ")
		before := strings.TrimSuffix(strings.TrimRight(code[:i], " "), "&")
		pipeRest, piped := strings.CutPrefix(after, "|")
		pipeRest = strings.TrimLeft(strings.TrimPrefix(pipeRest, "&"), " ")
		if piped && strings.HasPrefix(pipeRest, "getline") || strings.HasSuffix(before, "|") {
			out = append(out, lit)
		}
		// print "cmd" | "sh": the printed text is run by the shell.
		if piped {
			target := pipeRest
			if t, n := readLiteralMaybe(target, `"`); n > 0 && shellNames.has(normName(strings.Fields(t + " x")[0])) {
				out = append(out, lit)
			}
		}
		i += n - 1
	}
	return out
}

// awkRunsInput matches awk code that hands what it reads to a shell:
// system() of anything but a plain literal (system($0), system("sh -c "
// $1)), a field run as a command ($0 | getline), or printing into a pipe
// to a shell.
var awkRunsInput = lazyRegexp(`system\s*\(\s*([^"\s)]|"[^"]*"\s*[^\s)])|\$\w*\s*\|&?\s*getline|\|&?\s*"\s*(/bin/|/usr/bin/)?(sh|bash|dash|zsh|ksh)\b`)

// killCalls match code that sends a signal to a process, per language.
var killCalls = sync.OnceValue(func() map[string]*regexp.Regexp {
	m := map[string]*regexp.Regexp{}
	for lang, expr := range map[string]string{
		"python": `\bos\.kill(pg)?\s*\(`,
		"node":   `\bprocess\.kill\s*\(`,
		"ruby":   `\bProcess\.kill\s*\(?`,
		"perl":   `\bkill\s*\(?\s*(-?\w+|['"]\s*['"])\s*,`, // string literals are blanked
		"php":    `\bposix_kill\s*\(`,
		"lua":    `\bposix\.kill\s*\(|signal\.kill\s*\(`,
	} {
		m[lang] = regexp.MustCompile(expr)
	}
	return m
})
