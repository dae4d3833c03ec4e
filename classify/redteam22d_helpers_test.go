//go:build linux

package classify

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// rt22dSecret is the private key planted in the fake home of a real run.
const rt22dSecret = "RT22D-PRIVATE-KEY-MATERIAL"

// rt22dCase is one command of a red-team-22 (session d) table: the
// decision the classifier must give at least (exactly, when exact is
// set), what running it for real must do (effect; nil: not run) and the
// programs the real run needs (skipped when one is missing).
type rt22dCase struct {
	command string
	want    Decision
	exact   bool
	effect  func(t *testing.T, r rt22dRun) bool
	needs   []string
	after   string // run in the same home after command (bash -i -c … for rc files)
}

// rt22dRun is what a real run left behind.
type rt22dRun struct {
	home, work, out string
}

// rt22dExec runs command in a real bash (no profile, no rc) in a fresh
// working directory, with a fresh fake HOME holding ~/.ssh/id_rsa and a
// one-line ~/.bashrc. The real user's home is never named.
func rt22dExec(t *testing.T, command, after string) rt22dRun {
	t.Helper()
	home, work := t.TempDir(), t.TempDir()
	if err := os.MkdirAll(filepath.Join(home, ".ssh"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, ".ssh", "id_rsa"), []byte(rt22dSecret+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, ".bashrc"), []byte("# rc\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	run := func(args ...string) string {
		ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, "bash", args...)
		cmd.Dir = work
		cmd.Env = []string{"HOME=" + home, "PATH=/usr/local/bin:/usr/bin:/bin", "LANG=C", "TMPDIR=" + work,
			"npm_config_cache=" + filepath.Join(work, ".npmcache"), "npm_config_update_notifier=false"}
		cmd.Stdin = strings.NewReader("")
		out, _ := cmd.CombinedOutput()
		return string(out)
	}
	out := run("--noprofile", "--norc", "-c", command)
	if after != "" {
		out += run("--noprofile", "-c", after)
	}
	return rt22dRun{home: home, work: work, out: out}
}

// rt22dSSHGone reports whether the fake home's ~/.ssh was deleted (waiting
// a little for a background reader such as a coprocess).
func rt22dSSHGone(t *testing.T, r rt22dRun) bool {
	for i := 0; i < 40; i++ {
		if _, err := os.Stat(filepath.Join(r.home, ".ssh")); os.IsNotExist(err) {
			return true
		}
		time.Sleep(50 * time.Millisecond)
	}
	return false
}

// rt22dLeaked reports whether the private key reached the output.
func rt22dLeaked(t *testing.T, r rt22dRun) bool { return strings.Contains(r.out, rt22dSecret) }

// rt22dCheck classifies every case with the default classifier and runs
// those with an effect for real, failing when the effect did not happen
// (the attack is not real) or the verdict is below what the effect
// deserves.
func rt22dCheck(t *testing.T, cases []rt22dCase) {
	t.Helper()
	c := Default()
	for _, tc := range cases {
		got := c.Classify(tc.command)
		if got.Decision < tc.want || tc.exact && got.Decision != tc.want {
			t.Errorf("%q: %s (rule %q, command %q), want %s", tc.command, got.Decision, got.Rule, got.Command, tc.want)
		}
		if tc.effect == nil {
			continue
		}
		missing := ""
		for _, p := range append([]string{"bash"}, tc.needs...) {
			if _, err := exec.LookPath(p); err != nil {
				missing = p
			}
		}
		if missing != "" {
			t.Logf("%q: not run for real: no %s", tc.command, missing)
			continue
		}
		r := rt22dExec(t, tc.command, tc.after)
		if !tc.effect(t, r) {
			t.Errorf("%q: run for real, the payload did not take effect (output %q)", tc.command, r.out)
		}
	}
}
