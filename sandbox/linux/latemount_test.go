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
// of its own, on the directory it names; lateMountPropEnv names the
// propagation of that namespace's mounts (shared or private).
const (
	lateMountEnv     = "AGENTBOX_TEST_LATE_MOUNT"
	lateMountPropEnv = "AGENTBOX_TEST_LATE_MOUNT_PROP"
)

// TestWarmInitSeesLateMounts: a warm init waits, maybe for long, before
// its command comes; the command must see the host's mounts as they are
// then. A file system the host mounts meanwhile is visible (a writable
// root on a volume mounted late is the volume, not the directory under
// it, and a volume mounted elsewhere is there), and one the host unmounts
// meanwhile is gone. The host here is a child in a mount namespace of its
// own whose mounts are shared, as on a systemd machine, or private, as in
// a container (where the warm init's copy of the table does not follow
// the host's, and the init is discarded: mountStamp). A warm init taken
// when nothing changed is kept.
func TestWarmInitSeesLateMounts(t *testing.T) {
	if os.Geteuid() != 0 || !probeUserns().OK {
		t.Skip("needs root (to make a mount namespace) and user namespaces")
	}
	for _, prop := range []string{"shared", "private"} {
		t.Run(prop, func(t *testing.T) {
			base, err := os.MkdirTemp("/var/tmp", "agentbox-latemount-")
			if err != nil {
				t.Fatal(err)
			}
			defer os.RemoveAll(base)
			if err := os.Chmod(base, 0o755); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(os.Args[0], "-test.run=^$")
			cmd.Env = append(os.Environ(), lateMountEnv+"="+base, lateMountPropEnv+"="+prop)
			cmd.SysProcAttr = &syscall.SysProcAttr{Unshareflags: syscall.CLONE_NEWNS}
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("%v: %s", err, out)
			}
			if got, want := string(out), "late\nadded\nwritten\nkept\n"; got != want {
				t.Errorf("got %q, want %q (the late mount's file, the added mount's, nothing of the unmounted one, the sandbox's write to the late mount, and a warm init kept when no mount changed)", got, want)
			}
		})
	}
}

// lateMountProp maps lateMountPropEnv to the propagation flag.
var lateMountProp = map[string]uintptr{"shared": unix.MS_SHARED, "private": unix.MS_PRIVATE}

// runLateMount is the host side of TestWarmInitSeesLateMounts.
func runLateMount() int {
	base := os.Getenv(lateMountEnv)
	gone, late, added := filepath.Join(base, "gone"), filepath.Join(base, "late"), filepath.Join(base, "added")
	fail := func(err error) int { fmt.Println("ERROR", err); return 1 }
	if err := unix.Mount("", "/", "", unix.MS_REC|lateMountProp[os.Getenv(lateMountPropEnv)], ""); err != nil {
		return fail(err)
	}
	for _, d := range []string{gone, late, added} {
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
	for _, m := range []struct{ dir, content string }{{late, "late\n"}, {added, "added\n"}} {
		if err := unix.Mount("tmpfs", m.dir, "tmpfs", 0, "mode=0777"); err != nil {
			return fail(err)
		}
		if err := os.WriteFile(m.dir+"/f", []byte(m.content), 0o644); err != nil {
			return fail(err)
		}
	}
	if err := unix.Unmount(gone, 0); err != nil {
		return fail(err)
	}
	spec := &sandbox.Spec{Network: sandbox.NetworkBlocked, Filesystem: sandbox.Filesystem{Writable: []string{late}}}
	got, _, err := runLate(r, spec, "cat "+late+"/f "+added+"/f "+gone+"/f 2>/dev/null; echo written > "+late+"/out")
	if err != nil {
		return fail(err)
	}
	written, err := os.ReadFile(late + "/out")
	if err != nil {
		return fail(fmt.Errorf("the sandbox's write did not reach the late mount: %w", err))
	}
	// The first sandbox's release starts the next warm init; nothing
	// changes the host's mounts now, so the next command takes it.
	if err := waitReady(&r.pool, kindNetns); err != nil {
		return fail(err)
	}
	r.pool.mu.Lock()
	warmPid := r.pool.ready[kindNetns].proc.pid()
	r.pool.mu.Unlock()
	_, pid, err := runLate(r, spec, "true")
	if err != nil {
		return fail(err)
	}
	kept := "kept"
	if pid != warmPid {
		kept = fmt.Sprintf("discarded (warm init %d, sandbox %d)", warmPid, pid)
	}
	fmt.Print(string(got) + strings.TrimSpace(string(written)) + "\n" + kept + "\n")
	return 0
}

// runLate runs script in a sandbox of r, and returns its output and the
// pid of its init.
func runLate(r *Runtime, spec *sandbox.Spec, script string) ([]byte, int, error) {
	pr, pw, err := os.Pipe()
	if err != nil {
		return nil, 0, err
	}
	defer pr.Close()
	proc, err := r.Start(context.Background(), spec, &sandbox.Program{Path: "/bin/sh",
		Args: []string{"sh", "-c", script}, Stdout: pw})
	pw.Close()
	if err != nil {
		return nil, 0, err
	}
	got, _ := io.ReadAll(pr)
	proc.Wait()
	proc.Close()
	return got, proc.Pid(), nil
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
