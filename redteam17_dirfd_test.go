//go:build linux

package agentbox_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentbox-dev/agentbox"
)

// Red-team session 17: a host program hands the wrapped command a
// directory of its own as stdin (a plain *os.File, which Wrap passes "as
// it is", like a file or a FIFO). The descriptor belongs to the host's
// mount namespace, so paths opened relative to it (openat) are resolved
// in the host's mounts, not the sandbox's: the masks over a deny-read file
// inside a writable root and the read-only binds over the protected names
// (.git/config, .git/hooks, .bashrc) are not on that way, and Landlock,
// which grants a writable root whole, does not stop it either.
//
// The attack must fail: through the descriptor, the denied file is not
// read and no protected name is written. The controls: an ordinary file
// of the writable root is read through the descriptor, and the command's
// own paths (its working directory) work as the policy says.
//
// The files are world-writable so that the result is the same whether the
// caller is root (the sandbox runs as nobody) or an unprivileged user
// (whose own files they are).
//
// Fixed: a file that is no stream (a directory, a block device, a link
// opened with O_PATH, an anonymous inode) is refused as a standard stream
// by Wrap and Start (streamOf), and regular files are relayed.
func TestRedteam17DirectoryStdinBypassesMounts(t *testing.T) {
	t.Parallel()
	m := newManager(t, agentbox.CIConfig())
	root := hostDir(t)
	if err := os.Chmod(root, 0o777); err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		"secret.txt":  "SECRET-rt17\n",
		"plain.txt":   "PLAIN-rt17\n",
		".git/config": "[core]\n",
		".bashrc":     "# rc\n",
	}
	if err := os.MkdirAll(filepath.Join(root, ".git", "hooks"), 0o777); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{".git", ".git/hooks"} {
		if err := os.Chmod(filepath.Join(root, d), 0o777); err != nil {
			t.Fatal(err)
		}
	}
	for n, s := range files {
		p := filepath.Join(root, n)
		if err := os.WriteFile(p, []byte(s), 0o666); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, 0o666); err != nil {
			t.Fatal(err)
		}
	}
	d, err := os.Open(root)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	var out, errb bytes.Buffer
	cmd := exec.Command("/bin/sh", "-c", `exec 3<&0 </dev/null; exec python3 -c '
import os
for name in ("plain.txt", "secret.txt"):
    try:
        fd = os.open(name, os.O_RDONLY, dir_fd=3); print("FD-READ", name, os.read(fd, 100))
    except OSError as e: print("FD-READ-ERR", name, e.errno)
for name in (".git/hooks/pre-commit", ".git/config", ".bashrc"):
    try:
        fd = os.open(name, os.O_WRONLY|os.O_CREAT|os.O_APPEND, 0o755, dir_fd=3); os.write(fd, b"PWNED\n"); print("FD-WROTE", name)
    except OSError as e: print("FD-WRITE-ERR", name, e.errno)
for name in ("plain.txt", "secret.txt"):
    try: print("CWD-READ", name, open(name).read().encode())
    except OSError as e: print("CWD-READ-ERR", name, e.errno)
'`)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = d, &out, &errb
	opts := []agentbox.Option{agentbox.WithWritableRoots(root),
		agentbox.WithDenyRead(filepath.Join(root, "secret.txt")),
		agentbox.WithWorkingDir(root)}
	cleanup, err := m.Wrap(context.Background(), cmd, opts...)
	if err != nil {
		// Refused: the defence. So must Start be; and the same command
		// with no directory handed in runs (the control).
		if !errors.Is(err, agentbox.ErrConfigInvalid) || !strings.Contains(err.Error(), "is a directory") {
			t.Fatalf("Wrap: %v; want the directory refused as a stream", err)
		}
		start := exec.Command("/bin/true")
		start.Stdin = d
		p, err := m.Start(context.Background(), start, opts...)
		if err == nil {
			p.Wait()
			t.Fatal("Start took a directory as stdin")
		}
		if !errors.Is(err, agentbox.ErrConfigInvalid) {
			t.Fatalf("Start: %v; want ErrConfigInvalid", err)
		}
		cmd = exec.Command(cmd.Path, cmd.Args[1:]...)
		out.Reset()
		cmd.Stdout, cmd.Stderr = &out, &errb
		if cleanup, err = m.Wrap(context.Background(), cmd, opts...); err != nil {
			t.Fatal(err)
		}
		err = cmd.Run()
		cleanup()
		if got := out.String(); err != nil || !strings.Contains(got, "CWD-READ plain.txt b'PLAIN-rt17") || strings.Contains(got, "SECRET-rt17") {
			t.Fatalf("control: %v\n%s%s", err, got, errb.String())
		}
		return
	}
	err = cmd.Run()
	cleanup()
	got := out.String()
	if err != nil {
		t.Fatalf("%v\n%s%s", err, got, errb.String())
	}
	// The controls.
	if !strings.Contains(got, "FD-READ plain.txt b'PLAIN-rt17") || !strings.Contains(got, "CWD-READ plain.txt b'PLAIN-rt17") {
		t.Fatalf("control: the writable root's ordinary file is not readable:\n%s%s", got, errb.String())
	}
	if strings.Contains(got, "CWD-READ secret.txt") {
		t.Fatalf("control: the deny-read file is readable by its path:\n%s", got)
	}
	// The attack.
	if strings.Contains(got, "SECRET-rt17") {
		t.Errorf("the deny-read file in the writable root was read through the host directory handed as stdin:\n%s", got)
	}
	for _, n := range []string{".git/hooks/pre-commit", ".git/config", ".bashrc"} {
		if b, _ := os.ReadFile(filepath.Join(root, n)); strings.Contains(string(b), "PWNED") {
			t.Errorf("the protected %s was written through the host directory handed as stdin: %q", n, b)
		}
	}
	t.Logf("\n%s", got)
}
