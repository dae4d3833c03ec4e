package classify

import (
	"slices"
	"strings"
	"sync"
)

// wrapSpec describes, as data, how a wrapper program finds the command it
// runs among its arguments.
type wrapSpec struct {
	argShort    string   // short options that take a value (-u root, -uroot)
	argLong     []string // long options that take a value (--user root, --user=root)
	cmdShort    string   // short option whose value is a shell command string (su -c)
	cmdLong     []string // long forms of it
	splitShort  string   // short option whose value is split into words and prepended (env -S)
	splitLong   []string
	noExecShort string   // short options after which no command runs (command -v, taskset -p)
	noExecLong  []string //
	positional  int      // operands before the command (timeout DURATION, flock FILE)
	assigns     bool     // NAME=VALUE words may precede the command
	join        bool     // the command words are joined and run by sh -c (watch, sg)
	optOnly     bool     // the command comes only from cmdShort/cmdLong (script -c)
	numFlags    bool     // -N is a flag (nice -10)
	transparent bool     // the wrapper itself adds nothing: only the payload is judged
	defCmd      string   // command run when none is given (xargs → echo)
	shellFlags  string   // short options that start a shell when no command is given (sudo -s, -i)
	emptyShell  bool     // with no command, an interactive shell runs (chroot, unshare)
	chdirShort  string   // short option whose value is the command's working directory (env -C)
	chdirLong   []string // long forms of it
	arg2Long    []string // long options that take two values (bwrap --bind SRC DEST)
	arg3Long    []string // long options that take three values (bwrap --overlay RWSRC WORKDIR DEST)
	progShort   string   // short options whose value is the program run, its arguments after -- (start-stop-daemon -a PROG); the first listed wins
	progLong    []string // long forms of them, in the same order
	ddShell     bool     // the words after -- are a shell's arguments (capsh -- -c CMD), or those of the progLong program (capsh --shell=/bin/rm -- -rf /); without --, nothing runs
	flagLong    []string // long options without a value whose name begins another's (start-stop-daemon --start, --startas)
	octalArgs   bool     // \NNN in the command's words is decoded first (fstab-decode rm -rf /\150ome)
	flagsAfter  bool     // options without values may follow the positional operands (setarch ARCH -R CMD)
	dashLong    []string // long options written with one dash that take a value (screen -Logfile FILE)
}

