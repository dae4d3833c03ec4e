package classify

import "strings"

// Matchers for code execution: fork bombs, reverse shells, code from the
// network or from a decoder, $IFS tricks, history re-execution, eval.

func matchForkBomb(u *unit, _ *Classifier) bool {
	switch u.kind {
	case kFuncDecl, kLoop:
		return u.selfSpawn
	case kCall:
		// %0|%0 is the Windows batch fork bomb: %0 fed by a program the
		// classifier cannot see into (not bash -c '%0', whose input is
		// only the shell's).
		return u.code != nil && u.code.forkBomb || u.name == "%0" && (u.bg || u.piped && u.in.traits&trUnknown != 0)
	}
	return false
}

func devTCP(v string) bool {
	c := cleanTarget(v)
	return strings.HasPrefix(c, "/dev/tcp/") || strings.HasPrefix(c, "/dev/udp/")
}

var netShellTools = newSet("nc", "ncat", "netcat", "nc.traditional", "nc.openbsd", "busybox-nc", "cryptcat", "sbd")

func matchReverseShell(u *unit, _ *Classifier) bool {
	if u.kind != kCall {
		return false
	}
	for _, r := range u.redirs {
		if devTCP(r.target.val) {
			return true
		}
	}
	if u.code != nil && u.code.revShell {
		return true
	}
	if u.dynName {
		return false
	}
	switch {
	case netShellTools.has(u.name):
		if u.hasFlag("ec", "--exec", "--sh-exec", "--lua-exec") {
			return true
		}
		return u.in.traits&trShellOut != 0
	case u.name == "socat":
		for _, f := range u.args {
			l := strings.ToLower(f.val)
			if strings.Contains(l, "exec:") || strings.Contains(l, "system:") {
				return true
			}
		}
		return u.in.traits&trShellOut != 0
	case u.name == "telnet" || u.name == "openssl":
		return u.in.traits&trShellOut != 0
	case u.name == "pwncat" || u.name == "pwncat-cs" || u.name == "ztcp" || u.name == "rcat":
		return true
	case u.name == "xterm":
		return u.hasFlag("", "-display")
	}
	if u.script != nil && u.script.traits&trSocket != 0 {
		return true
	}
	return false
}

func matchCurlPipeShell(u *unit, _ *Classifier) bool {
	if u.code != nil && u.code.downloadExec {
		return true
	}
	return u.script != nil && u.script.traits&trDownload != 0 && u.script.traits&trSocket == 0
}

func matchBase64PipeShell(u *unit, _ *Classifier) bool {
	if u.code != nil && u.code.decodeExec {
		return true
	}
	return u.script != nil && u.script.traits&trDecode != 0
}

func matchIFSBypass(u *unit, _ *Classifier) bool {
	if u.kind != kCall {
		return false
	}
	if u.fromIFS {
		return true
	}
	for _, f := range u.args {
		if f.ifs {
			return true
		}
	}
	return false
}

func matchHistoryExec(u *unit, _ *Classifier) bool {
	if u.kind != kCall {
		return false
	}
	if u.histInWord {
		return true
	}
	if u.script != nil && u.script.traits&trHistory != 0 {
		return true
	}
	if u.dynName {
		return u.nameSrc.traits&trHistory != 0
	}
	if u.name == "fc" {
		return !u.hasFlag("l")
	}
	return false
}

