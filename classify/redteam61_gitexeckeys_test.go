package classify

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestRedteam61GitExecKeys: git runs, with the shell, the values of more
// configuration keys than the classifier knows:
//
//   - submodule.<name>.update = !COMMAND, run by `git submodule update` in
//     a submodule not at its recorded commit (git refuses it from
//     .gitmodules, not from -c, GIT_CONFIG_* or .git/config);
//   - trailer.<token>.command and trailer.<token>.cmd, run by `git
//     interpret-trailers` (and commit --trailer) for the token;
//   - credential.<url>.helper, the helper for one URL, run as credential.helper
//     is when the server asks for a password.
//
// So
//
//	git -c submodule.sub.update='!rm -rf ~/.ssh' submodule update                                             sandboxed
//	GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=submodule.sub.update GIT_CONFIG_VALUE_0='!rm -rf ~/.ssh' git submodule update   sandboxed
//	printf '[submodule "sub"]\n\tupdate = !rm -rf ~/.ssh\n' >> .git/config; git submodule update                sandboxed
//	git -c trailer.x.command='rm -rf ~/.ssh' interpret-trailers --trailer x=1 </dev/null                       sandboxed
//	printf '[trailer "x"]\n\tcmd = rm -rf ~/.ssh\n' >> .git/config; git interpret-trailers --trailer x=1 </dev/null   sandboxed
//	git -c credential.http://127.0.0.1:PORT.helper='!rm -rf ~/.ssh' ls-remote http://127.0.0.1:PORT/x          sandboxed
//
// remove ~/.ssh, where `git -c credential.helper='!rm -rf ~/.ssh'
// ls-remote …` and `git -c core.pager='rm -rf ~/.ssh' log` are judged
// (forbidden).
//
// Why: rules_git.go:gitExecKey, which every path for configuration (-c,
// --config-env, GIT_CONFIG_*, git config, written config files in
// gitconfigtext.go) asks, lists no "submodule." and no "trailer." key,
// and matches "credential.helper" exactly, missing the per-URL
// credential.<url>.helper.
//
// The premise runs each line with the real git in a fake home: a
// superproject (the working directory) whose submodule is checked out one
// commit behind, and for the credential helper an HTTP server the test
// starts on loopback that answers 401; it checks that the fake ~/.ssh is
// gone, and that the same line with `true` leaves it.
//
// Severity: high (a forbidden deletion of the home's ~/.ssh judged
// sandboxed). Found by red-team round 61. Fixed: gitexeckeys.go, gitExecKey
// reads a table of sections whose keys have a middle part
// (gitExecSubKeys: submodule.<name>.update, trailer.<token>.command/cmd,
// credential.<url>.helper, gpg.<format>.program, hook.<name>.command …).
func TestRedteam61GitExecKeys(t *testing.T) {
	rt60aNeed(t, "git", "git")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("WWW-Authenticate", `Basic realm="rt61a"`)
		w.WriteHeader(http.StatusUnauthorized)
	}))
	defer srv.Close()
	url := srv.URL // http://127.0.0.1:PORT
	attacks := []string{
		`git -c submodule.sub.update='!rm -rf ~/.ssh' submodule update`,
		`GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=submodule.sub.update GIT_CONFIG_VALUE_0='!rm -rf ~/.ssh' git submodule update`,
		`printf '[submodule "sub"]\n\tupdate = !rm -rf ~/.ssh\n' >> .git/config; git submodule update`,
		`git -c trailer.x.command='rm -rf ~/.ssh' interpret-trailers --trailer x=1 </dev/null`,
		`git -c trailer.x.cmd='rm -rf ~/.ssh' interpret-trailers --trailer x=1 </dev/null`,
		`printf '[trailer "x"]\n\tcmd = rm -rf ~/.ssh\n' >> .git/config; git interpret-trailers --trailer x=1 </dev/null`,
		fmt.Sprintf(`git -c credential.%s.helper='!rm -rf ~/.ssh' ls-remote %s/x`, url, url),
	}
	setup := func(t *testing.T, work string) {
		origin := t.TempDir()
		rt61aGit(t, origin, "init", "-q")
		rt61aGit(t, origin, "commit", "-q", "--allow-empty", "-m", "one")
		rt61aGit(t, origin, "commit", "-q", "--allow-empty", "-m", "two")
		rt61aGit(t, work, "init", "-q")
		rt61aGit(t, work, "-c", "protocol.file.allow=always", "submodule", "add", "-q", origin, "sub")
		rt61aGit(t, work, "commit", "-q", "-m", "add sub")
		rt61aGit(t, filepath.Join(work, "sub"), "checkout", "-q", "HEAD~1")
	}
	for _, l := range attacks {
		rt61aPremise(t, setup, l, strings.ReplaceAll(l, "rm -rf ~/.ssh", "true"), "GIT_TERMINAL_PROMPT=0")
	}
	// References: the keys the classifier knows, with the same command.
	rtAtLeast(t, []string{"bash"}, fmt.Sprintf(`git -c credential.helper='!rm -rf ~/.ssh' ls-remote %s/x`, url), Forbidden)
	rtAtLeast(t, []string{"bash"}, `git -c core.pager='rm -rf ~/.ssh' log`, Forbidden)
	// The attack.
	for _, l := range attacks {
		rtAtLeast(t, []string{"bash", "sh"}, l, Escalated)
	}
	// Controls: everyday submodule, trailer and credential lines.
	rtBelow(t, `git submodule update --init --recursive`, Escalated)
	rtBelow(t, `git -c submodule.sub.update=rebase submodule update`, Escalated)
	rtBelow(t, `git interpret-trailers --trailer 'Signed-off-by: A <a@b>' < msg.txt`, Escalated)
	rtBelow(t, `git -c credential.https://github.com.helper=cache ls-remote https://github.com/x/y`, Escalated)
}

