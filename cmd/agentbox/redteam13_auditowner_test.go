//go:build linux

package main

import (
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Red team 13: the audit log named by a manifest's audit.log_path where
// another host user got there first. The state directory is refused when
// another user owns it or may write it (paths.Ensure); the audit log and
// its directory must be held to the same rule, or that user reads every
// event of the run (commands, hosts, credential names) and may delete or
// replace the log at will.
//
// Fixed: audit.Open refuses a log whose directory (or a parent) another
// user owns or may write (a sticky parent such as /tmp excepted, not the
// log's own directory), and an existing log another user owns or may
// write (ErrUnsafeLocation, one line naming audit.log_path).

// rt13dSharedDir makes a directory the other user can reach, removed at
// the end of the test (t.TempDir's parents are private to root).
func rt13dSharedDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "r13d-auditowner-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

func rt13dAsUser(t *testing.T, name string, args ...string) (string, error) {
	t.Helper()
	out, err := exec.Command("runuser", append([]string{"-u", name, "--"}, args...)...).CombinedOutput()
	return string(out), err
}

func TestRedteam13AuditLogInAnotherUsersHands(t *testing.T) {
	name, _ := rt4OtherUser(t)
	u, err := user.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	runEnv(t)
	base := rt13dSharedDir(t)

	cases := []struct {
		name string
		// prepare makes the directory of the log and returns the log path;
		// the other user may act on it before the run.
		prepare func(t *testing.T) string
		attack  bool
	}{
		{
			// The other user's own directory, and a log file it made
			// world-readable there before the run.
			name: "other-users-directory-and-file",
			prepare: func(t *testing.T) string {
				d := filepath.Join(base, "theirs")
				if err := os.Mkdir(d, 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.Chown(d, uid, gid); err != nil {
					t.Fatal(err)
				}
				p := filepath.Join(d, "worker.log")
				if out, err := rt13dAsUser(t, name, "sh", "-c", "touch "+p+" && chmod 666 "+p); err != nil {
					t.Fatalf("plant: %v %s", err, out)
				}
				return p
			},
			attack: true,
		},
		{
			// A shared sticky directory such as /tmp: the other user plants
			// the file the manifest names.
			name: "shared-sticky-directory",
			prepare: func(t *testing.T) string {
				d := filepath.Join(base, "sticky")
				if err := os.Mkdir(d, 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.Chmod(d, 0o777|os.ModeSticky); err != nil {
					t.Fatal(err)
				}
				p := filepath.Join(d, "worker.log")
				if out, err := rt13dAsUser(t, name, "sh", "-c", "touch "+p+" && chmod 666 "+p); err != nil {
					t.Fatalf("plant: %v %s", err, out)
				}
				return p
			},
			attack: true,
		},
		{
			// Control: the operator's own private directory.
			name: "own-private-directory",
			prepare: func(t *testing.T) string {
				d := filepath.Join(base, "mine")
				if err := os.Mkdir(d, 0o700); err != nil {
					t.Fatal(err)
				}
				return filepath.Join(d, "worker.log")
			},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			logPath := tc.prepare(t)
			m := writeManifest(t, "name: worker\naudit:\n  log_level: standard\n  log_path: "+logPath+"\n")
			a := startCLI(t, "run", "--manifest", m, "--", "/bin/sh", "-c", "echo done")
			code := a.wait(t, 20*time.Second)
			// What the other user learns of root's run.
			read, rerr := rt13dAsUser(t, name, "cat", logPath)
			leaked := rerr == nil && strings.Contains(read, `"agent_start"`)
			if !tc.attack {
				if code != 0 {
					t.Fatalf("control: run exited %d\nstdout %q\nstderr %q", code, a.stdout.String(), a.stderr.String())
				}
				b, err := os.ReadFile(logPath)
				if err != nil || !strings.Contains(string(b), `"agent_start"`) {
					t.Fatalf("control: the log holds no agent_start: %v %q", err, b)
				}
				if leaked {
					t.Fatalf("control: %s read root's private log", name)
				}
				return
			}
			if code != 0 && (!strings.Contains(a.stderr.String(), "unsafe log location") || !strings.Contains(a.stderr.String(), "audit.log_path")) {
				t.Errorf("the run was refused (exit %d) without saying why and what to change: %q", code, a.stderr.String())
			}
			if code == 0 && leaked {
				t.Errorf("attack succeeded: root's run wrote its audit log into %s, which %s owns or planted, and %s read it:\n%.300s",
					logPath, name, name, read)
			}
			// The other user's hold on the log: deleting it makes root's
			// next run refuse to start (the key signed a longer log).
			if code == 0 {
				if out, err := rt13dAsUser(t, name, "rm", "-f", logPath); err == nil {
					a2 := startCLI(t, "run", "--manifest", m, "--", "/bin/sh", "-c", "echo done")
					if c2 := a2.wait(t, 20*time.Second); c2 != 0 {
						t.Errorf("attack succeeded: %s deleted root's audit log and root's next run exited %d: %q",
							name, c2, a2.stderr.String())
					}
				} else {
					t.Logf("delete as %s refused: %s", name, out)
				}
			}
		})
	}
}
