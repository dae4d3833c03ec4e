//go:build linux

package audit

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Red-team tests of the audit log's tamper evidence (redteam4). Each attack
// must fail, and a legitimate control beside it must succeed.

// rt4VerifyWithin runs Verify in the background and reports whether it
// returned within d. unblock is called when it did not, to let it go.
func rt4VerifyWithin(t *testing.T, env testEnv, d time.Duration, unblock func()) (Report, error, bool) {
	t.Helper()
	type out struct {
		rep Report
		err error
	}
	ch := make(chan out, 1)
	go func() {
		rep, err := Verify(env.path, VerifyOptions{StateDir: env.state})
		ch <- out{rep, err}
	}()
	select {
	case o := <-ch:
		return o.rep, o.err, true
	case <-time.After(d):
		unblock()
		select {
		case o := <-ch:
			return o.rep, o.err, false
		case <-time.After(30 * time.Second):
			t.Fatal("Verify still blocked after the FIFO was opened for writing")
			return Report{}, nil, false
		}
	}
}

// rt4ReleaseFIFO opens a FIFO for writing and closes it, so that a reader
// blocked in open(2) goes on and reads end of file.
func rt4ReleaseFIFO(t *testing.T, path string) func() {
	return func() {
		f, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			t.Logf("release %s: %v", path, err)
			return
		}
		f.Close()
	}
}

// TestRedteam4VerifyDoesNotHangOnAFIFO: a log, or the checkpoints file
// beside it, that is a named pipe must be reported, not waited on.
func TestRedteam4VerifyDoesNotHangOnAFIFO(t *testing.T) {
	const limit = 10 * time.Second
	t.Run("control: a directory and a device are refused at once", func(t *testing.T) {
		env := newEnv(t)
		if err := os.MkdirAll(env.path, 0o700); err != nil {
			t.Fatal(err)
		}
		if _, err, ok := rt4VerifyWithin(t, env, limit, func() {}); !ok || err == nil {
			t.Errorf("a directory: returned %v, err %v", ok, err)
		}
		env.path = "/dev/null"
		if _, err, ok := rt4VerifyWithin(t, env, limit, func() {}); !ok || err == nil {
			t.Errorf("/dev/null: returned %v, err %v", ok, err)
		}
	})
	t.Run("the log is a FIFO", func(t *testing.T) {
		env := newEnv(t)
		if err := os.MkdirAll(filepath.Dir(env.path), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := syscall.Mkfifo(env.path, 0o600); err != nil {
			t.Fatal(err)
		}
		rep, err, ok := rt4VerifyWithin(t, env, limit, rt4ReleaseFIFO(t, env.path))
		if !ok {
			t.Errorf("attack succeeded: Verify of a FIFO blocked for %v in open(2) (then: %+v, %v)", limit, rep, err)
		} else if err == nil && rep.OK {
			t.Errorf("a FIFO verified as a log: %+v", rep)
		}
	})
	t.Run("the checkpoints beside the log are a FIFO", func(t *testing.T) {
		env := newEnv(t)
		env.write(t, 5, Options{})
		ck := env.path + CheckpointSuffix
		if err := os.Remove(ck); err != nil {
			t.Fatal(err)
		}
		if err := syscall.Mkfifo(ck, 0o600); err != nil {
			t.Fatal(err)
		}
		rep, err, ok := rt4VerifyWithin(t, env, limit, rt4ReleaseFIFO(t, ck))
		if !ok {
			t.Errorf("attack succeeded: Verify blocked for %v reading %s, a FIFO (then: %+v, %v)", limit, ck, rep, err)
		}
	})
}

const rt4ChildEnv = "AGENTBOX_RT4_VERIFY_CHILD"

// TestRedteam4VerifyChild is the child of
// TestRedteam4CheckpointsBesideAreAnEndlessDevice: it verifies the log named
// in its environment.
func TestRedteam4VerifyChild(t *testing.T) {
	spec := os.Getenv(rt4ChildEnv)
	if spec == "" {
		t.Skip("child process of TestRedteam4CheckpointsBesideAreAnEndlessDevice")
	}
	rep, err := Verify(spec, VerifyOptions{StateDir: os.Getenv(rt4ChildEnv + "_STATE")})
	fmt.Printf("verify: ok=%v err=%v kind=%s\n", rep.OK, err, rep.Kind)
}

// TestRedteam4CheckpointsBesideAreAnEndlessDevice links the checkpoints
// file beside a log to /dev/zero: Verify reads it whole into memory, and
// grows without bound. It runs in a child process that is killed once it
// holds 512 MiB.
func TestRedteam4CheckpointsBesideAreAnEndlessDevice(t *testing.T) {
	env := newEnv(t)
	env.write(t, 5, Options{})
	ck := env.path + CheckpointSuffix
	run := func() (string, string) {
		exe, err := os.Executable()
		if err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(exe, "-test.run=^TestRedteam4VerifyChild$", "-test.v")
		cmd.Env = append(os.Environ(), rt4ChildEnv+"="+env.path, rt4ChildEnv+"_STATE="+env.state)
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		deadline := time.Now().Add(60 * time.Second)
		for {
			select {
			case <-done:
				return "done", out.String()
			case <-time.After(20 * time.Millisecond):
			}
			if rss := rt4RSS(cmd.Process.Pid); rss > 512<<20 {
				_ = cmd.Process.Kill()
				<-done
				return fmt.Sprintf("killed at %d MiB resident", rss>>20), out.String()
			}
			if time.Now().After(deadline) {
				_ = cmd.Process.Kill()
				<-done
				return "killed after 60s", out.String()
			}
		}
	}
	// Control: with the real checkpoints the child verifies the log.
	if how, out := run(); how != "done" || !strings.Contains(out, "verify: ok=true err=<nil>") {
		t.Fatalf("control: %s\n%s", how, out)
	}
	if err := os.Remove(ck); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/dev/zero", ck); err != nil {
		t.Fatal(err)
	}
	if how, out := run(); how != "done" {
		t.Errorf("attack succeeded: with %s a symbolic link to /dev/zero, Verify was %s (it reads the file whole, unbounded)\n%s",
			ck, how, rt4LastLines(out, 3))
	}
}

