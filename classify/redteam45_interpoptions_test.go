package classify

import "testing"

// TestRedteam45InterpreterCodeOptions: everyday interpreter invocations
// whose code is on the line, in an option the classifier does not read as
// code, so the spawn in it is never judged:
//
//   - `python3 -m timeit STMT` and `-s SETUP` execute STMT and SETUP as
//     Python (the standard benchmark idiom); only `-c` is scanned;
//   - `node -pe CODE`: -p and -e clustered (the common idiom for
//     "print the value of"); `node -p CODE` and `node -e CODE` are
//     scanned, the cluster is not;
//   - `node --import 'data:text/javascript,CODE'` loads a module given
//     inline as a data: URL before the script;
//   - `perl -M'strict;CODE'`: perl turns -MMOD into `use MOD;` text, so
//     anything after a ';' in the value is code run at compile time.
//
// The code at fault is shells.go: interpreters (and the option walk that
// uses it): node's codeShort "ep" reads the cluster -pe as -p with the
// attached code "e", and "--import" is an argLong whose value is skipped;
// perl's "M" is an argShort whose value is skipped; python's -m MODULE
// arguments are not code for any module. Each line runs rm -rf ~ through os.system/execSync/system and
// is judged sandboxed, while the same code under `python3 -c`, `node -e`
// or `perl -e` is forbidden.
//
// Severity: high (a forbidden command judged sandboxed).
// Found by red-team round 45 (high). Fixed: python -m timeit's
// statements and setup are python code (timeitCode), node's -pe is -p -e
// with the code after, node --import/-r data: URLs are code (dataURLCode),
// and perl's -M/-m value is the code perl makes of it (use VALUE;).
func TestRedteam45InterpreterCodeOptions(t *testing.T) {
	rt44bCheck(t, []rt44bCase{
		{argv: []string{"python3", "-m", "timeit", "-n1", "-r1", `import os; os.system("CMD")`}},
		{argv: []string{"python3", "-m", "timeit", "-n1", "-r1", "-s", `import os; os.system("CMD")`, "pass"}},
		{argv: []string{"node", "-pe", `require("child_process").execSync("CMD")`}},
		{argv: []string{"node", "--import", `data:text/javascript,import("child_process").then(c=>c.execSync("CMD"))`, "-e", "1"}},
		{argv: []string{"perl", `-Mstrict;system("CMD")`, "-e", "1"}},
	}, Forbidden)
	// Control: ordinary uses stay below escalated.
	for _, l := range []string{
		`python3 -m timeit -s 'import json' 'json.dumps({"a": 1})'`,
		`node -pe 'require("./package.json").version'`,
		`perl -MPOSIX -e 'print floor(1.5)'`,
	} {
		if r := Default().ClassifyShell("bash", l); r.Decision > Sandboxed {
			t.Errorf("control: %q = %s (%s), want at most sandboxed", l, r.Decision, r.Rule)
		}
	}
}