// wrappers maps program names to their specs.
var wrappers = sync.OnceValue(func() map[string]*wrapSpec {
	m := map[string]*wrapSpec{
		"env":              {argShort: "uCP", argLong: []string{"--unset", "--chdir"}, splitShort: "S", splitLong: []string{"--split-string"}, assigns: true, transparent: true, chdirShort: "C", chdirLong: []string{"--chdir"}},
		"command":          {noExecShort: "vV", transparent: true},
		"builtin":          {transparent: true},
		"exec":             {argShort: "a", transparent: true},
		"nice":             {argShort: "n", argLong: []string{"--adjustment"}, numFlags: true, transparent: true},
		"nohup":            {transparent: true},
		"timeout":          {argShort: "sk", argLong: []string{"--signal", "--kill-after"}, positional: 1, transparent: true},
		"stdbuf":           {argShort: "ioe", argLong: []string{"--input", "--output", "--error"}, transparent: true},
		"time":             {argShort: "fo", argLong: []string{"--format", "--output"}, transparent: true},
		"setsid":           {transparent: true},
		"ionice":           {argShort: "cnpPu", argLong: []string{"--class", "--classdata", "--pid", "--pgid", "--uid"}, noExecShort: "pPu", noExecLong: []string{"--pid", "--pgid", "--uid"}, transparent: true},
		"taskset":          {noExecShort: "p", noExecLong: []string{"--pid"}, positional: 1, transparent: true},
		"chrt":             {argShort: "TPD", argLong: []string{"--sched-runtime", "--sched-period", "--sched-deadline"}, noExecShort: "p", positional: 1, transparent: true},
		"flock":            {argShort: "wE", argLong: []string{"--timeout", "--wait", "--conflict-exit-code"}, cmdShort: "c", cmdLong: []string{"--command"}, positional: 1, transparent: true},
		"watch":            {argShort: "nq", argLong: []string{"--interval", "--equexit"}, join: true, transparent: true},
		"unbuffer":         {transparent: true},
		"script":           {argShort: "ETIOBmo", argLong: []string{"--echo", "--log-timing", "--log-in", "--log-out", "--log-io", "--logging-format", "--output-limit", "--timing"}, cmdShort: "c", cmdLong: []string{"--command"}, optOnly: true, transparent: true},
		"strace":           {argShort: "abeEIoOpPsSuUX", argLong: []string{"--output", "--user", "--attach", "--columns", "--detach-on", "--env", "--interruptible", "--stack-trace-frame-limit", "--syscall-limit", "--summary-syscall-overhead", "--trace-path", "--string-limit", "--summary-sort-by", "--summary-columns", "--const-print-style", "--argv0", "--trace", "--trace-fds", "--abbrev", "--verbose", "--raw", "--signals", "--status", "--read", "--write", "--fault", "--inject", "--kvm", "--decode-pids"}, flagLong: []string{"--stack-trace", "--summary"}, transparent: true},
		"ltrace":           {argShort: "aADeFlnopsuxXw", argLong: []string{"--align", "--config", "--debug", "--indent", "--library", "--output", "--where"}, transparent: true},
		"valgrind":         {transparent: true},
		"catchsegv":        {transparent: true},
		"rlwrap":           {argShort: "abCDfFgHlOopPsSw", transparent: true},
		"torsocks":         {argShort: "uaP", transparent: true},
		"proxychains":      {argShort: "f", transparent: true},
		"proxychains4":     {argShort: "f", transparent: true},
		"tsocks":           {transparent: true},
		"caffeinate":       {argShort: "tw", transparent: true},
		"xvfb-run":         {argShort: "nsfewp", argLong: []string{"--server-num", "--server-args", "--auth-file", "--error-file", "--wait", "--xauth-protocol"}, transparent: true},
		"dbus-run-session": {transparent: true},
		"dbus-launch":      {transparent: true},
		"firejail":         {transparent: true},
		"nsenter":          {argShort: "tSGe", argLong: []string{"--target", "--setuid", "--setgid"}, emptyShell: true},
		"unshare":          {argShort: "RwSG", argLong: []string{"--root", "--wd", "--setuid", "--setgid", "--propagation", "--setgroups", "--map-user", "--map-users", "--map-group", "--map-groups", "--monotonic", "--boottime"}, emptyShell: true, chdirShort: "w", chdirLong: []string{"--wd"}},
		"chroot":           {argLong: []string{"--userspec", "--groups"}, positional: 1, emptyShell: true},
		"setpriv":          {argLong: []string{"--reuid", "--regid", "--groups", "--inh-caps", "--ambient-caps", "--bounding-set", "--securebits", "--pdeathsig", "--selinux-label", "--apparmor-profile", "--landlock-access", "--landlock-rule", "--seccomp-filter"}},
		"gosu":             {positional: 1},
		"su-exec":          {positional: 1},
		"sg":               {cmdShort: "c", positional: 1, join: true},
		"sudo":             {shellFlags: "si", argShort: "ugCDhprtTUc", argLong: []string{"--user", "--group", "--close-from", "--chdir", "--host", "--prompt", "--role", "--type", "--command-timeout", "--other-user"}, noExecShort: "lVK", noExecLong: []string{"--list", "--version", "--validate", "--remove-timestamp"}, assigns: true, chdirShort: "D", chdirLong: []string{"--chdir"}},
		"doas":             {argShort: "uC", noExecShort: "C", shellFlags: "s"},
		"pkexec":           {argLong: []string{"--user"}, emptyShell: true},
		"run0":             {argShort: "ugD", argLong: []string{"--user", "--group", "--chdir", "--property", "--description", "--slice", "--unit", "--setenv", "--nice", "--machine", "--background"}, chdirShort: "D", chdirLong: []string{"--chdir"}},
		"systemd-run":      {argShort: "upEHMs", argLong: []string{"--unit", "--property", "--setenv", "--host", "--machine", "--description", "--slice", "--uid", "--gid", "--nice", "--working-directory", "--on-active", "--on-boot", "--on-startup", "--on-unit-active", "--on-unit-inactive", "--on-calendar", "--on-clock-change", "--timer-property", "--path-property", "--socket-property", "--service-type", "--expand-environment"}, chdirLong: []string{"--working-directory"}},
		"sshpass":          {argShort: "fdpP", transparent: true},
		"xargs":            {argShort: "aEILnPsd", argLong: []string{"--arg-file", "--max-args", "--max-procs", "--max-chars", "--delimiter", "--process-slot-var"}, transparent: true, defCmd: "echo"},
		"parallel":         {argShort: "jSIadnNLsPCE", argLong: []string{"--jobs", "--sshlogin", "--joblog", "--results", "--delay", "--timeout", "--retries", "--colsep", "--tagstring", "--arg-file", "--delimiter", "--max-args", "--max-replace-args", "--max-lines", "--max-chars", "--workdir", "--env", "--tmpdir", "--eof"}, flagLong: []string{"--tag"}, transparent: true},
		"nix-shell":        {argShort: "pIA", cmdLong: []string{"--run", "--command"}, optOnly: true, transparent: true},
		"fakeroot":         {argShort: "ies", argLong: []string{"--lib", "--faked", "--unknown-is-real", "--fd-base"}, transparent: true},
		"proot":            {argShort: "rbmwvkiu0", argLong: []string{"--rootfs", "--bind", "--mount", "--pwd", "--cwd", "--verbose", "--kernel-release"}, transparent: true},
		"chpst":            {argShort: "uUenlLmdofpcr/", transparent: true},
		"cpulimit":         {argShort: "lpe", argLong: []string{"--limit", "--pid", "--exe"}, noExecShort: "pe", transparent: true},
		"numactl":          {argShort: "CNmplPiw", argLong: []string{"--physcpubind", "--cpunodebind", "--membind", "--preferred", "--interleave", "--weighted-interleave"}, transparent: true},
		"prlimit":          {argShort: "p", argLong: []string{"--pid", "--output"}, noExecShort: "p", noExecLong: []string{"--pid"}, transparent: true},
		// Found by red-team round 51: these run the command after them too.
		"setarch":      {positional: 1, noExecLong: []string{"--list"}, emptyShell: true, transparent: true, flagsAfter: true},
		"choom":        {argShort: "np", argLong: []string{"--adjust", "--pid"}, noExecShort: "p", noExecLong: []string{"--pid"}, transparent: true},
		"logsave":      {positional: 1, transparent: true},
		"fstab-decode": {octalArgs: true, transparent: true},
		"ssh-agent":    {argShort: "aEOPt", transparent: true},
		"memusage":     {argShort: "npdbxy", argLong: []string{"--progname", "--png", "--data", "--buffer", "--title", "--x-size", "--y-size"}, transparent: true},
		"sotruss":      {argShort: "FTo", argLong: []string{"--from", "--to", "--output"}, transparent: true},
		"msgexec":      {argShort: "iD", argLong: []string{"--input", "--directory"}, transparent: true},
		"faketime":     {argShort: "f", positional: 1, transparent: true},
		"eatmydata":    {transparent: true},
		"nocache":      {argShort: "n", transparent: true},
		"mpirun":       {argShort: "nNHc", argLong: []string{"--host", "--hostfile", "--map-by", "--bind-to"}, transparent: true},
		"mpiexec":      {argShort: "nNHc", argLong: []string{"--host", "--hostfile", "--map-by", "--bind-to"}, transparent: true},
		"srun":         {argShort: "nNcpJtwAoeDmCG", argLong: []string{"--ntasks", "--nodes", "--cpus-per-task", "--partition", "--job-name", "--time", "--account", "--output", "--error", "--chdir", "--mem", "--gres"}, chdirShort: "D", chdirLong: []string{"--chdir"}, transparent: true},
		"dtach":        {argShort: "nAcaEerz", positional: 0, transparent: true},
		"entr":         {cmdShort: "s", transparent: true},
		"screen":       {argShort: "SpcTtehsXrRx", dashLong: []string{"-Logfile"}, noExecShort: "X", transparent: true}, // -X: screencmds.go
		"npx":          {argShort: "p", argLong: []string{"--package", "--cache", "--userconfig"}, cmdShort: "c", cmdLong: []string{"--call"}},
		"bunx":         {argLong: []string{"--package"}},
		"capsh":        {ddShell: true, progLong: []string{"--shell"}},
		"bwrap": {argLong: []string{"--args", "--argv0", "--userns", "--userns2", "--pidns", "--remount-ro", "--tmpfs", "--dir", "--proc", "--dev",
			"--mqueue", "--chdir", "--unsetenv", "--lock-file", "--sync-fd", "--uid", "--gid", "--hostname", "--seccomp", "--add-seccomp-fd",
			"--info-fd", "--json-status-fd", "--block-fd", "--userns-block-fd", "--exec-label", "--file-label", "--cap-add", "--cap-drop",
			"--perms", "--size", "--overlay-src", "--tmp-overlay", "--ro-overlay", "--level-prefix"},
			arg2Long: []string{"--bind", "--ro-bind", "--dev-bind", "--bind-try", "--ro-bind-try", "--dev-bind-try", "--symlink", "--setenv",
				"--chmod", "--file", "--bind-data", "--ro-bind-data", "--bind-fd", "--ro-bind-fd"},
			arg3Long:  []string{"--overlay"},
			chdirLong: []string{"--chdir"}, transparent: true},
		"start-stop-daemon": {argShort: "pxnugsRaNPIkdrcO", argLong: []string{"--pidfile", "--exec", "--name", "--user", "--group", "--signal",
			"--retry", "--startas", "--nicelevel", "--procsched", "--iosched", "--umask", "--chdir", "--chroot", "--chuid", "--output",
			"--notify-timeout"}, progShort: "ax", progLong: []string{"--startas", "--exec"}, noExecShort: "KTVH",
			noExecLong: []string{"--stop", "--status", "--version", "--help"}, chdirShort: "d", chdirLong: []string{"--chdir"},
			flagLong: []string{"--start"}},
		"pnpx": {argLong: []string{"--package"}},
	}
	// setarch's other names, the architecture given by the name.
	for _, n := range []string{"linux32", "linux64", "i386", "x86_64", "uname26"} {
		m[n] = &wrapSpec{emptyShell: true, transparent: true}
	}
	return m
})

