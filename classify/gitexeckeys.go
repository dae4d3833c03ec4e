package classify

import (
	"slices"
	"strings"
)

// gitExecKeys are configuration keys whose value git runs as a command:
// whole keys, and sections ending in "." whose every key is one (an
// alias, a pager per command, a diff or merge tool's settings).
var gitExecKeys = []string{"core.pager", "core.editor", "core.sshcommand", "core.fsmonitor", "core.hookspath",
	"core.askpass", "core.gitproxy", "core.alternaterefscommand", "sequence.editor", "diff.external",
	"credential.helper", "gpg.program", "interactive.difffilter", "protocol.ext.allow", "uploadpack.packobjectshook",
	"sendemail.smtpserver", "sendemail.sendmailcmd", "sendemail.tocmd", "sendemail.cccmd", "sendemail.headercmd",
	"pager.", "alias.", "difftool.", "mergetool.", "include.path", "includeif."}

// gitDriverNames are the last names of keys section.<name>.<last> that
// name a driver's or a remote's command (diff.<driver>.textconv,
// filter.<driver>.smudge, remote.<name>.uploadpack, man.<tool>.cmd …).
var gitDriverNames = []string{"command", "textconv", "driver", "clean", "smudge", "process", "cmd",
	"uploadpack", "receivepack", "external", "proxy"}

// gitExecSubKeys are the sections whose keys have a middle part
// (section.<name>.<last>, the name any text, dots and all: a URL for
// credential), each with the last names whose value git runs as a
// command: submodule.<name>.update = !cmd (git submodule update),
// trailer.<token>.command (git interpret-trailers), credential.<url>.helper,
// gpg.<format>.program, hook.<name>.command (found by red-team round 61).
var gitExecSubKeys = map[string][]string{
	"diff": gitDriverNames, "merge": gitDriverNames, "filter": gitDriverNames, "remote": gitDriverNames,
	"url": gitDriverNames, "man": gitDriverNames, "browser": gitDriverNames,
	"submodule":  {"update"},
	"trailer":    {"command", "cmd"},
	"credential": {"helper"},
	"gpg":        {"program", "defaultkeycommand"},
	"guitool":    {"cmd"},
	"hook":       {"command"},
}

// gitExecKey reports whether git runs the value of configuration key k
// (any case) as a command.
func gitExecKey(k string) bool {
	k = strings.ToLower(k)
	for _, e := range gitExecKeys {
		if k == e || strings.HasSuffix(e, ".") && strings.HasPrefix(k, e) {
			return true
		}
	}
	section, rest, ok := strings.Cut(k, ".")
	if !ok {
		return false
	}
	last := rest[strings.LastIndexByte(rest, '.')+1:]
	return slices.Contains(gitExecSubKeys[section], last)
}
