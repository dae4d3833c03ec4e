package agentbox

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
)

// envAllow are the variables of the caller's environment a sandboxed
// command inherits; everything else (tokens, keys, session cookies) stays
// out unless passed explicitly.
var envAllow = map[string]bool{
	"PATH": true, "HOME": true, "USER": true, "LOGNAME": true, "LANG": true,
	"LANGUAGE": true, "TERM": true, "TZ": true, "SHELL": true, "COLORTERM": true,
}

func envAllowed(key string) bool {
	return envAllow[key] || strings.HasPrefix(key, "LC_")
}

// missingCaches point tools whose cache does not exist in the home yet at
// the sandbox's private /tmp: in the read-only home they could not create
// it (npm install fails on a missing ~/.npm), and a scratch overlay (see
// ToolCaches) needs a directory to lie over. Like a scratch directory's
// contents, what they write there is gone when the command ends.
var missingCaches = []struct{ dir, env, val string }{
	{".cache", "XDG_CACHE_HOME", "/tmp/.cache"},
	{".npm", "npm_config_cache", "/tmp/.npm"},
}

// sandboxEnv builds a command's environment: the allow-listed part of base,
// then TMPDIR=/tmp (the sandbox's private /tmp), then extra, which wins,
// and the variables of the caches missing from the final HOME that extra
// does not set.
func sandboxEnv(base []string, extra ...[]string) []string {
	vals := make(map[string]string)
	var order []string
	set := func(kv string) {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			return
		}
		if _, seen := vals[k]; !seen {
			order = append(order, k)
		}
		vals[k] = v
	}
	for _, kv := range base {
		if k, _, _ := strings.Cut(kv, "="); envAllowed(k) {
			set(kv)
		}
	}
	if _, ok := vals["PATH"]; !ok {
		set("PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin")
	}
	set("TMPDIR=/tmp")
	for _, e := range extra {
		for _, kv := range e {
			set(kv)
		}
	}
	// Only where /tmp is the sandbox's own (Linux): elsewhere it would be a
	// cache shared between commands.
	if home := vals["HOME"]; runtime.GOOS == "linux" && filepath.IsAbs(home) {
		for _, c := range missingCaches {
			if _, given := vals[c.env]; given {
				continue
			}
			if _, err := os.Lstat(filepath.Join(home, c.dir)); errors.Is(err, fs.ErrNotExist) {
				set(c.env + "=" + c.val)
			}
		}
	}
	out := make([]string, 0, len(order))
	for _, k := range order {
		out = append(out, k+"="+vals[k])
	}
	return out
}

// hostEnv is the caller's environment (a variable for tests).
var hostEnv = os.Environ

// mergeEnv returns env with the variables of over set, replacing any of the
// same name, in place and in order.
func mergeEnv(env []string, over []string) []string {
	at := make(map[string]int, len(env))
	out := make([]string, 0, len(env)+len(over))
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		if i, ok := at[k]; ok {
			out[i] = kv
			continue
		}
		at[k] = len(out)
		out = append(out, kv)
	}
	for _, kv := range over {
		k, _, _ := strings.Cut(kv, "=")
		if i, ok := at[k]; ok {
			out[i] = kv
			continue
		}
		at[k] = len(out)
		out = append(out, kv)
	}
	return out
}