// subWrappers are "program subcommand" pairs that run the rest of the line
// (uv run CMD, poetry run CMD, npm exec -- CMD).
var subWrappers = sync.OnceValue(func() map[string]*wrapSpec {
	return map[string]*wrapSpec{
		"perf stat":           {argShort: "eopGCIrx", argLong: []string{"--event", "--output", "--pid", "--tid", "--cgroup", "--repeat", "--cpu", "--delay", "--field-separator"}, transparent: true},
		"perf record":         {argShort: "eopGCcFm", argLong: []string{"--event", "--output", "--pid", "--tid", "--cgroup", "--cpu", "--count", "--freq", "--mmap-pages"}, transparent: true},
		"perf trace":          {argShort: "eopC", argLong: []string{"--event", "--output", "--pid", "--tid", "--cpu"}, transparent: true},
		"uv run":              {argLong: []string{"--with", "--python", "--project", "--directory", "--env-file", "--group", "--extra", "--package", "--index", "--index-url"}, argShort: "pw", transparent: true},
		"poetry run":          {transparent: true},
		"pipenv run":          {transparent: true},
		"pdm run":             {transparent: true},
		"hatch run":           {transparent: true},
		"bundle exec":         {transparent: true},
		"conda run":           {argShort: "np", argLong: []string{"--name", "--prefix", "--cwd"}, transparent: true, chdirLong: []string{"--cwd"}},
		"mamba run":           {argShort: "np", argLong: []string{"--name", "--prefix", "--cwd"}, transparent: true, chdirLong: []string{"--cwd"}},
		"npm exec":            {argLong: []string{"--package"}, cmdShort: "c", cmdLong: []string{"--call"}},
		"npm x":               {argLong: []string{"--package"}, cmdShort: "c", cmdLong: []string{"--call"}},
		"pnpm exec":           {transparent: true},
		"pnpm dlx":            {},
		"yarn exec":           {transparent: true},
		"yarn dlx":            {},
		"bun x":               {},
		"mise exec":           {transparent: true},
		"mise x":              {transparent: true},
		"direnv exec":         {positional: 1, transparent: true},
		"aws-vault exec":      {positional: 1},
		"op run":              {argLong: []string{"--env-file"}},
		"devbox run":          {transparent: true},
		"docker-compose exec": {},
	}
})

