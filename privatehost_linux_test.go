//go:build linux

package agentbox_test

import (
	"context"
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// privateHostEnv names the directory privateHost gives its host test.
const privateHostEnv = "AGENTBOX_PRIVATE_HOST_DIR"

// privateHost runs host, a test of this binary, as a host whose mounts are
// private, as a container's are (/ has no shared: tag): in a child in a
// mount namespace of its own, given a fresh directory under /var/tmp
// (privateHostBase). It returns the child's output. Root only: callers
// skip otherwise.
func privateHost(t *testing.T, host string) (string, error) {
	t.Helper()
	base, err := os.MkdirTemp("/var/tmp", "agentbox-privhost-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(base)
	if err := os.Chmod(base, 0o755); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^"+host+"$", "-test.v")
	cmd.Env = append(os.Environ(), privateHostEnv+"="+base)
	cmd.SysProcAttr = &syscall.SysProcAttr{Unshareflags: syscall.CLONE_NEWNS}
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// privateHostBase, in a host test that privateHost started, makes the
// mount namespace's mounts private and returns the test's directory; the
// test is skipped when run any other way.
func privateHostBase(t *testing.T) string {
	t.Helper()
	base := os.Getenv(privateHostEnv)
	if base == "" {
		t.Skip("helper: runs only when started by privateHost")
	}
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		t.Fatal(err)
	}
	return base
}
