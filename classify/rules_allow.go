package classify

import (
	"slices"
	"strings"
)

// Matchers for the allow rules. An allow rule only ever matches a literal
// program (not one in a directory known only at run time: "$D/ls" runs
// whatever $D holds) that writes no file through a redirection and does
// not take its arguments from xargs.

// writesFile reports whether a redirection of u writes a real file.
func writesFile(u *unit) bool {
	for _, r := range u.redirs {
		if r.isWrite() && !harmlessDevice(r.target.val) {
			return true
		}
	}
	return false
}

// plainCall reports whether u may be allowed at all.
func plainCall(u *unit) bool {
	if u.kind != kCall || u.dynName || u.dynDir || u.name == "" || u.viaXargs || u.script != nil || u.code != nil ||
		projectProgram(u) { // ./ls, bin/x -h: the project's file (versionrun.go)
		return false
	}
	for _, r := range u.redirs {
		if r.isWrite() && !harmlessDevice(r.target.val) {
			return false
		}
	}
	for _, e := range u.env {
		if riskyEnv(e) {
			return false
		}
	}
	return len(u.envFiles) == 0 // GIT_TRACE=FILE git status writes FILE
}

// optionChecked are the programs of safeCmds that an option of theirs
// makes unsafe (matchCommonSafe's checks below).
var optionChecked = newSet("find", "fd", "fdfind", "date", "hostname", "history", "env", "sort", "uniq", "less", "more",
	"man", "command", "ulimit", "tree", "xxd", "nm")

var safeCmds = newSet("ls", "ll", "la", "l", "cat", "head", "tail", "wc", "grep", "egrep", "fgrep", "rg", "ag", "ack",
	"echo", "printf", "pwd", "whoami", "id", "groups", "date", "cal", "uname", "hostname", "which", "whereis", "type",
	"file", "stat", "du", "df", "tree", "sort", "uniq", "cut", "tr", "diff", "cmp", "comm", "basename", "dirname",
	"realpath", "readlink", "true", "false", "test", "[", "printenv", "env", "jq", "yq", "column", "nl", "od", "hexdump",
	"xxd", "md5sum", "sha1sum", "sha256sum", "sha512sum", "shasum", "cksum", "b2sum", "seq", "tac", "rev", "fold", "fmt",
	"paste", "join", "expand", "unexpand", "strings", "less", "more", "man", "help", "history", "clear", "locale", "tty",
	"arch", "nproc", "getconf", "lscpu", "lsblk", "lspci", "lsusb", "find", "base64", "base32", ":", "shopt", "unset",
	"exit", "return", "break", "continue", "shift", "read", "hash", "getopts", "ulimit", "umask", "alias", "unalias",
	"set", "declare", "local", "export", "readonly", "typeset", "command", "builtin", "info", "apropos", "whatis",
	"look", "zcat", "zgrep", "zless", "bzcat", "xzcat", "tldr", "numfmt", "factor", "expr", "bc", "dc", "sha224sum",
	"sha384sum", "md5", "printf", "mapfile", "readarray", "fd", "fdfind", "bat", "batcat", "exa", "eza",
	"lsd", "dust", "duf", "tokei", "cloc", "wc", "less", "file", "delta", "difft", "colordiff", "tput", "stty", "whoami",
	"logname", "users", "last", "lastlog", "getent", "ldd", "nm", "objdump", "readelf", "size", "envsubst")

func matchCommonSafe(u *unit, _ *Classifier) bool {
	if !plainCall(u) || !safeCmds.has(u.name) {
		return false
	}
	// Where an option makes the program write or run something, a word
	// that begins with a run-time value may be that option (find ~
	// $(head -1 opts) is find ~ -delete; found by red-team round 49).
	if optionChecked.has(u.name) && slices.ContainsFunc(u.args, func(f field) bool { return f.dyn && f.dynPrefix }) {
		return false
	}
	switch u.name {
	case "find":
		for _, f := range u.args {
			switch f.val {
			case "-exec", "-execdir", "-ok", "-okdir", "-delete", "-fprint", "-fprint0", "-fprintf", "-fls":
				return false
			}
		}
	case "fd", "fdfind":
		return !u.hasFlag("xX", "--exec", "--exec-batch")
	case "date":
		return !u.hasFlag("s", "--set")
	case "hostname":
		return len(u.operands()) == 0
	case "history":
		return !u.hasFlag("cdrwasnp")
	case "env":
		return len(u.operands()) == 0
	case "sort", "uniq":
		return !u.hasFlag("o", "--output") && (u.name != "uniq" || len(u.operands()) < 2)
	case "less", "more", "man":
		return !u.piped || u.in.traits&(trDownload|trDecode) == 0
	case "command":
		return u.hasFlag("vV")
	case "ulimit":
		return len(u.operands()) == 0
	case "tree":
		return !u.hasFlag("o")
	case "xxd":
		return len(u.operands()) < 2
	}
	return true
}

