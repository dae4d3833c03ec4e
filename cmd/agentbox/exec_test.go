package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"
)

func TestExecExitStatuses(t *testing.T) {
	tests := []struct {
		name string
		args []string
		code int
		out  string // substring of stdout
		err  string // substring of stderr
	}{
		{"own status", []string{"exec", "--profile", "ci", "-c", "echo hi; exit 7"}, 7, "hi", ""},
		{"argv form", []string{"exec", "--profile", "ci", "--", "printf", "%s", "a b"}, 0, "a b", ""},
		{"signal", []string{"exec", "--profile", "ci", "--approve", "-c", "kill -TERM $$"}, 128 + 15, "", ""},
		{"timeout", []string{"exec", "--profile", "ci", "--timeout", "200ms", "--", "sleep", "20"}, 137, "", "timeout"},
		{"not found", []string{"exec", "--profile", "ci", "--", "no-such-program-here"}, 127, "", "no such file"},
		{"forbidden", []string{"exec", "-c", "rm -rf /"}, 126, "", "forbidden by rule recursive-delete-root"},
		{"escalated without a terminal", []string{"exec", "-c", "git push"}, 126, "", "--approve"},
		{"bad network", []string{"exec", "--network", "open", "--", "true"}, 125, "", `invalid --network "open"`},
		{"bad profile", []string{"exec", "--profile", "prod", "--", "true"}, 125, "", "invalid --profile"},
		{"neither form", []string{"exec"}, 125, "", "either -- PROGRAM"},
		{"both forms", []string{"exec", "-c", "true", "--", "true"}, 125, "", "either -- PROGRAM"},
		{"bad domain", []string{"exec", "--allow-domain", "a b", "--", "true"}, 125, "", `invalid --allow-domain "a b"`},
		{"bad denied domain", []string{"exec", "--deny-domain", "*.*.com", "--", "true"}, 125, "", `invalid --deny-domain "*.*.com"`},
		{"missing writable root", []string{"exec", "--write", "no/such/dir", "--", "true"}, 125, "", `invalid --write "no/such/dir": `},
		{"relative write is made absolute", []string{"exec", "--profile", "ci", "--write", ".", "-c", "true"}, 0, "", ""},
		{"kernel filesystem as writable root", []string{"exec", "--write", "/proc", "--", "true"}, 125, "", "/proc is a kernel filesystem"},
		{"kernel filesystem as scratch", []string{"exec", "--scratch", "/proc/sys", "--", "true"}, 125, "", `invalid --scratch "/proc/sys": /proc/sys is inside /proc`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := runCLI(t, tc.args...)
			if code != tc.code || !strings.Contains(out, tc.out) || !strings.Contains(errOut, tc.err) {
				t.Fatalf("exit %d (want %d)\nstdout %q\nstderr %q", code, tc.code, out, errOut)
			}
		})
	}
}

