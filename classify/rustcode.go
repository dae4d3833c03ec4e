package classify

import "strings"

// Rust code the line wrote and a tool compiles and runs (found by red-team
// round 60: cargo check runs build.rs): its std::process::Command calls
// are read as the argument vectors they run, Command::new(PROG) with the
// literals of its chained .arg/.args calls. A program only known at run
// time is an opaque spawn; a shell or an interpreter started with
// arguments put together elsewhere may run any string of the code.

// rustCommandNew matches the start of a Command (std's, tokio's).
var rustCommandNew = lazyRegexp(`\bCommand::new\s*\(`)

// rustArgCall matches a method call chained to a Command.
var rustArgCall = lazyRegexp(`^\s*\.\s*([a-z_][a-z0-9_]*)\s*\(`)

// rustCommands returns the argument vectors of code's Commands, the
// strings that may be a shell's command, and whether a spawn is opaque.
func rustCommands(code string) (argvs [][]string, shells []string, opaque bool) {
	anyString := false
	for _, loc := range rustCommandNew().FindAllStringIndex(code, -1) {
		rest := code[loc[1]-1:]
		arg := callArgText(rest)
		prog, dyn := literals(rustList(arg))
		if len(prog) != 1 || dyn {
			opaque = true
			continue
		}
		argv, known := prog, true
		for rest = rest[len(arg):]; ; {
			m := rustArgCall().FindStringSubmatch(rest)
			if m == nil {
				break
			}
			call := callArgText(rest[len(m[0])-1:])
			rest = rest[len(m[0])-1+len(call):]
			if m[1] != "arg" && m[1] != "args" {
				continue // .current_dir(…), .env(…), .status()
			}
			lits, d := literals(rustList(call))
			known = known && !d && (len(lits) > 0 || strings.TrimSpace(rustList(call)) == "")
			argv = append(argv, lits...)
		}
		argvs = append(argvs, argv)
		// A shell or an interpreter may be given its code elsewhere
		// (c.arg(x); on a line of its own): it may run any string.
		p := normName(prog[0])
		anyString = anyString || shellNames.has(p) || isInterpreterName(p)
		opaque = opaque || !known && !anyString
	}
	if anyString {
		shells = codeStrings(code)
	}
	return argvs, shells, opaque
}

// rustList returns the inside of a call's parentheses with a slice's or a
// vector's brackets dropped: ("sh"), (&["-c", x]), (vec!["a"]).
func rustList(call string) string {
	s := strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(call), "("), ")")
	s = strings.TrimSpace(s)
	s = strings.TrimPrefix(s, "&")
	s = strings.TrimPrefix(s, "vec!")
	return strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(s), "["), "]")
}
