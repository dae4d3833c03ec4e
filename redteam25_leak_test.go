//go:build linux

package agentbox_test

import (
	"context"
	"io"
	"os"
	"os/exec"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/agentbox-dev/agentbox"
	"golang.org/x/sys/unix"
)

// Red-team session 25 (stream leaks): many sandboxed runs through
// Manager.Start with the caller's stdin/stdout of every awkward kind (a
// pipe the caller keeps open, one it closes mid-run, one shared by two
// concurrent runs, a unix socket, a pty, a stdout pipe nobody reads under
// WithTimeout, a timeout while the stdin relay is blocked, ctx cancelled
// mid-run) must leave the caller's descriptor and goroutine counts where
// they were. A growth proportional to the number of runs would exhaust a
// long-running agent host's descriptors (medium). Every Wait is bounded.
// These held in session 25 (kept: they cover kinds of stream earlier
// rounds did not loop over).
const rt25Runs = 15

func rt25Goroutines() int {
	for i := 0; i < 20; i++ {
		runtime.GC()
		time.Sleep(25 * time.Millisecond)
	}
	return runtime.NumGoroutine()
}

func rt25Wait(t *testing.T, p *agentbox.Process, within time.Duration) (*agentbox.ExecResult, error) {
	t.Helper()
	type r struct {
		res *agentbox.ExecResult
		err error
	}
	ch := make(chan r, 1)
	go func() { res, err := p.Wait(); ch <- r{res, err} }()
	select {
	case x := <-ch:
		return x.res, x.err
	case <-time.After(within):
		p.Kill()
		t.Fatalf("HANG: Process.Wait did not return within %v", within)
		return nil, nil
	}
}

func rt25Count(t *testing.T, name string, run func(i int)) {
	t.Helper()
	// Control: the first runs open what the Manager keeps.
	run(-2)
	run(-1)
	fd0, g0 := countFDs(t), rt25Goroutines()
	for i := 0; i < rt25Runs; i++ {
		run(i)
	}
	time.Sleep(200 * time.Millisecond)
	fd1, g1 := countFDs(t), rt25Goroutines()
	t.Logf("%s: fds %d -> %d, goroutines %d -> %d after %d runs", name, fd0, fd1, g0, g1, rt25Runs)
	if fd1-fd0 >= 10 {
		t.Errorf("LEAK (%s): caller's descriptors grew %d -> %d over %d runs", name, fd0, fd1, rt25Runs)
	}
	if g1-g0 >= 10 {
		buf := make([]byte, 1<<16)
		n := runtime.Stack(buf, true)
		t.Errorf("LEAK (%s): goroutines grew %d -> %d over %d runs\n%s", name, g0, g1, rt25Runs, buf[:n])
	}
}

