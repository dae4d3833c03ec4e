//go:build linux

package agentbox_test

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentbox-dev/agentbox"
)

func rt34Exec(t *testing.T, m *agentbox.Manager, script string, opts ...agentbox.Option) (string, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := m.ExecArgs(ctx, "/bin/sh", []string{"-c", script}, opts...)
	if err != nil {
		t.Fatalf("ExecArgs %q: %v", script, err)
	}
	return res.Stdout + res.Stderr, res.ExitCode
}

// TestRedteam34WarmNetwork: a Manager made for the host network keeps a
// warm init without a network namespace; UpdateConfig to NetworkBlocked,
// a per-call WithNetwork(Blocked), and the call after a per-call
// WithNetwork(Allowed) must not reach a host loopback listener. Controls:
// the calls under the allowed mode do reach it. Passing: kept, it covers
// the warm init's kind against a later, stricter network mode.
func TestRedteam34WarmNetwork(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Write([]byte("HOSTLISTENER\n"))
			c.Close()
		}
	}()
	port := ln.Addr().(*net.TCPAddr).Port
	probe := fmt.Sprintf("exec /bin/bash -c 'exec 3<>/dev/tcp/127.0.0.1/%d && head -1 <&3'", port)
	allowed := agentbox.CIConfig()
	allowed.Classifier = rt9Sandboxed{}
	allowed.Network.Mode = agentbox.NetworkAllowed
	m := newManager(t, allowed)
	time.Sleep(300 * time.Millisecond) // let the warm init start
	reach := func(step string, want bool, opts ...agentbox.Option) {
		out, _ := rt34Exec(t, m, probe, opts...)
		t.Logf("%s: %q", step, out)
		if got := strings.Contains(out, "HOSTLISTENER"); got != want {
			t.Errorf("%s: reached host listener=%v, want %v (out %q)", step, got, want, out)
		}
	}
	reach("control: allowed", true)
	reach("per-call blocked on allowed manager", false, agentbox.WithNetwork(agentbox.NetworkBlocked))
	reach("control: allowed again", true)
	blocked := allowed
	blocked.Network.Mode = agentbox.NetworkBlocked
	if err := m.UpdateConfig(blocked); err != nil {
		t.Fatal(err)
	}
	reach("after UpdateConfig(blocked)", false)
	reach("control: per-call allowed", true, agentbox.WithNetwork(agentbox.NetworkAllowed))
	reach("call after the per-call allowed", false)
}

// TestRedteam34WarmLimits: UpdateConfig to smaller limits after the warm
// init was made under larger ones: the next command must get the smaller
// ones. Control: before the update it gets the larger ones. Passing: kept,
// it covers limits against a warm init made earlier.
func TestRedteam34WarmLimits(t *testing.T) {
	cfg := agentbox.CIConfig()
	cfg.Classifier = rt9Sandboxed{}
	m := newManager(t, cfg)
	time.Sleep(300 * time.Millisecond)
	out, _ := rt34Exec(t, m, "ulimit -n")
	if strings.TrimSpace(out) != "1024" {
		t.Errorf("control: ulimit -n = %q, want 1024", out)
	}
	small := cfg
	small.ResourceLimits.MaxFileDescriptors = 77
	if err := m.UpdateConfig(small); err != nil {
		t.Fatal(err)
	}
	out, _ = rt34Exec(t, m, "ulimit -n")
	if strings.TrimSpace(out) != "77" {
		t.Errorf("after UpdateConfig: ulimit -n = %q, want 77", out)
	}
}

// TestRedteam34WarmState: one command leaves files in its private /tmp,
// /dev/shm, and a home scratch cache; the next command (served by the
// next warm init) must not see them. Control: the first command sees its
// own files. Passing: kept, it covers state across warm inits.
func TestRedteam34WarmState(t *testing.T) {
	cfg := agentbox.CIConfig()
	cfg.Classifier = rt9Sandboxed{}
	home, _ := os.UserHomeDir()
	cache := filepath.Join(home, ".cache")
	_ = os.MkdirAll(cache, 0o755)
	cfg.Filesystem.Scratch = append(cfg.Filesystem.Scratch, cache)
	m := newManager(t, cfg)
	time.Sleep(300 * time.Millisecond)
	name := fmt.Sprintf("rt34state-%d", os.Getpid())
	write := fmt.Sprintf("for d in /tmp /dev/shm %s; do echo LEFT > $d/%s 2>/dev/null; done; cat /tmp/%s /dev/shm/%s %s/%s 2>&1", cache, name, name, name, cache, name)
	out, _ := rt34Exec(t, m, write)
	if strings.Count(out, "LEFT") < 2 {
		t.Errorf("control: first command does not see its own files: %q", out)
	}
	read := fmt.Sprintf("cat /tmp/%s /dev/shm/%s %s/%s 2>&1", name, name, cache, name)
	for i := 0; i < 2; i++ {
		out, _ = rt34Exec(t, m, read)
		if strings.Contains(out, "LEFT") {
			t.Errorf("call %d sees a file the first command left: %q", i, out)
		}
	}
	if _, err := os.Stat(filepath.Join(cache, name)); err == nil {
		t.Errorf("scratch write reached the host")
		os.Remove(filepath.Join(cache, name))
	}
}

