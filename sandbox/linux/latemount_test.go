//go:build linux

package linux

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/agentbox-dev/agentbox/sandbox"
	"golang.org/x/sys/unix"
)

// lateMountEnv runs the test binary as runLateMount, in a mount namespace
// of its own, on the directory it names.
const lateMountEnv = "AGENTBOX_TEST_LATE_MOUNT"

// TestWarmInitSeesLateMounts: a warm init waits, maybe for long, before
// its command comes; the command must see the host's mounts as they are
// then. A file system the host mounts meanwhile is visible (a writable
// root on a volume mounted late is the volume, not the directory under
// it), and one the host unmounts meanwhile is gone. The host here is a
// child in a mount namespace of its own whose mounts are shared, as on a
// systemd machine.
func TestWarmInitSeesLateMounts(t *testing.T) {
	if os.Geteuid() != 0 || !probeUserns().OK {
		t.Skip("needs root (to make a mount namespace) and user namespaces")
	}
	base, err := os.MkdirTemp("/var/tmp", "agentbox-latemount-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(base)
	if err := os.Chmod(base, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), lateMountEnv+"="+base)
	cmd.SysProcAttr = &syscall.SysProcAttr{Unshareflags: syscall.CLONE_NEWNS}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if got, want := string(out), "late\nwritten\n"; got != want {
		t.Errorf("the sandbox saw %q, want %q (the late mount's file, its own write to it, and nothing of the unmounted one)", got, want)
	}
}

// runLateMount is the host side of TestWarmInitSeesLateMounts.
func runLateMount() int {
	base := os.Getenv(lateMountEnv)
	gone, late := filepath.Join(base, "gone"), filepath.Join(base, "late")
	fail := func(err error) int { fmt.Println("ERROR", err); return 1 }
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_SHARED, ""); err != nil {
		return fail(err)
	}
	for _, d := range []string{gone, late} {
		if err := os.Mkdir(d, 0o755); err != nil {
			return fail(err)
		}
	}
	if err := unix.Mount("tmpfs", gone, "tmpfs", 0, "mode=0755"); err != nil {
		return fail(err)
	}
	if err := os.WriteFile(gone+"/f", []byte("old secret\n"), 0o644); err != nil {
		return fail(err)
	}
	r := &Runtime{}
	defer r.Close()
	r.Warm(true)
	if err := waitReady(&r.pool, kindNetns); err != nil {
		return fail(err)
	}
	// The host changes its mounts while the init waits, built ahead.
	if err := unix.Mount("tmpfs", late, "tmpfs", 0, "mode=0777"); err != nil {
		return fail(err)
	}
	if err := os.WriteFile(late+"/f", []byte("late\n"), 0o644); err != nil {
		return fail(err)
	}
	if err := unix.Unmount(gone, 0); err != nil {
		return fail(err)
	}
	pr, pw, err := os.Pipe()
	if err != nil {
		return fail(err)
	}
	spec := &sandbox.Spec{Network: sandbox.NetworkBlocked, Filesystem: sandbox.Filesystem{Writable: []string{late}}}
	proc, err := r.Start(context.Background(), spec, &sandbox.Program{Path: "/bin/sh",
		Args: []string{"sh", "-c", "cat " + late + "/f " + gone + "/f 2>/dev/null; echo written > " + late + "/out"}, Stdout: pw})
	pw.Close()
	if err != nil {
		return fail(err)
	}
	got, _ := io.ReadAll(pr)
	proc.Wait()
	proc.Close()
	written, err := os.ReadFile(late + "/out")
	if err != nil {
		return fail(fmt.Errorf("the sandbox's write did not reach the late mount: %w", err))
	}
	fmt.Print(string(got) + strings.TrimSpace(string(written)) + "\n")
	return 0
}

// waitReady waits until a warm init of kind is ready.
func waitReady(p *pool, kind initKind) error {
	for range 2000 {
		if ready, _ := p.state(kind); ready {
			return nil
		}
		unix.Nanosleep(&unix.Timespec{Nsec: 5e6}, nil)
	}
	return fmt.Errorf("no warm init became ready")
}