func TestRedteam25LeakStreams(t *testing.T) {
	m := newManager(t, agentbox.CIConfig())
	start := func(cmd *exec.Cmd, opts ...agentbox.Option) *agentbox.Process {
		t.Helper()
		p, err := m.Start(context.Background(), cmd, opts...)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}

	t.Run("PipeKeptOpen", func(t *testing.T) {
		pr, pw, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		defer pr.Close()
		defer pw.Close()
		rt25Count(t, "pipe kept open", func(i int) {
			cmd := exec.Command("/bin/sh", "-c", "read l; echo got $l")
			cmd.Stdin = pr
			var out safeBuf
			cmd.Stdout = &out
			p := start(cmd)
			pw.Write([]byte("x\n"))
			res, err := rt25Wait(t, p, 20*time.Second)
			if err != nil || res.ExitCode != 0 || out.String() != "got x\n" {
				t.Fatalf("control run: %v %+v %q", err, res, out.String())
			}
		})
	})

	t.Run("PipeClosedMidRun", func(t *testing.T) {
		rt25Count(t, "pipe closed mid-run", func(i int) {
			pr, pw, _ := os.Pipe()
			cmd := exec.Command("/bin/sh", "-c", "cat >/dev/null; echo done")
			cmd.Stdin = pr
			p := start(cmd)
			pw.Write([]byte("abc\n"))
			time.Sleep(5 * time.Millisecond)
			pw.Close()
			pr.Close()
			res, err := rt25Wait(t, p, 20*time.Second)
			if err != nil {
				t.Fatalf("wait: %v %+v", err, res)
			}
		})
	})

	t.Run("PipeSharedByTwo", func(t *testing.T) {
		pr, pw, _ := os.Pipe()
		defer pr.Close()
		defer pw.Close()
		rt25Count(t, "pipe shared by two", func(i int) {
			var wg sync.WaitGroup
			for k := 0; k < 2; k++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					cmd := exec.Command("/bin/sh", "-c", "read l")
					cmd.Stdin = pr
					p, err := m.Start(context.Background(), cmd)
					if err != nil {
						t.Error(err)
						return
					}
					done := make(chan struct{})
					go func() { p.Wait(); close(done) }()
					select {
					case <-done:
					case <-time.After(20 * time.Second):
						p.Kill()
						t.Error("HANG: Wait with a shared stdin pipe")
					}
				}()
			}
			pw.Write([]byte("a\nb\n"))
			wg.Wait()
		})
	})

	t.Run("UnixSocket", func(t *testing.T) {
		rt25Count(t, "unix socket stdin/stdout", func(i int) {
			fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
			if err != nil {
				t.Fatal(err)
			}
			a := os.NewFile(uintptr(fds[0]), "a")
			b := os.NewFile(uintptr(fds[1]), "b")
			cmd := exec.Command("/bin/sh", "-c", "read l; echo got $l")
			cmd.Stdin, cmd.Stdout = a, a
			p := start(cmd)
			b.Write([]byte("y\n"))
			res, err := rt25Wait(t, p, 20*time.Second)
			if err != nil || res.ExitCode != 0 {
				t.Fatalf("wait: %v %+v", err, res)
			}
			b.SetReadDeadline(time.Now().Add(5 * time.Second))
			buf := make([]byte, 16)
			n, _ := b.Read(buf)
			if string(buf[:n]) != "got y\n" {
				t.Fatalf("control: read %q", buf[:n])
			}
			a.Close()
			b.Close()
		})
	})

	t.Run("Pty", func(t *testing.T) {
		rt25Count(t, "pty stdin", func(i int) {
			master, slave := rt25Pty(t)
			defer master.Close()
			defer slave.Close()
			cmd := exec.Command("/bin/sh", "-c", "read l; echo got $l")
			cmd.Stdin, cmd.Stdout = slave, slave
			p := start(cmd)
			master.Write([]byte("z\n"))
			go io.Copy(io.Discard, master)
			res, err := rt25Wait(t, p, 20*time.Second)
			if err != nil || res.ExitCode != 0 {
				t.Fatalf("wait: %v %+v", err, res)
			}
		})
	})

	t.Run("StdoutUnreadTimeout", func(t *testing.T) {
		rt25Count(t, "stdout pipe nobody reads + timeout", func(i int) {
			pr, pw, _ := os.Pipe()
			cmd := exec.Command("/bin/sh", "-c", "yes")
			cmd.Stdout = pw
			p := start(cmd, agentbox.WithTimeout(300*time.Millisecond))
			res, err := rt25Wait(t, p, 20*time.Second)
			_ = res
			_ = err
			pw.Close()
			pr.Close()
		})
	})

	t.Run("TimeoutStdinRelayBlocked", func(t *testing.T) {
		rt25Count(t, "timeout while stdin relay blocked", func(i int) {
			// A reader stdin (not an *os.File) is relayed by a goroutine
			// blocked in the caller's Read.
			pr, pw := io.Pipe()
			cmd := exec.Command("/bin/sh", "-c", "sleep 30")
			cmd.Stdin = pr
			p := start(cmd, agentbox.WithTimeout(200*time.Millisecond))
			go pw.Write(make([]byte, 1<<20)) // the program never reads
			rt25Wait(t, p, 20*time.Second)
			pw.Close()
		})
	})

	t.Run("TimeoutFileStdinBlocked", func(t *testing.T) {
		pr, pw, _ := os.Pipe()
		defer pr.Close()
		defer pw.Close()
		rt25Count(t, "timeout, os pipe stdin never written", func(i int) {
			cmd := exec.Command("/bin/sh", "-c", "sleep 30")
			cmd.Stdin = pr
			p := start(cmd, agentbox.WithTimeout(200*time.Millisecond))
			rt25Wait(t, p, 20*time.Second)
		})
	})

	t.Run("CtxCancelled", func(t *testing.T) {
		pr, pw, _ := os.Pipe()
		defer pr.Close()
		defer pw.Close()
		rt25Count(t, "ctx cancelled mid-run", func(i int) {
			ctx, cancel := context.WithCancel(context.Background())
			cmd := exec.Command("/bin/sh", "-c", "cat; sleep 30")
			cmd.Stdin = pr
			opr, opw, _ := os.Pipe()
			cmd.Stdout = opw
			p, err := m.Start(ctx, cmd)
			if err != nil {
				t.Fatal(err)
			}
			time.AfterFunc(100*time.Millisecond, cancel)
			rt25Wait(t, p, 20*time.Second)
			cancel()
			opw.Close()
			opr.Close()
		})
	})
}

func rt25Pty(t *testing.T) (*os.File, *os.File) {
	t.Helper()
	master, err := os.OpenFile("/dev/ptmx", os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Skip(err)
	}
	if err := unix.IoctlSetPointerInt(int(master.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Fatal(err)
	}
	n, err := unix.IoctlGetInt(int(master.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Fatal(err)
	}
	slave, err := os.OpenFile("/dev/pts/"+itoa(n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	return master, slave
}

type safeBuf struct {
	mu sync.Mutex
	b  []byte
}

func (s *safeBuf) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.b = append(s.b, p...)
	return len(p), nil
}

func (s *safeBuf) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return string(s.b)
}
