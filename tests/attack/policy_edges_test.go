//go:build linux

package attack_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/agentbox-dev/agentbox"
)

// Policy and configuration edge cases: paths, options and lists given to
// agentbox in forms that must not give a command more than the caller's
// policy says.

// linkedTree is a host layout where a directory is reached through a
// symbolic link: top/link -> real/sub. The kernel resolves
// top/link/../NAME to real/NAME, while a purely lexical clean gives
// top/NAME.
type linkedTree struct {
	top, real, link string
}

func newLinkedTree(t *testing.T) linkedTree {
	t.Helper()
	base := newDir(t, 0o755)
	lt := linkedTree{top: filepath.Join(base, "top"), real: filepath.Join(base, "real")}
	for _, d := range []string{lt.top, filepath.Join(lt.real, "sub")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	lt.link = filepath.Join(lt.top, "link")
	if err := os.Symlink(filepath.Join(lt.real, "sub"), lt.link); err != nil {
		t.Fatal(err)
	}
	return lt
}

// TestPolicyEdgeDenyDotDotAfterLink denies a file by a path whose ".."
// follows a symbolic link, as the kernel reads it: LINK/../secret.txt is
// real/secret.txt. agentbox cleans the path lexically first
// (top/secret.txt) and so masks a file that does not exist, leaving the
// one the caller named readable.
func TestPolicyEdgeDenyDotDotAfterLink(t *testing.T) {
	t.Parallel()
	lt := newLinkedTree(t)
	secret := uniqueSecret("dotdot")
	secretFile := filepath.Join(lt.real, "secret.txt")
	writeFile(t, secretFile, secret, 0o644)
	writeFile(t, filepath.Join(lt.real, "public.txt"), publicContent, 0o644)
	named := lt.link + "/../secret.txt"
	// What the caller named is the secret, as every program reads it.
	if b, err := os.ReadFile(named); err != nil || string(b) != secret {
		t.Fatalf("%s on the host: %q, %v; want the secret", named, b, err)
	}
	ps := []probe{
		control("public", "read:"+filepath.Join(lt.real, "public.txt"), publicContent),
		control("public_via_link_dotdot", "read:"+lt.link+"/../public.txt", publicContent),
		attack("denied_as_named", "read:"+named, "EACCES"),
		attack("denied_real_path", "read:"+secretFile, "EACCES"),
	}
	runProbes(t, ciMgr, ps, agentbox.WithDenyRead(named))
}

// TestPolicyEdgeWritableDotDotAfterLink gives LINK/../w as a writable
// root. The kernel reads it as real/w; agentbox makes top/w writable
// instead, a directory the caller did not name.
func TestPolicyEdgeWritableDotDotAfterLink(t *testing.T) {
	t.Parallel()
	lt := newLinkedTree(t)
	realW, lexW := filepath.Join(lt.real, "w"), filepath.Join(lt.top, "w")
	for _, d := range []string{realW, lexW} {
		if err := os.Mkdir(d, 0o777); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(d, 0o777); err != nil {
			t.Fatal(err)
		}
	}
	ps := []probe{
		control("named_root", "write:"+lt.link+"/../w/ok.txt", ""),
		attack("other_dir", "write:"+lexW+"/escape.txt", "EROFS", "EACCES"),
	}
	runProbes(t, ciMgr, ps, agentbox.WithWritableRoots(lt.link+"/../w"))
	if _, err := os.Stat(filepath.Join(lexW, "escape.txt")); err == nil {
		t.Errorf("ESCAPE: the command wrote %s, outside the writable root the caller named (%s/../w = %s)", lexW, lt.link, realW)
	}
}

// cliOnce builds cmd/agentbox for the CLI attacks.
var cliOnce struct {
	sync.Once
	path string
	err  error
}

func agentboxCLI(t *testing.T) string {
	t.Helper()
	cliOnce.Do(func() {
		gobin, err := exec.LookPath("go")
		if err != nil {
			cliOnce.err = err
			return
		}
		out, err := exec.Command(gobin, "env", "GOMOD").Output()
		if err != nil || len(bytes.TrimSpace(out)) == 0 {
			cliOnce.err = fmt.Errorf("cannot find the module root: %v", err)
			return
		}
		cliOnce.path = filepath.Join(baseDir, "bin", "agentbox")
		cmd := exec.Command(gobin, "build", "-o", cliOnce.path, "./cmd/agentbox")
		cmd.Dir = filepath.Dir(string(bytes.TrimSpace(out)))
		// With the real home, whose module and build caches have every
		// package already (this process's HOME is the fake one).
		cmd.Env = append(os.Environ(), "HOME="+realHome, "GOPROXY=off")
		if out, err := cmd.CombinedOutput(); err != nil {
			cliOnce.err = fmt.Errorf("go build ./cmd/agentbox: %v\n%s", err, out)
		}
	})
	if cliOnce.err != nil {
		t.Fatal(cliOnce.err)
	}
	return cliOnce.path
}

// runCLIIn runs the agentbox CLI in dir, with PWD set to dir as a shell
// sets it, and returns the attacker's parsed output.
func runCLIIn(t *testing.T, dir string, args ...string) (outcome, string, int) {
	t.Helper()
	bin := agentboxCLI(t)
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "PWD="+dir)
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	code := 0
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		code = ee.ExitCode()
	default:
		t.Fatalf("agentbox %q: %v", args, err)
	}
	t.Logf("agentbox %q (exit %d)\nstdout:\n%s\nstderr:\n%s", args, code, o.String(), e.String())
	return parseOutput(o.String()), e.String(), code
}

// TestPolicyEdgeCLIRelativeDenyInLinkedDir: a user in a directory reached
// through a symbolic link (cd ~/work/proj, where proj is a link) runs
// `agentbox exec --deny-read ../secret.txt -- PROGRAM`. The command runs
// in the real directory, where ../secret.txt is the real parent's file,
// the one the user meant; the CLI makes the path absolute from $PWD, the
// link's name, and denies a file beside the link instead.
func TestPolicyEdgeCLIRelativeDenyInLinkedDir(t *testing.T) {
	t.Parallel()
	lt := newLinkedTree(t)
	secret := uniqueSecret("cli-relative")
	writeFile(t, filepath.Join(lt.real, "secret.txt"), secret, 0o644)
	writeFile(t, filepath.Join(lt.real, "public.txt"), publicContent, 0o644)
	ps := []probe{
		control("public", "read:../public.txt", publicContent),
		attack("relative_denied", "read:../secret.txt", "EACCES"),
	}
	args := append([]string{"exec", "--profile", "ci", "--deny-read", "../secret.txt", "--", attackerBin}, probeArgs(ps)...)
	o, _, code := runCLIIn(t, lt.link, args...)
	if !o.started || !o.done {
		t.Fatalf("attacker run incomplete (exit %d)", code)
	}
	checkProbes(t, o, ps)
}
