//go:build linux

package main

import (
	"errors"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// Red team 15: an agent reading the audit logs of earlier runs. A run
// denies the agent its audit log, FILE.checkpoints and FILE.lock, and the
// log's directory only when nothing the agent needs lives there
// (protectAuditLog). `agentbox audit rotate` moves a log, by default, to
// FILE.YYYYMMDDTHHMMSSZ in the same directory, with its checkpoints beside
// it: names the deny list does not hold. A manifest that reads the
// directory its log lives in (a project directory with `log_path:
// audit.log` and `read: [.]`) hands the agent every earlier run's events
// (every command, host, path, credential name and decision of those runs,
// and of any other agent logging there), although it may not read the
// live log beside them.
//
// Run as an unprivileged user (agentbox-ci), the way agentbox is meant to
// be used: under root the agent's uid is mapped away and the 0600 files
// are unreadable anyway.
//
// Fixed: protectAuditLog denies, besides the log's own files, every other
// FILE.* in the log's directory as the run starts (auditLogFiles), the
// logs rotated to audit rotate's default name among them.
func TestRedteam15AgentReadsRotatedAuditLog(t *testing.T) {
	name, bin := rt4OtherUser(t)
	u, err := user.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	base, err := os.MkdirTemp("", "r15b-rotread-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	proj := filepath.Join(base, "proj")
	work := filepath.Join(proj, "work")
	state := filepath.Join(base, "state")
	for _, d := range []string{proj, work} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chmod(base, 0o755); err != nil {
		t.Fatal(err)
	}
	logPath := filepath.Join(proj, "audit.log")
	m := filepath.Join(base, "agent.yaml")
	src := "name: reader\npermissions:\n  filesystem: {read: [" + proj + "], write: [" + work + "]}\naudit: {log_level: standard, log_path: " + logPath + "}\n"
	if err := os.WriteFile(m, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{base, proj, work, m} {
		if err := os.Chown(p, uid, gid); err != nil {
			t.Fatal(err)
		}
	}
	env := []string{"AGENTBOX_STATE_DIR=" + state}
	const secret = "earlier-run-marker-r15b"
	// An earlier run, whose start event names its program's path.
	prog := filepath.Join(work, secret)
	if err := os.WriteFile(prog, []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(prog, uid, gid); err != nil {
		t.Fatal(err)
	}
	if code, out, errOut := r15bAsUserIn(t, work, name, bin, env, "run", "--manifest", m, "--", prog); code != 0 {
		t.Fatalf("first run: exit %d %q %q", code, out, errOut)
	}
	os.Remove(prog)
	if code, out, errOut := r15bAsUserIn(t, work, name, bin, env, "audit", "rotate", "--log", logPath); code != 0 {
		t.Fatalf("rotate: exit %d %q %q", code, out, errOut)
	}
	if code, out, errOut := r15bAsUserIn(t, work, name, bin, env, "run", "--manifest", m, "--", "/bin/true"); code != 0 {
		t.Fatalf("second run: exit %d %q %q", code, out, errOut)
	}
	rotated, _ := filepath.Glob(logPath + ".2*Z")
	if len(rotated) != 1 {
		t.Fatalf("rotated logs: %v", rotated)
	}

	// The agent of a later run reads what it can of the directory.
	cases := []struct {
		name, file string
		control    bool
	}{
		{"control: the live log", logPath, true},
		{"the rotated log", rotated[0], false},
		{"the rotated log's checkpoints", rotated[0] + ".checkpoints", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := r15bAsUserIn(t, work, name, bin, env, "run", "--manifest", m, "--", "/bin/sh", "-c", "cat "+tc.file+" && echo READ-OK")
			read := strings.Contains(out, "READ-OK")
			if tc.control {
				if read || code == 0 {
					t.Fatalf("control: the agent read its live audit log: exit %d %.300q", code, out)
				}
				return
			}
			if read {
				t.Errorf("attack succeeded: the agent read %s, an earlier run's audit data (exit %d, leaked %v):\n%.300s",
					tc.file, code, strings.Contains(out, secret), out)
			} else {
				t.Logf("refused: exit %d %q", code, errOut)
			}
		})
	}
}

// r15bAsUserIn is asUser run from the directory dir.
func r15bAsUserIn(t *testing.T, dir, name, bin string, env []string, args ...string) (int, string, string) {
	t.Helper()
	u, err := user.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	full := append([]string{"-u", name, "--", "env", "-i", "HOME=" + u.HomeDir, "PATH=/usr/bin:/bin", cliEnv + "=1"}, env...)
	full = append(append(full, bin), args...)
	cmd := exec.Command("runuser", full...)
	cmd.Dir = dir
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	var ee *exec.ExitError
	code := 0
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return code, stdout.String(), stderr.String()
}