func rt4RSS(pid int) int64 {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "VmRSS:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb << 10
		}
	}
	return 0
}

func rt4LastLines(s string, n int) string {
	ls := strings.Split(strings.TrimSpace(s), "\n")
	if len(ls) > n {
		ls = ls[len(ls)-n:]
	}
	return strings.Join(ls, "\n")
}

// TestRedteam4QueryBoundsLineLength: Verify refuses a line longer than
// 2*MaxEntryBytes, but Query (agentbox audit) reads any line whole into
// memory, twice over: a log ending in one long line without a newline (a
// sparse file costs no disk) makes the operator's audit viewer hold it all.
func TestRedteam4QueryBoundsLineLength(t *testing.T) {
	env := newEnv(t)
	env.write(t, 3, Options{})
	// Control: the entries are read.
	if evs, err := Query(env.path, Filter{}); err != nil || len(evs) != 3 {
		t.Fatalf("control: %d events, %v", len(evs), err)
	}
	f, err := os.OpenFile(env.path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	fi, _ := f.Stat()
	const long = 256 << 20
	if err := f.Truncate(fi.Size() + long); err != nil { // NUL bytes, no newline
		t.Fatal(err)
	}
	f.Close()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	evs, err := Query(env.path, Filter{})
	runtime.ReadMemStats(&after)
	if got := after.TotalAlloc - before.TotalAlloc; got > 16*MaxEntryBytes {
		t.Errorf("attack succeeded: Query of a log ending in a %d MiB line allocated %d MiB (events %d, err %v); Verify stops at %d MiB",
			long>>20, got>>20, len(evs), err, 2*MaxEntryBytes>>20)
	}
	if _, err := Verify(env.path, VerifyOptions{StateDir: env.state}); err == nil {
		t.Errorf("control: Verify accepted the long line")
	}
}