// unwrap finds the payload of a wrapper: the command words it runs, a shell
// string it hands to sh -c, and whether it runs a command at all.
func (s *wrapSpec) unwrap(args []field) (cmd []field, shell *field, noExec bool, cwd *field) {
	i := 0
	dd := false
	prog, progRank := (*field)(nil), 0
	setProg := func(f *field, rank int) {
		if f != nil && (prog == nil || rank < progRank) {
			prog, progRank = f, rank
		}
	}
	for ; i < len(args); i++ {
		v := args[i].val
		if v == "--" {
			i++
			dd = true
			break
		}
		if s.ddShell && v == "==" {
			continue // capsh == re-runs capsh with the rest
		}
		if strings.HasPrefix(v, "--") {
			name, val, hasVal := strings.Cut(v, "=")
			name = s.longOpt(name)
			switch {
			case contains(s.progLong, name):
				setProg(s.value(args, &i, val, hasVal), slices.Index(s.progLong, name))
			case contains(s.arg2Long, name):
				i += 2
			case contains(s.arg3Long, name):
				i += 3
			case contains(s.cmdLong, name):
				shell = s.value(args, &i, val, hasVal)
			case contains(s.splitLong, name):
				if f := s.value(args, &i, val, hasVal); f != nil {
					args = spliceSplit(args, i+1, *f)
				}
			case contains(s.chdirLong, name):
				cwd = s.value(args, &i, val, hasVal)
			case contains(s.noExecLong, name):
				noExec = true
				if contains(s.argLong, name) && !hasVal {
					i++
				}
			case contains(s.argLong, name) && !hasVal:
				i++
			}
			continue
		}
		if contains(s.dashLong, v) {
			i++
			continue
		}
		if len(v) < 2 || v[0] != '-' || (s.numFlags && allDigits(v[1:])) {
			if s.numFlags && len(v) > 1 && v[0] == '-' {
				continue
			}
			break
		}
		for j := 1; j < len(v); j++ {
			c := v[j]
			if strings.IndexByte(s.noExecShort, c) >= 0 {
				noExec = true
			}
			attached := v[j+1:]
			switch {
			case strings.IndexByte(s.progShort, c) >= 0:
				setProg(s.value(args, &i, attached, attached != ""), strings.IndexByte(s.progShort, c))
			case strings.IndexByte(s.cmdShort, c) >= 0:
				shell = s.value(args, &i, attached, attached != "")
			case strings.IndexByte(s.chdirShort, c) >= 0:
				cwd = s.value(args, &i, attached, attached != "")
			case strings.IndexByte(s.splitShort, c) >= 0:
				if f := s.value(args, &i, attached, attached != ""); f != nil {
					args = spliceSplit(args, i+1, *f)
				}
			case strings.IndexByte(s.argShort, c) >= 0:
				if attached == "" {
					i++
				}
			default:
				continue
			}
			break
		}
	}
	if s.optOnly {
		return nil, shell, noExec, cwd
	}
	rest := args[min(i, len(args)):]
	switch {
	case s.ddShell && !dd:
		return nil, shell, noExec, cwd
	case prog != nil:
		// start-stop-daemon --start --exec PROG -- ARGS
		if !dd {
			rest = nil
		}
		return append([]field{*prog}, rest...), shell, noExec, cwd
	case s.ddShell:
		return append([]field{{val: "bash"}}, rest...), shell, noExec, cwd
	}
	for n := 0; n < s.positional && len(rest) > 0; n++ {
		rest = rest[1:]
	}
	for s.flagsAfter && len(rest) > 0 && len(rest[0].val) > 1 && rest[0].val[0] == '-' {
		dd := rest[0].val == "--"
		rest = rest[1:]
		if dd {
			break
		}
	}
	if shell == nil && len(rest) > 0 && (s.cmdShort != "" && rest[0].val == "-"+s.cmdShort || contains(s.cmdLong, rest[0].val)) {
		// flock FILE -c CMD: options may follow the positional operand.
		if len(rest) > 1 {
			f := rest[1]
			shell = &f
		}
		return nil, shell, noExec, cwd
	}
	if s.assigns {
		for len(rest) > 0 && (isAssignment(rest[0].val) || isEnvFunc(rest[0].val) || envAssignment(rest[0].val)) {
			rest = rest[1:]
		}
		if len(rest) > 0 && rest[0].val == "--" {
			rest = rest[1:]
		}
	}
	if s.join && len(rest) > 0 && shell == nil {
		j := joinField(rest)
		return nil, &j, noExec, cwd
	}
	return rest, shell, noExec, cwd
}