// loaderVars change what code a program loads; codeVars hold shell code
// that is run later.
var (
	loaderVars = newSet("LD_PRELOAD", "LD_AUDIT", "DYLD_INSERT_LIBRARIES", "BASH_ENV", "ENV", "PERL5OPT", "PERL5DB",
		"RUBYOPT", "NODE_OPTIONS", "PYTHONSTARTUP", "PROMPT_COMMAND", "GIT_SSH_COMMAND", "GIT_SSH", "GIT_EXTERNAL_DIFF",
		"GIT_PAGER", "PAGER", "EDITOR", "VISUAL", "GIT_EDITOR", "GIT_ASKPASS", "SSH_ASKPASS", "LESSOPEN", "LESSCLOSE",
		"BROWSER", "GIT_PROXY_COMMAND", "PS4", "SHELLOPTS", "BASHOPTS", "LD_LIBRARY_PATH", "BASH_CMDS", "BASH_ALIASES",
		"MANPAGER", "SYSTEMD_PAGER", "GIT_SEQUENCE_EDITOR", "SUDO_EDITOR", "SYSTEMD_EDITOR", "FCEDIT", "SVN_EDITOR",
		// Found by red-team round 48: a lesskey file's #env section sets
		// LESSOPEN; groff's -U lets man pages run .sy; zgrep evals $GREP;
		// a warnings filter's category imports its module (antigravity
		// opens $BROWSER).
		"LESSKEYIN", "LESSKEY", "LESSKEYIN_SYSTEM", "LESSKEY_SYSTEM", "LESSKEY_CONTENT", "MANROFFOPT", "GREP", "PYTHONWARNINGS",
		// Round 49: a terminfo entry's iprog runs on tput init; git runs
		// its subcommands from the exec path.
		"TERMINFO", "TERMINFO_DIRS", "GIT_EXEC_PATH", "PATH",
		// Round 55: vim's start-up ex commands; the JVM's options, which
		// may load an agent (jvmOptsRunCode).
		"VIMINIT", "EXINIT", "JAVA_TOOL_OPTIONS", "JDK_JAVA_OPTIONS", "_JAVA_OPTIONS", "JAVA_OPTS", "MAVEN_OPTS",
		"GRADLE_OPTS", "SBT_OPTS", "ANT_OPTS", "KOTLIN_OPTS", "SCALA_OPTS", "CATALINA_OPTS", "JAVA_OPTIONS",
		// Round 58: the program script -c, tmux and others run as $SHELL -c.
		"SHELL")
	codeVars = newSet("PROMPT_COMMAND", "GIT_SSH_COMMAND", "GIT_PAGER", "PAGER", "EDITOR", "VISUAL", "GIT_EDITOR",
		"GIT_EXTERNAL_DIFF", "LESSOPEN", "LESSCLOSE", "GIT_PROXY_COMMAND", "PS4", "MANPAGER", "SYSTEMD_PAGER",
		"GIT_SEQUENCE_EDITOR", "SUDO_EDITOR", "SYSTEMD_EDITOR", "FCEDIT", "SVN_EDITOR", "BROWSER", "GREP")
)

// isCodeVar reports whether a variable's value is a command a program
// runs (codeVars, cargo's runners and wrappers).
func isCodeVar(name string) bool { return codeVars.has(name) || cargoCommandVar().MatchString(name) }

// riskyEnv reports whether an assignment changes what code later runs in a
// way the classifier cannot follow.
func riskyEnv(e envVar) bool {
	if cargoCommandVar().MatchString(e.name) {
		return e.val.dyn
	}
	if strings.EqualFold(e.name, "npm_config_node_options") {
		e.name = "NODE_OPTIONS" // npm passes its node-options on (round 56)
	}
	if !loaderVars.has(e.name) {
		return false
	}
	switch e.name {
	case "LD_LIBRARY_PATH":
		return false
	case "NODE_OPTIONS":
		return nodeOptionsLoad(e.val)
	case "SHELL":
		return shellVarRisky(e.val)
	case "PAGER", "GIT_PAGER", "EDITOR", "VISUAL", "GIT_EDITOR", "BROWSER", "MANPAGER", "SYSTEMD_PAGER",
		"GIT_SEQUENCE_EDITOR", "SUDO_EDITOR", "SYSTEMD_EDITOR", "FCEDIT", "SVN_EDITOR", "GREP":
		return e.val.dyn
	case "PATH":
		return relativePathEntry(e.val)
	case "MANROFFOPT":
		return e.val.dyn || strings.Contains(e.val.val, "U") // -U: unsafe requests (.sy, .pso, .open)
	case "PYTHONWARNINGS":
		return e.val.dyn || warningsImport(e.val.val)
	case "VIMINIT", "EXINIT":
		return e.val.dyn || vimExOpaque(e.val.val)
	case "JAVA_TOOL_OPTIONS", "JDK_JAVA_OPTIONS", "_JAVA_OPTIONS", "JAVA_OPTS", "MAVEN_OPTS", "GRADLE_OPTS", "SBT_OPTS",
		"ANT_OPTS", "KOTLIN_OPTS", "SCALA_OPTS", "CATALINA_OPTS", "JAVA_OPTIONS":
		return e.val.dyn || jvmOptsRunCode(e.val.val)
	case "PS4":
		return strings.Contains(e.val.val, "$(") || strings.Contains(e.val.val, "`")
	}
	return true
}