// TestExecReportsViolations: what agentbox refused or changed for the user
// (here, a repository the command planted, disabled) is said on stderr,
// not only in --json.
func TestExecReportsViolations(t *testing.T) {
	dir := t.TempDir()
	plant := "mkdir -p sub/.git/objects sub/.git/refs && echo 'ref: refs/heads/main' > sub/.git/HEAD && " +
		"printf '[core]\\n\\tfsmonitor = x\\n' > sub/.git/config"
	code, _, errOut := runCLI(t, "exec", "--profile", "ci", "--approve", "--write", dir, "--workdir", dir, "-c", plant)
	if code != 0 || !strings.Contains(errOut, "agentbox: filesystem planted-repository: "+dir+"/sub/.git") {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}

	// The command chooses the names a report quotes: a newline must not
	// forge a line of agentbox's, nor an escape sequence reach the terminal.
	evil := `"$(printf 'e\033]0;owned\007\nagentbox: all clear')"`
	plant = "mkdir -p " + evil + "/.git/objects " + evil + "/.git/refs && echo 'ref: refs/heads/main' > " + evil + "/.git/HEAD && " +
		"printf '[core]\\n\\tfsmonitor = x\\n' > " + evil + "/.git/config"
	code, _, errOut = runCLI(t, "exec", "--profile", "ci", "--approve", "--write", dir, "--workdir", dir, "-c", plant)
	if code != 0 || !strings.Contains(errOut, `/e\x1b]0;owned\x07\x0aagentbox: all clear/.git`) {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	if strings.ContainsRune(errOut, 0x1b) || strings.Contains(errOut, "\nagentbox: all clear") {
		t.Errorf("stderr carries the command's control characters: %q", errOut)
	}
}

func TestExecJSON(t *testing.T) {
	code, out, _ := runCLI(t, "exec", "--profile", "ci", "--json", "-c", "echo hi; echo oops >&2; exit 4")
	var res struct {
		ExitCode       int `json:"exit_code"`
		Stdout, Stderr string
		Sandboxed      bool
		Layers         []string
		Classification struct{ Decision string }
		DurationMS     float64 `json:"duration_ms"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if code != 4 || res.ExitCode != 4 || res.Stdout != "hi\n" || res.Stderr != "oops\n" || !res.Sandboxed || len(res.Layers) == 0 || res.Classification.Decision == "" {
		t.Fatalf("exit %d, result %+v", code, res)
	}
}

// TestExecJSONFlagErrors: once --json is among exec's flags, a flag or
// value error still prints the failure as JSON on stdout, its error the
// line stderr has.
func TestExecJSONFlagErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		json bool
	}{
		{"bad network", []string{"--network", "bogus", "--json"}, true},
		{"negative timeout", []string{"--json", "--timeout", "-5s"}, true},
		{"bad timeout", []string{"--timeout", "abc", "--json"}, true},
		{"unknown flag before --json", []string{"--bogus", "--json"}, true},
		{"unknown flag after --json", []string{"--json", "--bogus"}, true},
		{"--json=true", []string{"--bogus", "--json=true"}, true},
		{"flag value that looks like --json", []string{"--bogus", "--env", "--json"}, false},
		{"--json of the program", []string{"--bogus", "--", "ls", "--json"}, false},
		{"no --json", []string{"--network", "bogus"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := append(append([]string{"exec"}, tc.args...), "--", "/bin/true")
			code, out, errOut := runCLI(t, args...)
			if code != exitInternal || !strings.HasPrefix(errOut, "agentbox: ") {
				t.Fatalf("exit %d, stderr %q", code, errOut)
			}
			if !tc.json {
				if out != "" {
					t.Errorf("stdout %q, want nothing", out)
				}
				return
			}
			var res struct {
				ExitCode *int `json:"exit_code"`
				Error    string
			}
			if err := json.Unmarshal([]byte(out), &res); err != nil {
				t.Fatalf("stdout is not JSON: %v\n%q", err, out)
			}
			if res.ExitCode == nil || *res.ExitCode != exitInternal || "agentbox: "+res.Error+"\n" != errOut {
				t.Errorf("result %+v, stderr %q", res, errOut)
			}
		})
	}
}

// TestExecJSONQuotesArgv: the classification's command is the argv as a
// shell would need it written.
func TestExecJSONQuotesArgv(t *testing.T) {
	code, out, _ := runCLI(t, "exec", "--profile", "ci", "--json", "--", "sh", "-c", "echo out; exit 3")
	var res struct {
		Classification struct{ Command string }
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if want := "sh -c 'echo out; exit 3'"; code != 3 || res.Classification.Command != want {
		t.Errorf("exit %d, command %q, want %q", code, res.Classification.Command, want)
	}
}

// TestExecJSONRefused: a command that does not run still gives a script
// JSON on stdout, with the exit status and, for a refusal, the verdict.
func TestExecJSONRefused(t *testing.T) {
	for _, tc := range []struct {
		args     []string
		code     int
		decision string
		rule     string
	}{
		{[]string{"-c", "rm -rf /"}, 126, "forbidden", "recursive-delete-root"},
		{[]string{"-c", "git push origin main"}, 126, "escalated", "git-write"},
		{[]string{"--", "/nonexistent/program"}, 127, "", ""},
	} {
		if tc.decision == "escalated" {
			if tty, err := os.OpenFile("/dev/tty", os.O_RDWR, 0); err == nil {
				tty.Close()
				continue // exec would ask on the terminal
			}
		}
		code, out, errOut := runCLI(t, append([]string{"exec", "--profile", "ci", "--json"}, tc.args...)...)
		var res struct {
			ExitCode       int `json:"exit_code"`
			Error          string
			Classification *struct{ Decision, Rule, Command string }
		}
		if err := json.Unmarshal([]byte(out), &res); err != nil {
			t.Fatalf("%v: %v\n%q", tc.args, err, out)
		}
		if code != tc.code || res.ExitCode != tc.code || res.Error == "" || errOut != "agentbox: "+res.Error+"\n" {
			t.Errorf("%v: exit %d, result %+v, stderr %q", tc.args, code, res, errOut)
		}
		switch {
		case tc.decision == "" && res.Classification != nil:
			t.Errorf("%v: a verdict for a command the classifier let through: %+v", tc.args, res.Classification)
		case tc.decision != "" && (res.Classification == nil || res.Classification.Decision != tc.decision || res.Classification.Rule != tc.rule || res.Classification.Command == ""):
			t.Errorf("%v: verdict %+v, want %s by %s", tc.args, res.Classification, tc.decision, tc.rule)
		}
	}
}

func TestCheck(t *testing.T) {
	for _, tc := range []struct {
		cmd  string
		code int
		out  string
	}{
		{"ls -la", 0, "allow"},
		{"python3 build.py", 0, "sandboxed"},
		{"sudo apt-get install x", 1, "escalated"},
		{":(){ :|:& };:", 2, "forbidden (rule fork-bomb)"},
	} {
		code, out, _ := runCLI(t, "check", tc.cmd)
		if code != tc.code || !strings.HasPrefix(out, tc.out) {
			t.Errorf("check %q: exit %d, %q", tc.cmd, code, out)
		}
	}
	code, out, _ := runCLI(t, "check", "--json", "rm -rf ~")
	if code != 2 || !strings.Contains(out, `"decision":"forbidden"`) {
		t.Fatalf("json: %d %s", code, out)
	}
	if code, _, _ := runCLI(t, "check"); code != 125 {
		t.Fatalf("no argument: exit %d", code)
	}
}

func TestDoctor(t *testing.T) {
	code, out, errOut := runCLI(t, "doctor", "--json")
	var r doctorReport
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if !r.StrictOK || code != 0 {
		// On a machine that cannot run the strict default, doctor must say so.
		if code != 1 || !strings.Contains(errOut, "cannot run") {
			t.Fatalf("exit %d, stderr %q", code, errOut)
		}
		t.Skipf("this machine cannot run the strict default: %+v", r)
	}
	if !r.Sandbox.OK || len(r.Layers) == 0 {
		t.Fatalf("report %+v", r)
	}
}

func TestBuildCheck(t *testing.T) {
	for _, tc := range []struct {
		name     string
		info     *debug.BuildInfo
		ok       bool
		wantOK   bool
		inDetail string
	}{
		{"static", &debug.BuildInfo{Settings: []debug.BuildSetting{{Key: "CGO_ENABLED", Value: "0"}}}, true, true, "static"},
		{"cgo", &debug.BuildInfo{Settings: []debug.BuildSetting{{Key: "-compiler", Value: "gc"}, {Key: "CGO_ENABLED", Value: "1"}}}, true, false, "CGO_ENABLED=0 go build"},
		{"no information", nil, false, true, "no build information"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := buildCheck(tc.info, tc.ok)
			if c.OK != tc.wantOK || c.Required || !strings.Contains(c.Detail, tc.inDetail) {
				t.Fatalf("got %+v", c)
			}
		})
	}
}

func TestEnvFlags(t *testing.T) {
	lookup := func(k string) (string, bool) {
		v, ok := map[string]string{"TOKEN": "s3cr=t", "EMPTY": ""}[k]
		return v, ok
	}
	for _, tc := range []struct {
		in      []string
		want    []string
		wantErr string
	}{
		{[]string{"A=1", "B="}, []string{"A=1", "B="}, ""},
		{[]string{"TOKEN"}, []string{"TOKEN=s3cr=t"}, ""},
		{[]string{"EMPTY"}, []string{"EMPTY="}, ""},
		{[]string{"UNSET"}, nil, "UNSET is not set in agentbox's environment; give UNSET=VALUE"},
		{[]string{"=x"}, nil, "want KEY=VALUE"},
		{[]string{"A B=1"}, nil, `invalid --env "A B=1": "A B" is not a variable name; use letters, digits and _, not starting with a digit`},
		{[]string{"1A=1"}, nil, `"1A" is not a variable name`},
		{[]string{"A-B"}, nil, `"A-B" is not a variable name`},
		{[]string{"_a1=x"}, []string{"_a1=x"}, ""},
	} {
		got, err := envFlags(tc.in, lookup)
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("%q: error %v, want %q", tc.in, err, tc.wantErr)
			}
			continue
		}
		if err != nil || strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
			t.Errorf("%q: %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
}

// TestExecProgramFlags: the program's own flags need no -- once the
// program is named, and an unknown flag before it says where they go.
func TestExecProgramFlags(t *testing.T) {
	code, out, errOut := runCLI(t, "exec", "--profile", "ci", "sh", "-c", "echo ran")
	if code != 0 || out != "ran\n" {
		t.Errorf("exec sh -c: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	code, _, errOut = runCLI(t, "exec", "--profile", "ci", "--la", "--", "true")
	if code != 125 || !strings.Contains(errOut, "a flag of the program goes after it") {
		t.Errorf("unknown flag: exit %d, stderr %q", code, errOut)
	}
}

// TestExecRemovedWorkingDir: exec from a directory that was removed says
// what to do instead of running the command from /. Not parallel: it
// changes the process's directory.
func TestExecRemovedWorkingDir(t *testing.T) {
	gone := filepath.Join(t.TempDir(), "gone")
	if err := os.Mkdir(gone, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Chdir(gone)
	if err := os.Remove(gone); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runCLI(t, "exec", "--profile", "ci", "--", "pwd")
	if code != 125 || out != "" || !strings.Contains(errOut, "cd to an existing directory or pass --workdir DIR") {
		t.Errorf("exec from a removed directory: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	code, out, errOut = runCLI(t, "exec", "--profile", "ci", "--workdir", "/", "--", "pwd")
	if code != 0 || out != "/\n" {
		t.Errorf("with --workdir /: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
}

// TestDomainFlagsNeedFilteredNetwork: --allow-domain and --deny-domain act
// only through the filtered network's proxy; with another mode they are
// refused instead of dropped.
func TestDomainFlagsNeedFilteredNetwork(t *testing.T) {
	for _, args := range [][]string{
		{"--network", "allowed", "--deny-domain", "example.com"},
		{"--profile", "dev", "--deny-domain", "example.com"},
		{"--profile", "ci", "--allow-domain", "example.com"},
	} {
		code, _, errOut := runCLI(t, append(append([]string{"exec"}, args...), "--", "true")...)
		if code != 125 || !strings.Contains(errOut, "applies only to the filtered network") {
			t.Errorf("%v: exit %d, stderr %q", args, code, errOut)
		}
	}
	if code, _, errOut := runCLI(t, "exec", "--profile", "ci", "--network", "filtered", "--allow-domain", "example.com", "--", "true"); code != 0 {
		t.Errorf("filtered with --allow-domain: exit %d, stderr %q", code, errOut)
	}
}

// TestExecFlagValues: values exec refuses before running anything, each
// with a message that says what to change, and their valid neighbours.
func TestExecFlagValues(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		want string // "" runs the command
	}{
		{"timeout 0s", []string{"--timeout", "0s"}, "agentbox: invalid --timeout 0s: must be positive; leave the flag out for no timeout\n"},
		{"timeout 0", []string{"--timeout=0"}, "agentbox: invalid --timeout 0s: must be positive"},
		{"negative timeout", []string{"--timeout", "-5s"}, "agentbox: invalid --timeout -5s: must be positive"},
		{"timeout", []string{"--timeout", "30s"}, ""},
		{"missing workdir", []string{"--workdir", "/nonexistent/dir"}, "agentbox: invalid --workdir \"/nonexistent/dir\": /nonexistent/dir does not exist; create it or choose another working directory\n"},
		{"workdir is a file", []string{"--workdir", "/etc/passwd"}, "agentbox: invalid --workdir \"/etc/passwd\": /etc/passwd is not a directory; name the directory to work in\n"},
		{"workdir", []string{"--workdir", "/etc"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := append(append([]string{"exec", "--profile", "ci"}, tc.args...), "--", "/bin/true")
			code, _, errOut := runCLI(t, args...)
			if tc.want == "" {
				if code != 0 {
					t.Errorf("exit %d, stderr %q", code, errOut)
				}
				return
			}
			if code != exitInternal || !strings.HasPrefix(errOut, tc.want) {
				t.Errorf("exit %d, stderr %q, want %q", code, errOut, tc.want)
			}
		})
	}
}
