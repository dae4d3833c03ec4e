package policy

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// wantErr is one expected error: its exact position and a substring of its
// message.
type wantErr struct {
	line, col int
	msg       string
}

func (w wantErr) String() string { return fmt.Sprintf("%d:%d: …%s…", w.line, w.col, w.msg) }

// parseErrs parses src and returns its errors (failing if it is valid).
func parseErrs(t *testing.T, src string) []ManifestError {
	t.Helper()
	m, err := ParseManifestWith("m.yaml", []byte(src), LoadOptions{Home: "/home/u", BaseDir: "/srv/agent"})
	if err == nil {
		t.Fatalf("manifest accepted, want errors; got %+v", m)
	}
	var me *ManifestErrors
	if !errors.As(err, &me) {
		t.Fatalf("error is %T (%v), want *ManifestErrors", err, err)
	}
	if !errors.Is(err, ErrInvalidManifest) {
		t.Errorf("errors.Is(err, ErrInvalidManifest) = false")
	}
	return me.List
}

func checkErrs(t *testing.T, src string, want []wantErr) {
	t.Helper()
	got := parseErrs(t, src)
	var b strings.Builder
	for _, e := range got {
		fmt.Fprintf(&b, "\n  %d:%d: %s", e.Line, e.Col, e.Msg)
	}
	if len(got) != len(want) {
		t.Fatalf("got %d errors, want %d %v:%s", len(got), len(want), want, b.String())
	}
	for i, w := range want {
		g := got[i]
		if g.File != "m.yaml" || g.Line != w.line || g.Col != w.col || !strings.Contains(g.Msg, w.msg) {
			t.Errorf("error %d = %s:%d:%d: %s\nwant m.yaml:%s", i, g.File, g.Line, g.Col, g.Msg, w)
		}
	}
}

