//go:build linux

package attack_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentbox-dev/agentbox"
)

// reducedWrapEnv makes runReduced wrap a command, start it, cancel its
// context and report how its end went (see wrapKillReduced).
const reducedWrapEnv = "AGENTBOX_ATTACK_REDUCED_WRAP"

// wrapKillReduced runs a wrapped process group (a shell and two sleeps),
// cancels its context once it runs, and prints "WRAP <ms> <exit code>":
// how long cmd.Wait took after the cancel, and the status.
func wrapKillReduced(m *agentbox.Manager) int {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cmd := exec.Command("/bin/sh", "-c", "sleep 30 & sleep 30; wait")
	cleanup, err := m.Wrap(ctx, cmd, agentbox.WithWorkingDir("/"))
	if err != nil {
		fmt.Println(reducedRefused, err)
		return 0
	}
	defer cleanup()
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "start:", err)
		return 1
	}
	time.Sleep(500 * time.Millisecond)
	cancel()
	began := time.Now()
	waited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(waited) }()
	select {
	case <-waited:
		fmt.Printf("WRAP %d %d\n", time.Since(began).Milliseconds(), cmd.ProcessState.ExitCode())
	case <-time.After(10 * time.Second):
		fmt.Println("WRAP hung")
	}
	return 0
}

// TestReducedTierWrapKill: a wrapped command whose context ends is ended
// by its init (Wrap's caller owns the init's process, so agentbox asks the
// init). Without a pid namespace the init must end the program's process
// group, not kill(-1): that would reach every process of the user on the
// host. The attack: a host process of the same user (the victim) and this
// test must survive; the control: the command is ended at once.
func TestReducedTierWrapKill(t *testing.T) {
	if isRoot {
		t.Skip("the reduced tier refuses root callers (TestReducedTier)")
	}
	t.Parallel()
	for _, machine := range reducedMachines {
		t.Run(machine.name, func(t *testing.T) {
			t.Parallel()
			victim, _ := startVictim(t)
			cmd := exec.Command(os.Args[0])
			cmd.Env = append(os.Environ(), reducedEnv+"="+machine.name, reducedWrapEnv+"=1")
			if machine.userns {
				cmd.SysProcAttr = &syscall.SysProcAttr{
					Cloneflags:  syscall.CLONE_NEWUSER,
					UidMappings: []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getuid(), Size: 1}},
					GidMappings: []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getgid(), Size: 1}},
				}
			}
			var stderr strings.Builder
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("the run in a child failed: %v\n%s", err, stderr.String())
			}
			if state := processState(victim); state == "" || state == "Z" {
				t.Errorf("ESCAPE: the host process %d of the same user was killed (state %q)", victim, state)
			}
			f := strings.Fields(string(out))
			if len(f) != 3 || f[0] != "WRAP" {
				t.Fatalf("control: the wrapped command was not ended: %q\n%s", out, stderr.String())
			}
			ms, _ := strconv.Atoi(f[1])
			if ms > 3000 || f[2] == "0" {
				t.Errorf("control: the wrapped command took %s ms to end after its context, status %s", f[1], f[2])
			}
		})
	}
}

// processState is the state letter of the process pid ("" if gone).
func processState(pid int) string {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return ""
	}
	s := string(b)
	if i := strings.LastIndexByte(s, ')'); i >= 0 && i+2 < len(s) {
		return s[i+2 : i+3]
	}
	return ""
}