// rt61aGit runs git in dir for a premise's setup, with an identity and no
// global or system configuration (HOME is dir, a directory of the test).
func rt61aGit(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=rt61a", "-c", "user.email=rt61a@example.invalid"}, args...)...)
	cmd.Dir = dir
	cmd.Env = []string{"HOME=" + dir, "PATH=/usr/local/bin:/usr/bin:/bin", "GIT_CONFIG_NOSYSTEM=1", "LANG=C"}
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("setup: git %v in %s: %v\n%s", args, dir, err, out)
	}
}

// TestRedteam61GitAlternateRefsCommand: core.alternateRefsCommand is a
// command git runs with the shell to list the refs of an alternate object
// store: `git fetch` runs it in a repository with
// .git/objects/info/alternates (as `git clone --reference` and
// `--shared` make), so
//
//	git -c core.alternateRefsCommand='rm -rf ~/.ssh' fetch origin                                                   sandboxed
//	printf '[core]\n\talternateRefsCommand = rm -rf ~/.ssh\n' >> .git/config; git fetch origin                      sandboxed
//
// remove ~/.ssh, where `git -c core.fsmonitor='rm -rf ~/.ssh' status` is
// judged (forbidden).
//
// Why: rules_git.go:gitExecKeys has no "core.alternaterefscommand";
// `git fetch` is not a git-write, so the line is sandboxed.
//
// The premise clones a local origin into the working directory, points
// its alternates at a third repository, adds a commit to the origin, and
// runs each line with the real git in a fake home; it checks that the
// fake ~/.ssh is gone, and that the same line with `true` leaves it.
//
// Severity: high (a forbidden deletion of the home's ~/.ssh judged
// sandboxed). Found by red-team round 61. Fixed: gitexeckeys.go, gitExecKeys
// lists core.alternaterefscommand (and core.gitproxy,
// interactive.difffilter, sendemail's commands).
func TestRedteam61GitAlternateRefsCommand(t *testing.T) {
	rt60aNeed(t, "git", "git")
	attacks := []string{
		`git -c core.alternateRefsCommand='rm -rf ~/.ssh' fetch origin`,
		`printf '[core]\n\talternateRefsCommand = rm -rf ~/.ssh\n' >> .git/config; git fetch origin`,
		`GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.alternateRefsCommand GIT_CONFIG_VALUE_0='rm -rf ~/.ssh' git fetch -q origin`,
	}
	setup := func(t *testing.T, work string) {
		origin, alt := t.TempDir(), t.TempDir()
		rt61aGit(t, origin, "init", "-q")
		rt61aGit(t, origin, "commit", "-q", "--allow-empty", "-m", "one")
		rt61aGit(t, alt, "init", "-q")
		rt61aGit(t, alt, "commit", "-q", "--allow-empty", "-m", "alt")
		rt61aGit(t, work, "clone", "-q", origin, ".")
		if err := os.WriteFile(filepath.Join(work, ".git", "objects", "info", "alternates"), []byte(filepath.Join(alt, ".git", "objects")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		rt61aGit(t, origin, "commit", "-q", "--allow-empty", "-m", "two")
	}
	for _, l := range attacks {
		rt61aPremise(t, setup, l, strings.ReplaceAll(l, "rm -rf ~/.ssh", "true"), "GIT_TERMINAL_PROMPT=0")
	}
	// Reference: a configured command the classifier knows.
	rtAtLeast(t, []string{"bash"}, `git -c core.fsmonitor='rm -rf ~/.ssh' status`, Forbidden)
	// The attack.
	for _, l := range attacks {
		rtAtLeast(t, []string{"bash", "sh"}, l, Escalated)
	}
	// Controls: everyday fetches.
	rtBelow(t, `git fetch origin`, Escalated)
	rtBelow(t, `git -c fetch.prune=true fetch --all`, Escalated)
}
