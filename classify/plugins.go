package classify

import (
	"slices"
	"strings"
)

// pluginOptions load a shared object the program runs (binutils'
// --plugin): code only known at run time. Found by red-team round 49.
var pluginOptions = map[string][]string{"nm": {"--plugin"}, "ar": {"--plugin"}, "ranlib": {"--plugin"}}

// loadsPlugin marks u as running code only known at run time (eval-exec)
// where it is given a plugin to load.
func loadsPlugin(u *unit) {
	if opts, ok := pluginOptions[u.name]; ok && u.hasFlag("", opts...) {
		u.script = &stream{traits: trUnknown}
	}
	// git --exec-path=DIR runs its subcommands (git-status, …) from DIR.
	if u.name == "git" && slices.ContainsFunc(u.args, func(f field) bool { return strings.HasPrefix(f.val, "--exec-path=") }) {
		u.script = &stream{traits: trUnknown}
	}
}
