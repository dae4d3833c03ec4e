//go:build linux

package agentbox_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentbox-dev/agentbox"
	"golang.org/x/sys/unix"
)

// TestRedteam35MountStamp: on a private-propagation host (a container),
// mount changes other than a plain mount or unmount after a warm init was
// cloned: a bind remount noexec of a directory holding a program, and a
// secrets tmpfs moved away (mount --move) from where it was. A warm init
// kept would still exec the program and read the secret where it was.
// The stamp (ac426df) sees both (remount and move bump the namespace's
// event count), and the command gets a fresh init. Control: the first
// command, before the changes, execs the program and reads the secret.
// Held (new: remount and move, beside 34's mount and unmount).
func TestRedteam35MountStamp(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to make a mount namespace of the host's")
	}
	s, _ := privateHost(t, "TestRedteam35MountStampHost")
	if !strings.Contains(s, "FIRST ran=yes secret=SECRET35\n") {
		t.Fatalf("control (before the changes) failed:\n%s", s)
	}
	if !strings.Contains(s, "AFTER ran=no secret=\n") {
		t.Errorf("a command after the host's remount and move sees the stale table:\n%s", s)
	}
}

// TestRedteam35MountStampHost is the host side of TestRedteam35MountStamp.
func TestRedteam35MountStampHost(t *testing.T) {
	base := privateHostBase(t)
	bin, sec, moved := filepath.Join(base, "bin"), filepath.Join(base, "sec"), filepath.Join(base, "moved")
	for _, d := range []string{bin, sec, moved} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := unix.Mount("tmpfs", bin, "tmpfs", 0, "mode=0755"); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin+"/prog", []byte("#!/bin/sh\necho yes\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := unix.Mount("tmpfs", sec, "tmpfs", 0, "mode=0755"); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(sec+"/f", []byte("SECRET35"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := agentbox.CIConfig()
	cfg.Classifier = rt9Sandboxed{}
	m, err := agentbox.NewManager(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	run := func() string {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		res, err := m.ExecArgs(ctx, "/bin/sh", []string{"-c", "echo ran=$(" + bin + "/prog 2>/dev/null || echo no) secret=$(cat " + sec + "/f 2>/dev/null)"})
		if err != nil {
			t.Fatal(err)
		}
		return strings.TrimSpace(res.Stdout)
	}
	fmt.Println("FIRST " + run()) // the next warm init starts after it
	time.Sleep(1500 * time.Millisecond)
	if err := unix.Mount("", bin, "", unix.MS_REMOUNT|unix.MS_BIND|unix.MS_NOEXEC, ""); err != nil {
		t.Fatal(err)
	}
	if err := unix.Mount(sec, moved, "", unix.MS_MOVE, ""); err != nil {
		t.Fatal(err)
	}
	fmt.Println("AFTER " + run())
}
