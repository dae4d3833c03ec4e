//go:build linux

package attack_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/agentbox-dev/agentbox"
)

// TestRedteam21WritableHomeWithGoModuleCache: the repository scan before
// a run now refuses a writable root whose walk passes 50,000 directories
// (scanBoundError), skipping only node_modules, build output and a few
// package managers' caches (.npm, .cargo, .rustup, .m2, .pnpm-store,
// .cache). A developer's home holds others of the same size that are not
// skipped: Go's module cache (~/go/pkg/mod, every version of every
// dependency ever downloaded, tens of thousands of directories for one
// Kubernetes-sized project), pyenv and conda installs, rootless podman's
// ~/.local/share/containers. A writable home with such a cache is now
// refused outright, for every command, though nobody runs git inside the
// module cache. Control: the same number of directories under .npm (a
// skipped cache) runs.
//
// Severity: low (a legitimate-work regression: refusal, no escape; a Go
// developer who gives agents a writable home cannot run anything). Affects
// both root and unprivileged callers.
//
// Fixed: the scan passes over GOPATH/pkg/mod and language version
// managers' trees (gitrepos.go, skipScan; 9deb4f0).
func TestRedteam21WritableHomeWithGoModuleCache(t *testing.T) {
	t.Parallel()
	mkCache := func(home, cache string) {
		// module@version/package/subpackage, as the module cache lays out.
		for m := 0; m < 400; m++ {
			for p := 0; p < 126; p++ {
				d := filepath.Join(home, cache, fmt.Sprintf("github.com/org%d/mod@v1.%d.0", m/20, m), fmt.Sprintf("pkg%d", p))
				if err := os.MkdirAll(d, 0o755); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	run := func(home string) error {
		ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
		defer cancel()
		res, err := ciMgr.ExecArgs(ctx, "/bin/sh", []string{"-c", "echo ok > " + home + "/out"},
			agentbox.WithWorkingDir("/"), agentbox.WithWritableRoots(home))
		if err == nil && res.ExitCode != 0 {
			err = fmt.Errorf("exit %d: %s", res.ExitCode, res.Stderr)
		}
		return err
	}
	npmHome := newDir(t, 0o755)
	mkCache(npmHome, ".npm/_cacache")
	if err := run(npmHome); err != nil {
		t.Fatalf("control: a writable home with a large npm cache was refused: %v", err)
	}
	goHome := newDir(t, 0o755)
	mkCache(goHome, "go/pkg/mod")
	if err := run(goHome); err != nil {
		t.Errorf("REGRESSION: a writable home with a Go module cache of some 50,000 directories is refused: %v", err)
	}
}