// longOpt returns the long option that name stands for: itself, or the
// one option of the spec that it abbreviates, as GNU getopt allows (sudo
// --us root, timeout --sig KILL). Options after which nothing runs
// (noExecLong) count only when spelled out: an abbreviation may as well
// stand for another option.
func (s *wrapSpec) longOpt(name string) string {
	if contains(s.noExecLong, name) || contains(s.flagLong, name) {
		return name
	}
	found := ""
	for _, list := range [][]string{s.argLong, s.arg2Long, s.arg3Long, s.cmdLong, s.splitLong, s.chdirLong, s.progLong} {
		for _, l := range list {
			if l == name {
				return name
			}
			if isAbbrev(name, l) && l != found {
				if found != "" {
					return name // ambiguous: getopt refuses
				}
				found = l
			}
		}
	}
	if found == "" {
		return name
	}
	return found
}

// value returns an option's value: attached, after '=', or the next word.
func (s *wrapSpec) value(args []field, i *int, attached string, has bool) *field {
	if has {
		f := args[*i]
		f.val = attached
		return &f
	}
	if *i+1 < len(args) {
		*i++
		f := args[*i]
		return &f
	}
	return nil
}

// spliceSplit inserts the words of f (split like env -S does) at index at.
func spliceSplit(args []field, at int, f field) []field {
	words := strings.Fields(f.val)
	out := make([]field, 0, len(args)+len(words))
	out = append(out, args[:at]...)
	for _, w := range words {
		g := f
		g.val = w
		out = append(out, g)
	}
	return append(out, args[at:]...)
}