func matchGitReadAllow(u *unit, c *Classifier) bool { return plainCall(u) && matchGitRead(u, c) }

var versionArgs = newSet("--version", "-version", "-V", "version", "--help", "-help", "help", "-v", "-h", "-VV")

func matchVersionCheck(u *unit, _ *Classifier) bool {
	if !plainCall(u) || len(u.args) != 1 || !versionArgs.has(u.args[0].val) || !versionCheckSafe(u) {
		return false
	}
	v := u.args[0].val
	if (v == "-v" || v == "-h" || v == "help" || v == "version") && (shellNames.has(u.name) || sudoCmds.has(u.name) || isInterpreterName(u.name)) {
		return false
	}
	return true
}

var windowsSafe = newSet("dir", "type", "cls", "ver", "where", "whoami", "hostname", "echo", "findstr", "more", "tree",
	"systeminfo", "ipconfig", "tasklist", "set", "vol", "path", "get-childitem", "get-content", "get-location",
	"select-string", "get-process", "get-service", "get-command", "get-help", "write-output", "write-host",
	"get-item", "get-itemproperty", "test-path", "resolve-path", "get-date", "get-host", "get-computerinfo",
	"measure-object", "select-object", "where-object", "format-table", "format-list", "sort-object", "out-string",
	"get-filehash", "get-acl", "get-psdrive", "get-variable", "get-module", "chdir", "getmac", "wmic", "fc.exe", "comp")

func matchWindowsSafe(u *unit, _ *Classifier) bool {
	if !plainCall(u) {
		return false
	}
	n := strings.ToLower(u.name)
	if !windowsSafe.has(n) || safeCmds.has(u.name) {
		// A name both lists hold (hostname, tree, more, …) is the POSIX
		// program, judged with its checks by matchCommonSafe: hostname
		// NAME sets the host's name, tree -o writes a file.
		return false
	}
	switch n {
	case "ipconfig":
		for _, f := range u.args {
			l := strings.ToLower(f.val)
			if l == "/release" || l == "/renew" || l == "/release6" || l == "/renew6" || l == "/setclassid" {
				return false
			}
		}
	case "wmic":
		for _, f := range u.args {
			l := strings.ToLower(f.val)
			if l == "call" || l == "delete" || l == "set" || l == "create" {
				return false
			}
		}
	case "path":
		return len(u.args) == 0
	}
	return true
}

var cdSleepCmds = newSet("cd", "pushd", "popd", "dirs", "sleep", "wait", "chdir", "Set-Location", "Start-Sleep", "timeout.exe")

func matchCdSleep(u *unit, _ *Classifier) bool {
	return plainCall(u) && cdSleepCmds.has(u.name)
}

var psCmds = newSet("ps", "pgrep", "pstree", "top", "htop", "btop", "atop", "uptime", "free", "vmstat", "iostat", "mpstat",
	"pidof", "jobs", "w", "who", "lsof", "pidstat", "sar", "procs", "glances", "nvidia-smi", "tasklist", "Get-Process",
	"loadavg", "iotop", "nethogs", "ss", "netstat", "sockstat")

func matchProcessList(u *unit, _ *Classifier) bool {
	if !plainCall(u) || !psCmds.has(u.name) {
		return false
	}
	if u.name == "nvidia-smi" {
		return len(u.args) == 0 || u.hasExactFlag("Lq", "--query-gpu", "--list-gpus")
	}
	return true
}
