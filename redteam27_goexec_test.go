//go:build linux && amd64

package agentbox_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// rt27GoControl is a Go program of ordinary process control: a child
// ended by exec.CommandContext's deadline, one stopped and resumed, one
// ended by Process.Signal, a process group ended by kill(-pgid), a signal
// the program catches from itself, and os.Process.Wait's status.
const rt27GoControl = `package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"syscall"
	"time"
)

func main() {
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	t0 := time.Now()
	err := exec.CommandContext(ctx, "sleep", "5").Run()
	fmt.Printf("ctxkill %v %v\n", err, time.Since(t0) < 2*time.Second)

	c := exec.Command("sleep", "5")
	if err := c.Start(); err != nil {
		fmt.Println("start", err)
		return
	}
	stop := c.Process.Signal(syscall.SIGSTOP)
	cont := c.Process.Signal(syscall.SIGCONT)
	term := c.Process.Signal(syscall.SIGTERM)
	err = c.Wait()
	fmt.Printf("signal %v %v %v %v\n", stop, cont, term, err)

	g := exec.Command("sh", "-c", "sleep 5 & sleep 5; wait")
	g.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := g.Start(); err != nil {
		fmt.Println("start", err)
		return
	}
	time.Sleep(100 * time.Millisecond)
	kg := syscall.Kill(-g.Process.Pid, syscall.SIGKILL)
	fmt.Printf("killpg %v %v\n", kg, g.Wait())

	ch := make(chan os.Signal, 1)
	signal.Notify(ch, syscall.SIGUSR1)
	self := syscall.Kill(os.Getpid(), syscall.SIGUSR1)
	select {
	case s := <-ch:
		fmt.Printf("self %v %v\n", self, s)
	case <-time.After(2 * time.Second):
		fmt.Printf("self %v none\n", self)
	}
	fmt.Println("done")
}
`

// TestRedteam27ReducedGoProcessControl: the control for the reduced
// tier's signal rules (keeperRules, pidfd_send_signal answered ENOSYS):
// a Go program's ordinary process control (os/exec with a context
// deadline, Process.Signal, kill of a process group, a signal to itself)
// must still work there, Go's os package falling back from pidfds to
// kill(2). New coverage: no test ran a Go program's os/exec in the tier.
func TestRedteam27ReducedGoProcessControl(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("the reduced tier refuses callers that are root over the host's files")
	}
	dir := hostDir(t)
	src := filepath.Join(dir, "ctl.go")
	if err := os.WriteFile(src, []byte(rt27GoControl), 0o644); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "ctl")
	build := exec.Command("go", "build", "-o", bin, src)
	build.Env = append(os.Environ(), "CGO_ENABLED=0", "GOFLAGS=")
	if out, err := build.CombinedOutput(); err != nil {
		t.Skipf("go build: %v\n%s", err, out)
	}
	s := rt9Scenario{API: "exec", Script: bin + ` >"$PIDS.log" 2>&1; echo rc=$? >>"$PIDS.log"`, Timeout: 20 * time.Second}
	o := rt10RunReduced(t, dir, s)
	b, _ := os.ReadFile(filepath.Join(dir, "pids.log"))
	log := string(b)
	t.Logf("outcome %+v\n%s", o, log)
	for _, want := range []string{
		"ctxkill signal: killed true",
		"signal <nil> <nil> <nil> signal: terminated",
		"killpg <nil> signal: killed",
		"self <nil> user defined signal 1",
		"done", "rc=0",
	} {
		if !strings.Contains(log, want) {
			t.Errorf("legitimate process control failed in the reduced tier: no %q", want)
		}
	}
}