// TestRedteam34ConcurrentOptions: goroutines run ExecArgs at once, each
// with its own WithEnv, WithWorkingDir and WithWritableRoots; each writes
// its own root (control) and tries every other one, and reports its env
// and working directory, which must be its own.
func TestRedteam34ConcurrentOptions(t *testing.T) {
	cfg := agentbox.CIConfig()
	cfg.Classifier = rt9Sandboxed{}
	m := newManager(t, cfg)
	const n = 6
	var dirs []string
	for i := 0; i < n; i++ {
		dirs = append(dirs, hostDir(t))
	}
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			for it := 0; it < 3; it++ {
				script := fmt.Sprintf("echo TOK=$RT34TOK; pwd; for d in %s; do echo x > $d/w%d-%d 2>/dev/null && echo WROTE $d; done", strings.Join(dirs, " "), i, it)
				ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
				res, err := m.ExecArgs(ctx, "/bin/sh", []string{"-c", script},
					agentbox.WithEnv(fmt.Sprintf("RT34TOK=%d", i)), agentbox.WithWorkingDir(dirs[i]), agentbox.WithWritableRoots(dirs[i]))
				cancel()
				if err != nil {
					t.Error(err)
					return
				}
				out := res.Stdout
				if !strings.Contains(out, fmt.Sprintf("TOK=%d\n", i)) || !strings.Contains(out, dirs[i]+"\n") {
					t.Errorf("call %d: env or dir not its own: %q", i, out)
				}
				for j, d := range dirs {
					wrote := strings.Contains(out, "WROTE "+d+"\n")
					if wrote != (j == i) {
						t.Errorf("call %d: wrote %s = %v", i, d, wrote)
					}
				}
			}
		}(i)
	}
	wg.Wait()
}

// TestRedteam34WarmPerCallFS: per-call WithDenyRead and WithDenyWrite on
// calls served by warm inits made for the base config apply, and are gone
// on the next call; UpdateConfig to a read allow-list that leaves out a
// directory hides it from the next command. Controls: the calls without
// them read and write. Passing: kept, it covers per-call filesystem
// options against warm inits.
func TestRedteam34WarmPerCallFS(t *testing.T) {
	dir := hostDir(t)
	secret := filepath.Join(dir, "secret")
	if err := os.WriteFile(secret, []byte("SECRET34FS"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := agentbox.CIConfig()
	cfg.Classifier = rt9Sandboxed{}
	cfg.Filesystem.WritableRoots = []string{dir}
	m := newManager(t, cfg)
	time.Sleep(300 * time.Millisecond)
	script := "cat " + secret + "; echo w > " + dir + "/out && echo WROTE; rm -f " + dir + "/out"
	check := func(step string, wantRead, wantWrite bool, opts ...agentbox.Option) {
		out, _ := rt34Exec(t, m, script, opts...)
		if got := strings.Contains(out, "SECRET34FS"); got != wantRead {
			t.Errorf("%s: read=%v want %v: %q", step, got, wantRead, out)
		}
		if got := strings.Contains(out, "WROTE"); got != wantWrite {
			t.Errorf("%s: write=%v want %v: %q", step, got, wantWrite, out)
		}
	}
	check("control", true, true)
	check("WithDenyRead", false, true, agentbox.WithDenyRead(secret))
	check("after WithDenyRead", true, true)
	check("WithDenyWrite", true, false, agentbox.WithDenyWrite(dir))
	check("after WithDenyWrite", true, true)
	strict := cfg
	strict.Filesystem.WritableRoots = nil
	strict.Filesystem.AllowRead = []string{"/var/empty-rt34"}
	if err := m.UpdateConfig(strict); err != nil {
		t.Fatal(err)
	}
	check("after UpdateConfig(allow-list, no writable root)", false, false, agentbox.WithWorkingDir("/"))
}