// relativePathEntry reports whether a PATH value has an entry that is not
// absolute (e:$PATH, .:$PATH, an empty one: the working directory), where
// the line may have put a program of its own under a common name (ln -s
// /bin/rm e/ls; PATH=e:$PATH ls -rf ~). Found by red-team round 49.
func relativePathEntry(f field) bool {
	if f.dyn && !strings.Contains(f.val, ":") {
		return !strings.HasPrefix(f.val, "$") && !strings.HasPrefix(f.val, "/")
	}
	for _, c := range strings.Split(f.val, ":") {
		if c == "" || !strings.HasPrefix(c, "/") && !strings.HasPrefix(c, "~") && !strings.HasPrefix(c, "$") {
			return true
		}
	}
	return false
}

// warningsImport reports whether a PYTHONWARNINGS value names a category
// by module path (action:message:category:module:lineno, comma separated):
// Python imports that module when it parses the filter.
func warningsImport(v string) bool {
	for _, entry := range strings.Split(v, ",") {
		parts := strings.Split(entry, ":")
		if len(parts) > 2 && strings.Contains(parts[2], ".") {
			return true
		}
	}
	return false
}

func matchEvalExec(u *unit, _ *Classifier) bool {
	for _, e := range u.env {
		if riskyEnv(e) {
			return true
		}
	}
	if u.kind != kCall {
		return false
	}
	if u.dynName {
		return true
	}
	if u.code != nil && u.code.dynamic {
		return true
	}
	if u.script != nil {
		if r := u.script.execRule(); r == RuleEvalExec {
			return true
		}
		if u.script.traits&trShellOut != 0 {
			return true
		}
	}
	return false
}

func matchParseError(u *unit, _ *Classifier) bool { return u.kind == kParseError }

// jvmOptsCode are the JVM options that load code of their own or run a
// command: agents, the boot class path, a class loader or security
// manager of the caller's, native library paths, commands on an error,
// and argument files, whose options cannot be seen.
var jvmOptsCode = []string{"-javaagent", "-agentpath", "-agentlib", "-xrun", "-xbootclasspath", "-xx:onerror",
	"-xx:onoutofmemoryerror", "-xx:flags", "-xx:vmoptionsfile", "-djava.system.class.loader", "-djava.security.manager",
	"-djava.library.path", "-dsun.boot.library.path", "-djava.class.path", "-cp", "-classpath", "--class-path",
	"--patch-module", "--module-path", "-djdk.module.path", "@"}

// jvmOptsRunCode reports whether a JVM options variable's value loads
// code a program would not otherwise run (found by red-team round 55:
// JAVA_TOOL_OPTIONS=-javaagent:x.jar java -version was allowed).
func jvmOptsRunCode(v string) bool {
	for _, w := range strings.Fields(strings.ToLower(v)) {
		w = strings.Trim(w, `"'`)
		for _, o := range jvmOptsCode {
			if strings.HasPrefix(w, o) {
				return true
			}
		}
	}
	return false
}
