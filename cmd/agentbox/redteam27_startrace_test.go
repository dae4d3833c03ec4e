//go:build linux

package main

import (
	"crypto/rand"
	"encoding/hex"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestRedteam27SignalRacesRunStart: SIGTERM or SIGINT reaches `agentbox run`
// at every moment of its start-up (0–60 ms after exec, in steps), while the
// agent ignores both signals and forks a setsid'd child. Whatever the
// moment, run must end within grace + a bound with a status that does not
// claim success (130/143 forwarded, or 137 killed; never 0), and no process
// carrying the run's marker may outlive it. The control: without a signal
// the same agent is listed by ps. Held when written (kept: start-up race).
func TestRedteam27SignalRacesRunStart(t *testing.T) {
	runEnv(t)
	m := writeManifest(t, "name: rt27-race\n")
	for i := 0; i < 14; i++ {
		b := make([]byte, 6)
		_, _ = rand.Read(b)
		mark := "rt27race-" + hex.EncodeToString(b)
		sig := syscall.SIGTERM
		if i%2 == 1 {
			sig = syscall.SIGINT
		}
		delay := time.Duration(i/2) * 10 * time.Millisecond
		p := startCLI(t, "run", "--grace", "300ms", "--manifest", m, "--", "/usr/bin/perl", "-e",
			`$SIG{INT}=$SIG{TERM}="IGNORE"; if (!fork) { require POSIX; POSIX::setsid(); sleep 60; exit } sleep 60`, mark)
		time.Sleep(delay)
		_ = p.cmd.Process.Signal(sig)
		code := p.wait(t, 10*time.Second)
		if code == 0 {
			t.Errorf("delay %v %v: exit %d, stderr %q", delay, sig, code, p.stderr.String())
		}
		time.Sleep(50 * time.Millisecond)
		if left := marked(mark); len(left) > 0 {
			t.Errorf("delay %v %v: exit %d, processes outlived run: %v (stderr %q)", delay, sig, code, left, p.stderr.String())
		}
		t.Logf("delay %v %v: exit %d", delay, sig, code)
	}
	// Control: no signal, the agent runs and is listed.
	p := startCLI(t, "run", "--manifest", m, "--", "/bin/sleep", "30")
	waitAgents(t, 1)
	_ = p.cmd.Process.Kill()
}

// marked lists the pids whose command line holds mark.
func marked(mark string) []string {
	ents, _ := os.ReadDir("/proc")
	var out []string
	for _, e := range ents {
		b, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err == nil && strings.Contains(string(b), mark) && !zombieName(e.Name()) {
			out = append(out, e.Name())
		}
	}
	return out
}

func zombieName(pid string) bool {
	b, err := os.ReadFile("/proc/" + pid + "/stat")
	if err != nil {
		return true
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || s[i+2] == 'Z'
}
