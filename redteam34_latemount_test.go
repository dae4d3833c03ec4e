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

// TestRedteam34LateMountPrivate: a Manager's warm init is cloned with a
// copy of the host's mount table, and binds that copy, not the host's
// current tree, when the command comes. README ("the host's tree is bound
// when the command comes, so it sees the host's mounts as they are then")
// and TestWarmInitSeesLateMounts hold only where the host's mounts are
// shared (systemd). In a container host (Docker, Kubernetes, this CI:
// / has no shared: tag in mountinfo) the mounts are private, and the copy
// is a snapshot frozen at the warm init's start:
//   - a tmpfs the host unmounted after the warm init started (here a
//     secrets volume, holding SECRET34) is still mounted, and readable,
//     in the command's sandbox (and kept alive by the init).
//
// (A writable root on a volume mounted late is seen right: the writable
// roots do not come from the snapshot.)
// The host here is a child in a mount namespace of its own whose mounts
// are private, as in a container. Control: a ColdStart Manager run the
// same moment sees the host's mounts as they are.
// Severity: medium (a command reads data the host removed from view
// before the command started, which the README says it cannot).
// Fixed (ac426df): a warm init keeps a mount stamp (mountStamp, a polled
// /proc/self/mountinfo opened before its clone), and one whose host mount
// table changed since is discarded for a fresh init.
func TestRedteam34LateMountPrivate(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to make a mount namespace of the host's")
	}
	s, err := privateHost(t, "TestRedteam34LateMountHost")
	if err != nil || !strings.Contains(s, "COLD late=late written=true gone=\n") {
		t.Fatalf("control (cold start) failed: %v\n%s", err, s)
	}
	if !strings.Contains(s, "WARM late=late written=true gone=\n") {
		t.Errorf("warm init's command does not see the host's mounts as they are when it starts:\n%s", s)
	}
}

// TestRedteam34LateMountHost is the host side of
// TestRedteam34LateMountPrivate (it runs only when that test starts it).
func TestRedteam34LateMountHost(t *testing.T) {
	base := privateHostBase(t)
	cfg := agentbox.CIConfig()
	cfg.Classifier = rt9Sandboxed{}
	run := func(m *agentbox.Manager, dir string) string {
		gone, late := filepath.Join(dir, "gone"), filepath.Join(dir, "late")
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		res, err := m.ExecArgs(ctx, "/bin/sh", []string{"-c", "echo late=$(cat " + late + "/f 2>/dev/null) gone=$(cat " + gone + "/f 2>/dev/null); echo written > " + late + "/out"},
			agentbox.WithWritableRoots(late))
		if err != nil {
			t.Fatal(err)
		}
		_, werr := os.Stat(late + "/out")
		return strings.Replace(strings.TrimSpace(res.Stdout), " gone=", fmt.Sprintf(" written=%v gone=", werr == nil), 1)
	}
	setup := func(dir string) {
		for _, d := range []string{"gone", "late"} {
			if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
				t.Fatal(err)
			}
		}
		if err := unix.Mount("tmpfs", filepath.Join(dir, "gone"), "tmpfs", 0, "mode=0755"); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "gone", "f"), []byte("SECRET34"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	change := func(dir string) {
		if err := unix.Unmount(filepath.Join(dir, "gone"), 0); err != nil {
			t.Fatal(err)
		}
		late := filepath.Join(dir, "late")
		if err := unix.Mount("tmpfs", late, "tmpfs", 0, "mode=0777"); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(late+"/f", []byte("late"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	warmDir, coldDir := filepath.Join(base, "warm"), filepath.Join(base, "cold")
	setup(warmDir)
	setup(coldDir)
	m, err := agentbox.NewManager(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	fmt.Println("FIRST " + run(m, warmDir)) // the next warm init starts after it
	time.Sleep(1500 * time.Millisecond)
	change(warmDir)
	fmt.Println("WARM " + run(m, warmDir))
	coldCfg := cfg
	coldCfg.ColdStart = true
	mc, err := agentbox.NewManager(coldCfg)
	if err != nil {
		t.Fatal(err)
	}
	defer mc.Close()
	change(coldDir)
	fmt.Println("COLD " + run(mc, coldDir))
}