// envAssignment reports whether env(1) (or sudo) takes v as NAME=VALUE:
// any word with an = past its start, whatever the name (env 'LINK.c=…'
// make: a make variable no shell can set; round 56).
func envAssignment(v string) bool {
	return strings.IndexByte(v, '=') > 0 && !strings.HasPrefix(v, "-")
}

func isAssignment(v string) bool {
	i := strings.IndexByte(v, '=')
	if i <= 0 {
		return false
	}
	for j := 0; j < i; j++ {
		c := v[j]
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || j > 0 && isDigit(c)) {
			return false
		}
	}
	return true
}

func contains(list []string, v string) bool {
	for _, s := range list {
		if s == v {
			return true
		}
	}
	return false
}

// runWrapper runs the payload of a wrapper unit and reports whether the
// wrapper itself should still be judged.
func (a *analyzer) runWrapper(u *unit, name string, spec *wrapSpec, args []field) (stream, bool) {
	cmd, shell, noExec, cwd := spec.unwrap(args)
	if spec.octalArgs {
		for i := range cmd {
			cmd[i].dyn = cmd[i].dyn || strings.Contains(cmd[i].val, `\`)
		}
	}
	if noExec {
		if name == "command" && len(cmd) > 0 && !cmd[len(cmd)-1].dyn {
			return literal(cmd[len(cmd)-1].val + "\n"), true // $(command -v rm)
		}
		return stream{traits: trUnknown}, true
	}
	if name == "env" {
		for _, f := range args {
			if isAssignment(f.val) || isEnvFunc(f.val) || envAssignment(f.val) {
				k, v, _ := strings.Cut(f.val, "=")
				g := f
				g.val = v
				u.env = append(u.env, envVar{name: k, val: g})
				if isCodeVar(k) && !g.dyn {
					a.script(v, nil) // env PAGER='…' git log: as PAGER='…' git log
				}
				a.vimInitCode(u, []envVar{{name: k, val: g}})
			}
		}
	}
	opts := args // xargs' and parallel's own options: cmd is a tail of args
	if (name == "xargs" || name == "parallel") && len(cmd) <= len(args) {
		opts = args[:len(args)-len(cmd)]
	}
	var out stream
	ran := false
	if shell != nil {
		out = a.shellString(u, *shell)
		a.shellVarRun(u, *shell) // SHELL=/usr/bin/gawk script -c … (round 58)
		ran = true
	}
	if len(cmd) == 0 && spec.defCmd != "" && shell == nil {
		cmd = []field{{val: spec.defCmd}}
	}
	if len(cmd) == 0 && shell == nil && (spec.emptyShell || spec.shellFlags != "" && hasFlag(args, spec.shellFlags)) {
		// sudo -s, chroot DIR, unshare: a shell reads standard input.
		cmd = []field{{val: "sh"}}
	}
	stdinArgs := name == "xargs"
	if name == "parallel" {
		var done bool
		if cmd, stdinArgs, done = a.parallelRun(u, opts, cmd); done {
			return stream{traits: trUnknown | trShellOut}, true
		}
	}
	argsIn := u.in
	if name == "xargs" && len(cmd) > 0 {
		argsIn = a.xargsSource(u, opts)
		if !xargsReplaces(args) {
			cmd = xargsAppend(cmd, opts, argsIn)
		}
	}
	if name == "xargs" && len(cmd) > 0 && xargsReplaces(args) {
		var ok bool
		if cmd, ok = a.xargsPaste(cmd, xargsReplace(args), argsIn); !ok {
			return stream{traits: trUnknown | trShellOut}, true
		}
	}
	if len(cmd) > 0 {
		in := u.inner(name, cmd)
		if cwd != nil {
			in.chdir(*cwd)
		}
		if stdinArgs {
			// xargs CMD, parallel CMD: each input line becomes arguments.
			in.viaXargs = true
			in.xargsToken = xargsReplace(opts)
			in.argsIn = argsIn
			in.in = stream{}
		}
		in.env = append(in.env, u.env...)
		out = a.run(in)
		ran = true
		a.rememberInner(in, out) // nice cp x ~/.bashrc, as cp x ~/.bashrc
	}
	a.sessionLogs(u, name, args, out) // script's typescript, screen -Logfile (round 58)
	return out, !ran || !spec.transparent || anyRiskyEnv(u.env)
}

// xargsReplace returns the string xargs replaces with each input line
// (-I TOKEN, -ITOKEN, --replace=TOKEN; -i and --replace alone mean {}),
// "{}" when none is given.
func xargsReplace(args []field) string {
	for i, f := range args {
		v := f.val
		switch {
		case v == "--":
			return "{}"
		case v == "-I" && i+1 < len(args):
			return args[i+1].val
		case strings.HasPrefix(v, "-I") && len(v) > 2:
			return v[2:]
		case strings.HasPrefix(v, "--") && strings.Contains(v, "=") && (strings.HasPrefix(v, "--replace=") || isAbbrev(v[:strings.IndexByte(v, '=')], "--replace")):
			return v[strings.IndexByte(v, '=')+1:]
		case strings.HasPrefix(v, "-i") && len(v) > 2 && !strings.HasPrefix(v, "--"):
			return v[2:]
		}
	}
	return "{}"
}

// xargsReplaces reports whether xargs' options (before its command) ask
// for a replace string: -I X, -IX, -i[X], --replace[=X] and its
// abbreviations, also at the end of a flag cluster (-0I{}).
func xargsReplaces(args []field) bool {
	spec := wrappers()["xargs"]
	for i := 0; i < len(args); i++ {
		v := args[i].val
		if v == "--" || len(v) < 2 || v[0] != '-' {
			return false
		}
		if strings.HasPrefix(v, "--") {
			name, _, eq := strings.Cut(v, "=")
			if name == "--replace" || isAbbrev(name, "--replace") && len(name) > len("--r") {
				return true
			}
			if contains(spec.argLong, spec.longOpt(name)) && !eq {
				i++
			}
			continue
		}
		for j := 1; j < len(v); j++ {
			if v[j] == 'I' || v[j] == 'i' {
				return true
			}
			if strings.IndexByte(spec.argShort, v[j]) >= 0 {
				if j+1 == len(v) {
					i++
				}
				break
			}
		}
	}
	return false
}

// xargsPaste puts the input line xargs -I pastes in place of tok into the
// words of the command it runs: a program word made of it is only known
// at run time (eval-exec), and one from the network, a decoder or the
// history comes from there. With such input every word holding it carries
// it (python3 -c '{}' runs downloaded code); a shell's code is left to
// xargsCode. Past the line's limits (see paste) it reports false.
func (a *analyzer) xargsPaste(cmd []field, tok string, in stream) ([]field, bool) {
	r := in.execRule()
	tainted := r != "" && r != RuleEvalExec && !shellNames.has(normName(cmd[0].val))
	out := append([]field(nil), cmd...)
	for k, f := range cmd {
		if tok == "" || !strings.Contains(f.val, tok) || k > 0 && !tainted {
			continue
		}
		g := f
		var ok bool
		if g.val, ok = a.paste(f.val, tok, xargsInput); !ok {
			return nil, false
		}
		g.bare = strings.ReplaceAll(f.bare, tok, xargsInputBare) // no longer than val
		g.dyn = true
		g.dynPrefix = f.dynPrefix || strings.HasPrefix(f.val, tok)
		g.dynEnd = len(g.val)
		g.src.merge(in)
		out[k] = g
	}
	return out, true
}

// shellString classifies a string that a wrapper hands to a shell.
func (a *analyzer) shellString(u *unit, f field) stream {
	return a.codeString(u, f, a.script)
}

// hookString classifies a string the shell itself runs later, any number of
// times (trap, mapfile -C): what it changes is only known at run time from
// here on. It may run in a function (a RETURN or DEBUG trap with set -T):
// local there may assign.
func (a *analyzer) hookString(u *unit, f field) {
	a.hooks++
	a.maybe(func() stream { return a.codeString(u, f, a.sameShell) })
	a.hooks--
}

// codeString records f as the code u runs and walks it with run.
func (a *analyzer) codeString(u *unit, f field, run func(string, *stream) stream) stream {
	s := stream{traits: f.src.traits, text: f.val, textKnown: true}
	u.script = &s
	return run(f.val, nil)
}
