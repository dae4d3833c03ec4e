//go:build linux

package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// cliNoUserns and cliNoMount make the test binary the CLI on a machine
// without usable user namespaces: in a user namespace of its own that may
// make none (sysctl user.max_user_namespaces=0), or where they grant no
// capability (a seccomp filter refuses mount, as Ubuntu's AppArmor
// restriction does).
const (
	cliNoUserns = "no-userns"
	cliNoMount  = "no-mount"
)

// TestExecDegraded runs exec where namespaces are unusable. The strict
// default refuses with exit 125 and one line saying why; the dev profile
// (the warn fallback) runs in the reduced tier and says so on stderr, with
// what that leaves unenforced.
func TestExecDegraded(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		machine string
		userns  bool   // in a user namespace of its own
		reason  string // in the refusal
	}{
		{cliNoUserns, true, "max_user_namespaces=0"},
		{cliNoMount, false, "grant no capability"},
	} {
		cli := func(args ...string) (int, string, string) {
			c := exec.Command(os.Args[0], args...)
			c.Env = append(os.Environ(), cliEnv+"="+tc.machine)
			if tc.userns {
				c.SysProcAttr = &syscall.SysProcAttr{
					Cloneflags:  syscall.CLONE_NEWUSER,
					UidMappings: []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getuid(), Size: 1}},
					GidMappings: []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getgid(), Size: 1}},
				}
			}
			var out, errOut strings.Builder
			c.Stdout, c.Stderr = &out, &errOut
			err := c.Run()
			var ee *exec.ExitError
			if err != nil && !errors.As(err, &ee) {
				t.Fatal(err)
			}
			return c.ProcessState.ExitCode(), out.String(), errOut.String()
		}

		code, _, errOut := cli("exec", "--approve", "--workdir", dir, "--", "/bin/true")
		why := tc.reason + "\" and the strict fallback"
		named := strings.Contains(errOut, tc.reason) && strings.Contains(errOut, "strict")
		if tc.userns && os.Getuid() == 0 {
			// Root in a user namespace that maps it to the host's root is
			// refused for that, whatever else is missing.
			why = "root-only files\""
			named = strings.Contains(errOut, "root-only files")
		}
		if code != 125 || strings.Count(errOut, "\n") != 1 || !named {
			t.Errorf("%s, strict: exit %d, stderr %q; want 125 and one line naming \"%s", tc.machine, code, errOut, why)
		}

		code, out, errOut := cli("exec", "--profile", "dev", "--approve", "--write", dir, "--workdir", dir, "--", "/bin/echo", "ran")
		if os.Getuid() == 0 {
			// Root over the host's files: the reduced tier would leave it
			// root-only files, so even the warn fallback refuses.
			if code != 125 || strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, "root-only files") {
				t.Errorf("%s, warn fallback as root: exit %d, stderr %q; want 125 and one line naming root-only files", tc.machine, code, errOut)
			}
			continue
		}
		if code != 0 || out != "ran\n" {
			t.Fatalf("%s, warn fallback: exit %d, stdout %q, stderr %q", tc.machine, code, out, errOut)
		}
		if !strings.Contains(errOut, "agentbox: warning: the policy is not fully enforced: reduced tier") || !strings.Contains(errOut, filepath.Join(dir, ".git")) {
			t.Errorf("%s, warn fallback: stderr %q does not warn of the reduced tier and what it leaves open", tc.machine, errOut)
		}
	}
}

// TestExecStreamsByName: a command opens its standard streams by name
// (/dev/stdout, /dev/stderr), which reopens them through /proc/self/fd.
// When they are the caller's pipes, that must work for the sandbox's user,
// also when root started agentbox (the sandbox then runs as nobody).
func TestExecStreamsByName(t *testing.T) {
	c := exec.Command(os.Args[0], "exec", "--profile", "ci", "--approve", "--workdir", "/", "-c",
		"echo out > /dev/stdout && echo err > /dev/stderr && echo tee | tee /dev/stderr")
	c.Env = append(os.Environ(), cliEnv+"=1")
	var out, errOut strings.Builder
	c.Stdout, c.Stderr = &out, &errOut
	if err := c.Run(); err != nil || out.String() != "out\ntee\n" || errOut.String() != "err\ntee\n" {
		t.Errorf("%v: stdout %q, stderr %q", err, out.String(), errOut.String())
	}
}

// TestPrivateTmpNote: a file in the host's /tmp is not in the sandbox's
// own /tmp, and exec says so when the command fails on it; with its
// directory a writable root the command reads it and no note comes.
func TestPrivateTmpNote(t *testing.T) {
	dir, err := os.MkdirTemp("/tmp", "agentbox-tmpnote-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	f := filepath.Join(dir, "report.txt")
	if err := os.WriteFile(f, []byte("host data\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runCLI(t, "exec", "--profile", "ci", "--", "cat", f)
	if code != 1 || strings.Contains(out, "host data") || !strings.Contains(errOut, "each sandbox has its own empty /tmp") {
		t.Errorf("cat of the host's /tmp: exit %d, stdout %q, stderr %q; want 1 and the note", code, out, errOut)
	}
	code, out, errOut = runCLI(t, "exec", "--profile", "ci", "--write", dir, "--", "cat", f)
	if code != 0 || out != "host data\n" || strings.Contains(errOut, "note:") {
		t.Errorf("with --write %s: exit %d, stdout %q, stderr %q", dir, code, out, errOut)
	}
}
