package classify

// `cmake -E` is CMake's portable command tool (found by red-team round
// 62): its commands act on files as rm, cp, mv … do, and its env, time and
// chdir run a command as env, time and env -C do. Each is judged as the
// command it is, as busybox's applets are.

// cmakeECommands maps cmake -E's commands to the words of the command
// each is.
var cmakeECommands = map[string][]string{
	"rm":                          {"rm"},
	"remove":                      {"rm"},
	"remove_directory":            {"rm", "-rf"},
	"copy":                        {"cp"},
	"copy_if_different":           {"cp"},
	"copy_if_newer":               {"cp"},
	"copy_directory":              {"cp", "-r"},
	"copy_directory_if_different": {"cp", "-r"},
	"copy_directory_if_newer":     {"cp", "-r"},
	"rename":                      {"mv"},
	"make_directory":              {"mkdir", "-p"},
	"create_symlink":              {"ln", "-s"},
	"create_hardlink":             {"ln"},
	"touch":                       {"touch"},
	"touch_nocreate":              {"touch", "-c"},
	"cat":                         {"cat"},
	"echo":                        {"echo"},
	"echo_append":                 {"echo", "-n"},
	"tar":                         {"tar"},
	"compare_files":               {"cmp"},
	"md5sum":                      {"md5sum"},
	"sha1sum":                     {"sha1sum"},
	"sha224sum":                   {"sha224sum"},
	"sha256sum":                   {"sha256sum"},
	"sha384sum":                   {"sha384sum"},
	"sha512sum":                   {"sha512sum"},
	"env":                         {"env"},
	"time":                        {"time"},
	"chdir":                       {"env", "-C"}, // chdir DIR CMD …
	"sleep":                       {"sleep"},
	"true":                        {"true"},
	"false":                       {"false"},
}

// runCMakeE judges `cmake -E COMMAND ARGS` as the command it is; other
// cmake lines go on (buildsystems.go follows their project files).
func (a *analyzer) runCMakeE(u *unit) (stream, bool) {
	if len(u.args) < 2 || u.args[0].val != "-E" || u.args[1].dyn {
		return stream{}, true
	}
	words, ok := cmakeECommands[u.args[1].val]
	if !ok {
		return stream{}, true
	}
	fields := make([]field, 0, len(words)+len(u.args))
	for _, w := range words {
		g := u.args[1]
		g.val = w
		fields = append(fields, g)
	}
	inner := u.inner("cmake", append(fields, u.args[2:]...))
	out := a.run(inner)
	a.rememberInner(inner, out) // cmake -E copy x ~/.bashrc
	return out, false
}
