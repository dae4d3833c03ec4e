package classify

import "strings"

// ExtUtils::Command, a core Perl module MakeMaker's Makefiles call
// (`perl -MExtUtils::Command -e rm_rf DIR`), exports functions that act
// on @ARGV as the commands of the same shape do (found by red-team round
// 62): `perl -MExtUtils::Command -e FUNC ARGS…` is judged as that
// command, as rubycode.go judges `ruby -run -e rm` (un.rb).

// perlExtUtilsFuncs are the module's functions and the command each is.
var perlExtUtilsFuncs = map[string][]string{
	"rm_rf": {"rm", "-rf"}, "rm_f": {"rm", "-f"}, "cp": {"cp"}, "mv": {"mv"}, "touch": {"touch"},
	"chmod": {"chmod"}, "mkpath": {"mkdir", "-p"}, "cat": {"cat"}, "eqtime": {"touch", "-r"},
	"dos2unix": {"sed", "-i", "s/\\r$//"},
}

// perlModuleCommands are the modules whose functions perl -e FUNC runs on
// @ARGV, with their functions.
var perlModuleCommands = map[string]map[string][]string{"ExtUtils::Command": perlExtUtilsFuncs}

// perlModuleRuns judges `perl -MMODULE -e FUNC ARGS…` as the command FUNC
// is.
func (a *analyzer) perlModuleRuns(u *unit) {
	if strings.TrimRight(u.name, "0123456789.") != "perl" || u.dynName {
		return
	}
	mods, codes, rest := perlRunArgs(u.args)
	if len(codes) != 1 || codes[0].dyn {
		return
	}
	fn := strings.TrimSuffix(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(codes[0].val), ";")), "()")
	for _, m := range mods {
		name, _, _ := strings.Cut(m.val, "=")
		argv, ok := perlModuleCommands[name][fn]
		if !ok || m.dyn {
			continue
		}
		var fields []field
		for _, w := range argv {
			fields = append(fields, field{val: w, quoted: true})
		}
		n := u.inner("perl", append(fields, rest...))
		a.rememberOther(n, a.run(n)) // cp x ~/.bashrc: the copied text
		return
	}
}

// perlRunArgs splits perl's arguments into the -M/-m modules, the -e/-E
// code and @ARGV (after the code's options; `--` ends them).
func perlRunArgs(args []field) (mods, codes, rest []field) {
	for i := 0; i < len(args); i++ {
		v := args[i].val
		if v == "--" {
			return mods, codes, args[i+1:]
		}
		if len(v) < 2 || v[0] != '-' || v[1] == '-' {
			return mods, codes, args[i:]
		}
	cluster:
		for j := 1; j < len(v); j++ {
			switch v[j] {
			case 'e', 'E', 'M', 'm':
				val := args[i]
				if j+1 < len(v) {
					val.val = v[j+1:]
				} else if i+1 < len(args) {
					i++
					val = args[i]
				}
				if v[j] == 'M' || v[j] == 'm' {
					mods = append(mods, val)
				} else {
					codes = append(codes, val)
				}
				break cluster
			case 'i', 'I', 'x', 'C', '0', 'l', 'd', 'D':
				break cluster
			}
		}
	}
	return mods, codes, nil
}