func TestManifestErrors(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want []wantErr
	}{
		// Unknown keys at every depth, with suggestions.
		{"unknown top-level key", "name: a\npermisions: {}\n",
			[]wantErr{{2, 1, `unknown key "permisions" in the manifest (did you mean "permissions"?)`}}},
		{"unknown key without suggestion lists the allowed ones", "name: a\nzzz: 1\n",
			[]wantErr{{2, 1, `unknown key "zzz" in the manifest; allowed keys: name, version, description, runtime, permissions, limits, audit`}}},
		{"unknown key at depth 2", "name: a\npermissions:\n  filesytem: {}\n",
			[]wantErr{{3, 3, `unknown key "filesytem" in permissions (did you mean "filesystem"?)`}}},
		{"unknown key at depth 3", "name: a\npermissions:\n  filesystem:\n    read: [/a]\n    wirte: [/b]\n",
			[]wantErr{{5, 5, `unknown key "wirte" in permissions.filesystem (did you mean "write"?)`}}},
		{"unknown key in a flow mapping", "name: a\nlimits: {max_tokens: 5, timeout: 5s}\n",
			[]wantErr{{2, 25, `unknown key "timeout" in limits (did you mean "max_duration"?)`}}},
		{"unknown key in a credential", "name: a\npermissions:\n  network: {allow: [x.com]}\n  credentials:\n    - {name: TOKEN, hots: [x.com]}\n",
			[]wantErr{{5, 21, `unknown key "hots" in permissions.credentials[0] (did you mean "hosts"?)`}}},
		{"case typo", "name: a\naudit: {Log_Level: full}\n",
			[]wantErr{{2, 9, `(did you mean "log_level"?)`}}},

		// An empty read list would read everywhere (red-team round 50).
		{"read list empty", "name: a\npermissions:\n  filesystem:\n    read: []\n",
			[]wantErr{{4, 11, `permissions.filesystem.read is empty, which would not mean "read nothing"`}}},
		{"read list null", "name: a\npermissions:\n  filesystem:\n    read:\n    write: [/b]\n",
			[]wantErr{{4, 10, `permissions.filesystem.read is empty`}}},

		// Shell expansions anywhere in a path name no file (red-team round 50).
		{"variable mid-path", "name: a\npermissions:\n  filesystem:\n    deny: [/nonexistent/$USER/.ssh]\n",
			[]wantErr{{4, 12, `"/nonexistent/$USER/.ssh" names an environment variable or a command's output`}}},
		{"command substitution", "name: a\npermissions:\n  filesystem:\n    deny: [\"/nonexistent/$(whoami)/.aws\"]\n",
			[]wantErr{{4, 12, `names an environment variable or a command's output`}}},
		{"backquotes", "name: a\npermissions:\n  filesystem:\n    deny: [\"/nonexistent/`whoami`/.aws\"]\n",
			[]wantErr{{4, 12, `names an environment variable or a command's output`}}},
		{"brace expansion", "name: a\npermissions:\n  filesystem:\n    deny: [\"/nonexistent/{a,b}.txt\"]\n",
			[]wantErr{{4, 12, `is a pattern`}}},
		{"braced variable", "name: a\npermissions:\n  filesystem:\n    read: [\"${HOME}/x\"]\n",
			[]wantErr{{4, 12, `names an environment variable`}}},

		// Writable paths in kernel filesystems.
		{"writable /proc", "name: a\npermissions:\n  filesystem:\n    write: [./out, /proc/sys]\n",
			[]wantErr{{4, 20, "permissions.filesystem.write: /proc/sys is inside /proc, a kernel filesystem, which cannot be writable"}}},
		{"writable /dev but /dev/shm", "name: a\npermissions:\n  filesystem:\n    write: [/dev/shm/x, /dev]\n",
			[]wantErr{{4, 25, "permissions.filesystem.write: /dev is a kernel filesystem"}}},
		{"writable /", "name: a\npermissions:\n  filesystem:\n    write: [/etc, /]\n",
			[]wantErr{{4, 19, "permissions.filesystem.write: / cannot be a writable root: it would make the whole host writable"}}},
		{"writable / spelt /..", "name: a\npermissions:\n  filesystem:\n    write: [/..]\n",
			[]wantErr{{4, 13, "/ cannot be a writable root"}}},
		{"deny patterns", "name: a\npermissions:\n  filesystem:\n    deny: [\"/nonexistent/*.pem\", \"/nonexistent/x?\"]\n    read: [\"/nonexistent/[ab]\"]\n",
			[]wantErr{{4, 12, `permissions.filesystem.deny[0]: "/nonexistent/*.pem" is a pattern, and paths here are not patterns`},
				{4, 34, `"/nonexistent/x?" is a pattern`}, {5, 12, `"/nonexistent/[ab]" is a pattern`}}},

		// Wrong types.
		{"name is an integer", "name: 123\n", []wantErr{{1, 7, "name must be a string such as my-agent, not the integer 123"}}},
		{"permissions is a list", "name: a\npermissions: [a]\n", []wantErr{{2, 14, "permissions must be a mapping of keys to values, not a list"}}},
		{"manifest is a list", "- name: a\n", []wantErr{{1, 1, "the manifest must be a mapping of keys to values, not a list"}}},
		{"path list is a string", "name: a\npermissions:\n  filesystem: {read: /etc}\n",
			[]wantErr{{3, 22, `permissions.filesystem.read must be a list, not the string "/etc" (write ["/etc"])`}}},
		{"path is a mapping", "name: a\npermissions:\n  filesystem: {read: [{a: b}]}\n",
			[]wantErr{{3, 23, "permissions.filesystem.read[0] must be a path string, not a mapping"}}},
		{"quoted integer", "name: a\nlimits:\n  max_tokens: \"500\"\n",
			[]wantErr{{3, 15, `limits.max_tokens must be an integer greater than 0, not the string "500" (remove the quotes)`}}},
		{"float memory", "name: a\nlimits:\n  max_memory_mb: 1.5\n",
			[]wantErr{{3, 18, "limits.max_memory_mb must be an integer greater than 0, not the number 1.5"}}},
		{"tools.allow is a mapping", "name: a\npermissions:\n  tools:\n    allow: {x: y}\n",
			[]wantErr{{4, 12, "permissions.tools.allow must be a list, not a mapping"}}},
		{"log_level is an integer", "name: a\naudit:\n  log_level: 3\n",
			[]wantErr{{3, 14, "audit.log_level must be one of off, minimal, standard, full, not the integer 3"}}},
		{"quoted boolean", "name: a\npermissions:\n  filesystem: {git_writes: \"true\"}\n",
			[]wantErr{{3, 28, `permissions.filesystem.git_writes must be true or false, not the string "true" (remove the quotes)`}}},
		{"YAML 1.1 boolean", "name: a\npermissions:\n  network:\n    unix_sockets: yes\n",
			[]wantErr{{4, 19, `permissions.network.unix_sockets must be true or false, not the string "yes"`}}},
		{"boolean description", "name: a\ndescription: true\n",
			[]wantErr{{2, 14, "description must be a string, not the boolean true"}}},
		{"null scalar", "name: a\nruntime:\n", []wantErr{{2, 9, "runtime must be one of native, gvisor, docker, firecracker, not an empty value"}}},
		{"version is a list", "name: a\nversion: [1]\n", []wantErr{{2, 10, `version must be a string such as "1.0.0", not a list`}}},

		// Duplicate keys.
		{"duplicate top-level key", "name: a\nruntime: native\nname: b\n",
			[]wantErr{{3, 1, `duplicate key "name" in the manifest (first set at line 1); keep only one`}}},
		{"duplicate nested key", "name: a\npermissions:\n  network:\n    allow: [a.com]\n    allow: [b.com]\n",
			[]wantErr{{5, 5, `duplicate key "allow" in permissions.network (first set at line 4)`}}},
		{"duplicate key in a flow mapping", "name: a\nlimits: {max_tokens: 1, max_tokens: 2}\n",
			[]wantErr{{2, 25, `duplicate key "max_tokens" in limits (first set at line 2)`}}},

		// Names.
		{"upper-case name", "name: Email_Sorter\n", []wantErr{{1, 7, `name "Email_Sorter" is not valid: use lowercase letters, digits and hyphens, starting with a letter or digit (e.g. "email-sorter")`}}},
		{"leading hyphen", "name: -x\n", []wantErr{{1, 7, `name "-x" is not valid`}}},
		{"accented name", "name: émail-sörter\n", []wantErr{{1, 7, `(e.g. "email-sorter")`}}},
		{"empty name", "name: \"\"\n", []wantErr{{1, 7, "name is empty"}}},
		{"long name", "name: " + strings.Repeat("a", 64) + "\n", []wantErr{{1, 7, "name is 64 characters long; the limit is 63"}}},
		{"missing name", "runtime: native\n", []wantErr{{1, 1, `missing required key "name"`}}},

		// Runtime.
		{"bad runtime", "name: a\nruntime: gvisr\n", []wantErr{{2, 10, `runtime "gvisr" is not one of native, gvisor, docker, firecracker (did you mean "gvisor"?)`}}},
		{"unknown runtime", "name: a\nruntime: qemu\n", []wantErr{{2, 10, `runtime "qemu" is not one of native, gvisor, docker, firecracker`}}},

		// Durations.
		{"unparsable duration", "name: a\nlimits: {max_duration: soon}\n", []wantErr{{2, 24, `limits.max_duration: "soon" is not a duration; write e.g. 30m, 90s or 1h30m`}}},
		{"duration without unit", "name: a\nlimits: {max_duration: 30}\n", []wantErr{{2, 24, "limits.max_duration: 30 has no unit; write e.g. 30s or 30m"}}},
		{"zero duration", "name: a\nlimits: {max_duration: 0s}\n", []wantErr{{2, 24, "limits.max_duration must be greater than 0, not 0s; remove the key for no limit"}}},
		{"bare zero duration", "name: a\nlimits: {max_duration: 0}\n", []wantErr{{2, 24, "limits.max_duration must be greater than 0, not 0"}}},
		{"negative duration", "name: a\nlimits: {max_duration: -5m}\n", []wantErr{{2, 24, "limits.max_duration must be greater than 0, not -5m"}}},
		{"empty duration", "name: a\nlimits: {max_duration: \"\"}\n", []wantErr{{2, 24, `limits.max_duration: "" is not a duration`}}},

		// Integers.
		{"zero memory", "name: a\nlimits: {max_memory_mb: 0}\n", []wantErr{{2, 25, "limits.max_memory_mb must be greater than 0, not 0; remove the key for the default of 2048 MiB"}}},
		{"negative requests", "name: a\nlimits: {max_requests: -3}\n", []wantErr{{2, 24, "limits.max_requests must be greater than 0, not -3"}}},
		{"zero tool calls", "name: a\nlimits: {max_tool_calls: 0}\n", []wantErr{{2, 26, "limits.max_tool_calls must be greater than 0, not 0"}}},
		{"memory overflows bytes", "name: a\nlimits: {max_memory_mb: 8796093022208}\n", []wantErr{{2, 25, "limits.max_memory_mb is too large (at most 8796093022207)"}}},
		{"memory past int64", "name: a\nlimits: {max_memory_mb: 99999999999999999999}\n", []wantErr{{2, 25, "limits.max_memory_mb is too large (at most 8796093022207)"}}},
		{"tokens past int64", "name: a\nlimits: {max_tokens: 9223372036854775808}\n", []wantErr{{2, 22, "limits.max_tokens is too large (at most 9223372036854775807)"}}},
		{"octal-looking memory", "name: a\nlimits: {max_memory_mb: 017}\n", []wantErr{{2, 25, "limits.max_memory_mb: 017 has a leading zero, which YAML reads as octal; write 17"}}},
		{"leading zero, not octal", "name: a\nlimits: {max_requests: 08}\n", []wantErr{{2, 24, "limits.max_requests: 08 has a leading zero, which YAML reads as octal; write 8"}}},
		{"0o octal", "name: a\nlimits: {max_tokens: 0o17}\n", []wantErr{{2, 22, "limits.max_tokens: write 0o17 in decimal, 15"}}},
		{"hexadecimal", "name: a\nlimits: {max_memory_mb: 0x100}\n", []wantErr{{2, 25, "limits.max_memory_mb: write 0x100 in decimal, 256"}}},
		{"duration past int64", "name: a\nlimits: {max_duration: 9999999999h}\n", []wantErr{{2, 24, "limits.max_duration: 9999999999h is too long (at most 2562047h, about 292 years); remove the key for no limit"}}},
		{"not a duration", "name: a\nlimits: {max_duration: 5 minutes}\n", []wantErr{{2, 24, `limits.max_duration: "5 minutes" is not a duration`}}},
		{"integer overflows int64", "name: a\nlimits: {max_tokens: 99999999999999999999}\n", []wantErr{{2, 22, "limits.max_tokens is too large (at most 9223372036854775807)"}}},

		// Host patterns.
		{"URL instead of host", "name: a\npermissions:\n  network:\n    allow: [\"https://api.x.com/v1\"]\n",
			[]wantErr{{4, 13, `permissions.network.allow[0]: "https://api.x.com/v1" is a URL; write only the host: "api.x.com"`}}},
		{"star in allow", "name: a\npermissions:\n  network: {allow: [\"*\"]}\n",
			[]wantErr{{3, 21, `permissions.network.allow[0]: "*" would allow every host`}}},
		{"bad host patterns", "name: a\npermissions:\n  network:\n    deny:\n      - a..b\n      - \"*.*.x.com\"\n      - \"foo*.com\"\n      - x.com:0\n      - x.com:70000\n      - \"[::1\"\n      - 1.2.3\n      - \"*.10.0.0.1\"\n      - \"127.1\"\n      - x!.com\n      - \"fe80::1%eth0\"\n      - \"[10.0.0.1]:80\"\n      - \"\"\n",
			[]wantErr{
				{5, 9, `"a..b": empty label`},
				{6, 9, `"*.*.x.com": only one leading *. wildcard label is allowed`},
				{7, 9, `"foo*.com": * may only stand alone`},
				{8, 9, `"x.com:0": port "0" must be a number from 1 to 65535`},
				{9, 9, `port "70000" must be a number from 1 to 65535`},
				{10, 9, `"[::1": missing ] after the IPv6 address`},
				{11, 9, `"1.2.3": ends in a number but is not a canonical IPv4 address`},
				{12, 9, `"*.10.0.0.1": an IP address cannot have a *. wildcard`},
				{13, 9, `"127.1": ends in a number but is not a canonical IPv4 address (write it as a.b.c.d)`},
				{14, 9, `"x!.com": character '!' is not allowed in a host name`},
				{15, 9, "IPv6 zones (%eth0) are not supported"},
				{16, 9, "only IPv6 addresses go in [brackets]"},
				{17, 9, "permissions.network.deny[12] is empty"},
			}},
		{"deny list is a bare star", "name: a\npermissions:\n  network: {deny: \"*\"}\n",
			[]wantErr{{3, 19, `permissions.network.deny must be a list, not the string "*" (write ["*"])`}}},

		// Tool globs.
		{"bad tool globs", "name: a\npermissions:\n  tools:\n    allow: [\"[abc\", \"a b\", \"x\\\\\"]\n",
			[]wantErr{
				{4, 13, `permissions.tools.allow[0]: tool pattern "[abc" is malformed`},
				{4, 21, `permissions.tools.allow[1]: tool pattern "a b" contains whitespace`},
				{4, 28, `permissions.tools.allow[2]: tool pattern "x\\" is malformed`},
			}},

		// Credentials.
		{"bad credential names", "name: a\npermissions:\n  credentials: [lower, 1ABC, API-KEY]\n",
			[]wantErr{
				{3, 17, `credential name "lower" is not valid: use upper-case letters, digits and _, not starting with a digit (e.g. LOWER)`},
				{3, 24, `credential name "1ABC" is not valid`},
				{3, 30, `credential name "API-KEY" is not valid: use upper-case letters, digits and _, not starting with a digit (e.g. API_KEY)`},
			}},
		{"forbidden credential names", "name: a\npermissions:\n  credentials:\n    - PATH\n    - LD_PRELOAD\n    - DYLD_INSERT_LIBRARIES\n    - GIT_SSH_COMMAND\n    - HTTPS_PROXY\n    - PYTHONPATH\n    - BASH_ENV\n    - SSL_CERT_FILE\n    - NODE_OPTIONS\n    - AGENTBOX_STATE_DIR\n",
			[]wantErr{
				{4, 7, "credential name PATH is reserved: it changes where programs and libraries are found or loaded from"},
				{5, 7, "credential name LD_PRELOAD (LD_*) is reserved"},
				{6, 7, "credential name DYLD_INSERT_LIBRARIES (DYLD_*) is reserved"},
				{7, 7, "credential name GIT_SSH_COMMAND (GIT_*) is reserved: git reads GIT_* variables"},
				{8, 7, "credential name HTTPS_PROXY is reserved: it redirects network traffic"},
				{9, 7, "credential name PYTHONPATH (PYTHON*) is reserved"},
				{10, 7, "credential name BASH_ENV (BASH_*) is reserved: the shell reads it"},
				{11, 7, "credential name SSL_CERT_FILE is reserved"},
				{12, 7, "credential name NODE_OPTIONS is reserved"},
				{13, 7, "credential name AGENTBOX_STATE_DIR (AGENTBOX_*) is reserved"},
			}},
		{"duplicate credential", "name: a\npermissions:\n  credentials: [TOKEN, {name: TOKEN}]\n",
			[]wantErr{{3, 24, "permissions.credentials[1]: credential TOKEN is listed twice (also at line 3)"}}},
		{"credential long form without name", "name: a\npermissions:\n  credentials: [{header: Authorization}]\n",
			[]wantErr{{3, 17, `permissions.credentials[0]: missing required key "name"`}}},
		{"credential header", "name: a\npermissions:\n  network: {allow: [x.com]}\n  credentials:\n    - {name: A, header: Host}\n    - {name: B, header: \"X Key\"}\n",
			[]wantErr{
				{5, 25, "permissions.credentials[0].header: header Host frames or routes the request"},
				{6, 25, `permissions.credentials[1].header: "X Key" is not an HTTP header name`},
			}},
		{"credential header that frames the request, with _ for -", "name: a\npermissions:\n  network: {allow: [x.com]}\n  credentials:\n    - {name: A, header: Content_Length}\n    - {name: B, header: transfer_ENCODING}\n    - {name: C, header: Proxy_Authorization}\n    - {name: D, header: host}\n    - {name: E, header: X_Api_Key}\n",
			[]wantErr{
				{5, 25, "permissions.credentials[0].header: header Content_Length frames or routes the request and cannot carry a credential; use e.g. Authorization or X-Api-Key"},
				{6, 25, "permissions.credentials[1].header: header transfer_ENCODING frames or routes the request"},
				{7, 25, "permissions.credentials[2].header: header Proxy_Authorization frames or routes the request"},
				{8, 25, "permissions.credentials[3].header: header host frames or routes the request"},
			}},
		{"credential header servers send back", "name: a\npermissions:\n  network: {allow: [x.com]}\n  credentials:\n    - {name: A, header: Idempotency-Key}\n    - {name: B, header: x_csrf_token}\n    - {name: C, header: X-Api-Key}\n",
			[]wantErr{
				{5, 25, "permissions.credentials[0].header: header Idempotency-Key is one servers store and send back (in responses, pages or webhook events), so the value would reach the sandbox; use the header the service reads the credential from, e.g. Authorization or X-Api-Key"},
				{6, 25, "permissions.credentials[1].header: header x_csrf_token is one servers store and send back"},
			}},
		{"credential host not allowed", "name: a\npermissions:\n  network: {allow: [\"*.github.com\", \"x.com:443\"]}\n  credentials:\n    - {name: A, hosts: [api.github.com, github.com, x.com, \"x.com:443\"]}\n",
			[]wantErr{
				{5, 41, "credential A is bound to github.com, which permissions.network.allow does not allow"},
				{5, 53, "credential A is bound to x.com, which permissions.network.allow does not allow"},
			}},
		{"credential host star", "name: a\npermissions:\n  credentials: [{name: A, hosts: [\"*\"]}]\n",
			[]wantErr{{3, 35, `permissions.credentials[0].hosts[0]: "*" would allow every host`}}},

		// Audit.
		{"bad alert_on", "name: a\naudit:\n  alert_on: [network_denied, foo, token_budget_80]\n",
			[]wantErr{
				{3, 14, `audit.alert_on[0]: unknown alert "network_denied" (did you mean "network_deny"?)`},
				{3, 30, `audit.alert_on[1]: unknown alert "foo"; known alerts: filesystem_deny, network_deny`},
				{3, 35, `audit.alert_on[2]: unknown alert "token_budget_80" (did you mean "token_budget_80pct"?)`},
			}},
		{"bad log_level", "name: a\naudit: {log_level: verbose}\n",
			[]wantErr{{2, 20, `audit.log_level: "verbose" is not a log level; use one of off, minimal, standard, full`}}},
		{"log_level typo", "name: a\naudit: {log_level: ful}\n",
			[]wantErr{{2, 20, `(did you mean "full"?)`}}},

		// Paths.
		{"tilde user", "name: a\npermissions:\n  filesystem: {read: [\"~bob/x\"]}\n",
			[]wantErr{{3, 23, `permissions.filesystem.read[0]: "~bob/x": only ~ and ~/... (your own home) are supported, not ~user`}}},
		{"empty path", "name: a\npermissions:\n  filesystem: {deny: [\"\"]}\n",
			[]wantErr{{3, 23, "permissions.filesystem.deny[0]: empty path"}}},
		{"blank path", "name: a\npermissions:\n  filesystem: {deny: [\" \"]}\n",
			[]wantErr{{3, 23, `permissions.filesystem.deny[0]: " " is blank; remove it or write a path`}}},
		{"whitespace path", "name: a\npermissions:\n  filesystem: {write: [\"  \"]}\n",
			[]wantErr{{3, 24, `permissions.filesystem.write[0]: "  " is blank`}}},

		// Control characters in any string that is printed.
		{"escape in version", "name: a\nversion: \"1.0\\e[8m\"\n",
			[]wantErr{{2, 10, "version: contains a control character (U+001B); remove it"}}},
		{"C1 control in version", "name: a\nversion: \"1\\x9b2J\"\n",
			[]wantErr{{2, 10, "version: contains a control character (U+009B); remove it"}}},
		{"escape in description", "name: a\ndescription: \"sorts mail\\e[8m\"\n",
			[]wantErr{{2, 14, "description: contains a control character (U+001B); remove it"}}},
		{"bidi override in description", "name: a\ndescription: \"sorts \u202email\"\n",
			[]wantErr{{2, 14, "description: contains a control character (U+202E); remove it"}}},
		{"line separator in description", "name: a\ndescription: \"sorts\u2028mail\"\n",
			[]wantErr{{2, 14, "description: contains a control character (U+2028); remove it"}}},
		{"DEL in description", "name: a\ndescription: \"a\\x7fb\"\n",
			[]wantErr{{2, 14, "description: contains a control character (U+007F); remove it"}}},
		{"line break in log path", "name: a\naudit: {log_path: \"/l/a\\nb.log\"}\n",
			[]wantErr{{2, 19, "audit.log_path: contains a control character (U+000A); remove it"}}},
		{"escape in log path", "name: a\naudit: {log_path: \"/l/a\\e[14A.log\"}\n",
			[]wantErr{{2, 19, "audit.log_path: contains a control character (U+001B); remove it"}}},
		{"tab in path", "name: a\npermissions:\n  filesystem: {write: [\"\\t \"]}\n",
			[]wantErr{{3, 24, "permissions.filesystem.write[0]: contains a control character (U+0009); remove it"}}},
		{"isolate in deny path", "name: a\npermissions:\n  filesystem: {deny: [\"/x\u2066y\"]}\n",
			[]wantErr{{3, 23, "permissions.filesystem.deny[0]: contains a control character (U+2066); remove it"}}},
		{"mark in read path", "name: a\npermissions:\n  filesystem: {read: [\"/x\u200fy\"]}\n",
			[]wantErr{{3, 23, "permissions.filesystem.read[0]: contains a control character (U+200F); remove it"}}},
		{"paragraph separator in scratch path", "name: a\npermissions:\n  filesystem: {scratch: [\"~/x\u2029\"]}\n",
			[]wantErr{{3, 26, "permissions.filesystem.scratch[0]: contains a control character (U+2029); remove it"}}},
		{"escape in host", "name: a\npermissions:\n  network: {allow: [\"a\\e.com\"]}\n",
			[]wantErr{{3, 21, "permissions.network.allow[0]: contains a control character (U+001B); remove it"}}},
		{"empty log path", "name: a\naudit: {log_path: \"\"}\n",
			[]wantErr{{2, 19, "audit.log_path: empty path"}}},

		// YAML features a manifest does not use.
		{"alias", "name: a\npermissions:\n  tools:\n    allow: &t [x]\n    deny: *t\n",
			[]wantErr{{5, 11, "permissions.tools.deny: YAML aliases (*t) are not supported in manifests; write the value out"}}},
		{"merge key", "name: a\nlimits:\n  <<: {max_tokens: 5}\n",
			[]wantErr{{3, 3, "merge keys (<<) are not supported in manifests; write the keys out"}}},
		{"custom tag", "name: !agent a\n", []wantErr{{1, 7, "name: custom YAML tag \"!agent\" is not supported; remove it"}}},
		{"complex key", "name: a\n? [x]\n: 1\n", []wantErr{{2, 3, "keys in the manifest must be plain names, not a list"}}},
		{"second document", "name: a\n---\nname: b\n", []wantErr{{2, 1, "a manifest is one YAML document; remove this second document"}}},
		{"empty manifest", "", []wantErr{{1, 1, "the manifest is empty; it needs at least a name"}}},
		{"comments only", "# nothing\n", []wantErr{{1, 1, "the manifest is empty"}}},
		{"syntax error", "name: a\nlimits:\n  max_tokens: 1\n   max_requests: 2\n", []wantErr{{4, 1, "YAML syntax error: mapping values are not allowed in this context"}}},
		{"scanner error", "name: a\ndescription: \"x\\q\"\n", []wantErr{{2, 1, "YAML syntax error: found unknown escape character"}}},
		{"tab indentation", "name: a\npermissions:\n\tfilesystem: {}\n",
			[]wantErr{{3, 1, "YAML syntax error: a tab indents this line, and YAML indents with spaces only; replace the tab with spaces"}}},
		{"tab after spaces", "name: a\nlimits:\n  max_tokens: 1\n  \tmax_requests: 2\n", []wantErr{{4, 3, "a tab indents this line"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { checkErrs(t, tt.src, tt.want) })
	}
}

// TestManifestErrorsAllAtOnce checks that one pass reports every problem of
// a manifest that is wrong in many places, in file order.
func TestManifestErrorsAllAtOnce(t *testing.T) {
	src := `name: Bad_Name
runtime: qemu
permissions:
  filesystem:
    wirte: [/tmp]
    read: [/a]
    read: [/b]
  network:
    allow: ["*", ok.com, "a..b"]
  tools: {allow: ["[x"]}
  credentials: [PATH, TOKEN, TOKEN]
limits:
  max_duration: 0s
  max_memory_mb: 0
  max_tokens: -1
audit:
  log_level: loud
  alert_on: [nope]
extra: true
`
	checkErrs(t, src, []wantErr{
		{1, 7, `name "Bad_Name" is not valid`},
		{2, 10, `runtime "qemu" is not one of`},
		{5, 5, `unknown key "wirte" in permissions.filesystem (did you mean "write"?)`},
		{7, 5, `duplicate key "read" in permissions.filesystem (first set at line 6)`},
		{9, 13, `"*" would allow every host`},
		{9, 26, `"a..b": empty label`},
		{10, 19, `tool pattern "[x" is malformed`},
		{11, 17, "credential name PATH is reserved"},
		{11, 30, "credential TOKEN is listed twice (also at line 11)"},
		{13, 17, "limits.max_duration must be greater than 0"},
		{14, 18, "limits.max_memory_mb must be greater than 0"},
		{15, 15, "limits.max_tokens must be greater than 0"},
		{17, 14, `"loud" is not a log level`},
		{18, 14, `unknown alert "nope"`},
		{19, 1, `unknown key "extra" in the manifest`},
	})
}

func TestManifestErrorsFormat(t *testing.T) {
	errs := parseErrs(t, "name: a\nzzz: 1\nyyy: 2\n")
	err := &ManifestErrors{List: errs}
	want := "m.yaml:2:1: unknown key \"zzz\" in the manifest; allowed keys: name, version, description, runtime, permissions, limits, audit\n" +
		"m.yaml:3:1: unknown key \"yyy\" in the manifest; allowed keys: name, version, description, runtime, permissions, limits, audit"
	if err.Error() != want {
		t.Errorf("Error() =\n%s\nwant\n%s", err.Error(), want)
	}
}

func TestManifestErrorsCapped(t *testing.T) {
	var b strings.Builder
	b.WriteString("name: a\n")
	for i := range 3 * maxErrors {
		fmt.Fprintf(&b, "k%d: 1\n", i)
	}
	errs := parseErrs(t, b.String())
	if len(errs) != maxErrors {
		t.Fatalf("got %d errors, want the cap %d", len(errs), maxErrors)
	}
	if last := errs[len(errs)-1].Msg; !strings.Contains(last, "too many errors") {
		t.Errorf("last error = %q, want the too-many-errors note", last)
	}
}

func TestNetworkDenyStar(t *testing.T) {
	src := "name: a\npermissions:\n  network:\n    allow: [x.com]\n    deny: [\"*:*\", \"*:25\"]\n"
	m, err := ParseManifestWith("m.yaml", []byte(src), LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	n := m.Permissions.Network
	if !n.DenyAll || len(n.Deny) != 1 || n.Deny[0].String() != "*:25" {
		t.Errorf("network = %+v; want DenyAll and the *:25 rule kept", n)
	}
	checkErrs(t, "name: a\npermissions:\n  network: {allow: [\"*:443\"]}\n",
		[]wantErr{{3, 21, `permissions.network.allow[0]: "*:443" would allow every host`}})
}

// TestWrongTypeHints: a hint about quotes only where quotes are the
// mistake. The whole message is compared, so a hint where none belongs
// fails too.
func TestWrongTypeHints(t *testing.T) {
	for _, c := range []struct{ src, msg string }{
		{"limits:\n  max_tokens: \"500\"\n", `limits.max_tokens must be an integer greater than 0, not the string "500" (remove the quotes)`},
		{"limits:\n  max_tokens: lots\n", `limits.max_tokens must be an integer greater than 0, not the string "lots"`},
		{"limits:\n  max_requests: 'many'\n", `limits.max_requests must be an integer greater than 0, not the string "many"`},
		{"permissions:\n  network: {unix_sockets: 'false'}\n", `permissions.network.unix_sockets must be true or false, not the string "false" (remove the quotes)`},
		{"permissions:\n  network: {unix_sockets: on}\n", `permissions.network.unix_sockets must be true or false, not the string "on" (write true or false)`},
		{"permissions:\n  network: {unix_sockets: maybe}\n", `permissions.network.unix_sockets must be true or false, not the string "maybe"`},
	} {
		got := parseErrs(t, "name: a\n"+c.src)
		if len(got) != 1 || got[0].Msg != c.msg {
			t.Errorf("%q:\n got %+v\nwant %s", c.src, got, c.msg)
		}
	}
}
