//go:build linux && amd64

package agentbox_test

import (
	"encoding/binary"
	"encoding/json"
	"errors"
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

	"golang.org/x/sys/unix"
)

// Red team 10: a runaway chain of processes in the reduced tier (no pid
// namespace), where only the init's killOrphans ends what left the
// program's process group.

// rt10ChainEnv makes the test binary, started inside a sandbox, a chain
// runner (see rt10Chain); its value is the file it writes its process
// group into, and the mode after a colon ("grow" or "still").
const rt10ChainEnv = "AGENTBOX_RT10_CHAIN"

func init() {
	if v := os.Getenv(rt10ChainEnv); v != "" {
		f := strings.SplitN(v, ":", 3)
		if len(f) != 3 {
			os.Exit(2)
		}
		rt10Chain(f[0], f[1], f[2])
	}
}

// rt10Chain leaves the program's session and process group (setsid), says
// which group it leads (file), and then:
//
//   - "grow": becomes the chain program at path exe (rt10ChainELF): it
//     forks a child, which forks the next one, and so on; each link lives
//     20 ms after its fork, then exits (red team 10 used 80 ms; 20 keeps
//     the processes alive at once, which count against the user's
//     RLIMIT_NPROC for every test of the same user running beside, at a
//     few hundred) (so the chain stays short, and stops
//     after 60,000 links, for safety). Every link is a child of the one
//     before, so the init (subreaper) adopts a link only once all its
//     elders are dead: killOrphans ends one generation a round (200 µs of
//     sleep and a read of /proc each), while the chain adds one a fork (a
//     process of one page forks in some 50-100 µs).
//   - "still": forks one child and both wait (the control: an orphan out
//     of the program's group that does nothing to escape).
func rt10Chain(file, mode, exe string) {
	if _, err := syscall.Setsid(); err != nil {
		os.Exit(3)
	}
	if err := os.WriteFile(file, []byte(strconv.Itoa(os.Getpid())), 0o644); err != nil {
		os.Exit(4)
	}
	if mode == "grow" {
		_ = syscall.Exec(exe, []string{exe}, nil)
		os.Exit(5)
	}
	// After the fork only raw system calls run: the child of a Go program
	// has one thread, and must not enter the runtime.
	syscall.RawSyscall6(syscall.SYS_CLONE, uintptr(syscall.SIGCHLD), 0, 0, 0, 0, 0)
	for {
		syscall.RawSyscall(syscall.SYS_PAUSE, 0, 0, 0)
	}
}

// rt10ChainCode is the chain's x86-64 code, loaded at rt10ChainBase+0x78:
//
//	_start:	xor r12d, r12d          # generation
//	next:	cmp r12d, 60000
//		jae done
//		mov eax, 57             # fork
//		syscall
//		test rax, rax
//		js retry
//		jnz parent
//		inc r12d                # the child forks the next link
//		jmp next
//	retry:	lea rdi, [rip+shortts]  # at the process limit: 100 µs, again
//		xor esi, esi
//		mov eax, 35             # nanosleep
//		syscall
//		jmp next
//	parent:	lea rdi, [rip+lifets]   # the link lives 20 ms
//		xor esi, esi
//		mov eax, 35
//		syscall
//	done:	xor edi, edi
//		mov eax, 231            # exit_group(0)
//		syscall
//		.p2align 3
//	lifets:	.quad 0, 20000000
//	shortts: .quad 0, 100000
var rt10ChainCode = []byte{
	0x45, 0x31, 0xe4, 0x41, 0x81, 0xfc, 0x60, 0xea, 0x00, 0x00, 0x73, 0x35, 0xb8, 0x39, 0x00, 0x00,
	0x00, 0x0f, 0x05, 0x48, 0x85, 0xc0, 0x78, 0x07, 0x75, 0x17, 0x41, 0xff, 0xc4, 0xeb, 0xe4, 0x48,
	0x8d, 0x3d, 0x3a, 0x00, 0x00, 0x00, 0x31, 0xf6, 0xb8, 0x23, 0x00, 0x00, 0x00, 0x0f, 0x05, 0xeb,
	0xd2, 0x48, 0x8d, 0x3d, 0x18, 0x00, 0x00, 0x00, 0x31, 0xf6, 0xb8, 0x23, 0x00, 0x00, 0x00, 0x0f,
	0x05, 0x31, 0xff, 0xb8, 0xe7, 0x00, 0x00, 0x00, 0x0f, 0x05, 0x66, 0x0f, 0x1f, 0x44, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x2d, 0x31, 0x01, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xa0, 0x86, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00,
}

const rt10ChainBase = 0x400000

// rt10ChainELF is a static x86-64 executable of rt10ChainCode: the ELF
// header, one loadable segment (read, execute) and the code.
func rt10ChainELF() []byte {
	const ehsize, phsize = 64, 56
	codeOff := uint64(ehsize + phsize)
	b := make([]byte, 0, int(codeOff)+len(rt10ChainCode))
	le := binary.LittleEndian
	b = append(b, 0x7f, 'E', 'L', 'F', 2, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0)
	b = le.AppendUint16(b, 2)    // ET_EXEC
	b = le.AppendUint16(b, 0x3e) // EM_X86_64
	b = le.AppendUint32(b, 1)
	b = le.AppendUint64(b, rt10ChainBase+codeOff) // entry
	b = le.AppendUint64(b, ehsize)                // program headers
	b = le.AppendUint64(b, 0)                     // no section headers
	b = le.AppendUint32(b, 0)
	b = le.AppendUint16(b, ehsize)
	b = le.AppendUint16(b, phsize)
	b = le.AppendUint16(b, 1)
	b = le.AppendUint16(b, 0)
	b = le.AppendUint16(b, 0)
	b = le.AppendUint16(b, 0)
	size := codeOff + uint64(len(rt10ChainCode))
	b = le.AppendUint32(b, 1) // PT_LOAD
	b = le.AppendUint32(b, 5) // PF_R|PF_X
	b = le.AppendUint64(b, 0)
	b = le.AppendUint64(b, rt10ChainBase)
	b = le.AppendUint64(b, rt10ChainBase)
	b = le.AppendUint64(b, size)
	b = le.AppendUint64(b, size)
	b = le.AppendUint64(b, 0x1000)
	return append(b, rt10ChainCode...)
}

// rt10Group lists the processes of process group pgid that are not zombies.
func rt10Group(pgid int) []int {
	ents, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		s := string(b)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(s[i+1:]) // state ppid pgrp ...
		if len(f) < 3 || f[0] == "Z" {
			continue
		}
		if g, _ := strconv.Atoi(f[2]); g == pgid {
			out = append(out, pid)
		}
	}
	return out
}

// rt10ReapGroup reaps the dead of process group pgid that come to this
// process (a subreaper) until stop is called and none is left (stop waits
// at most 5 s).
func rt10ReapGroup(pgid int) (stop func()) {
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		for {
			var ws syscall.WaitStatus
			pid, err := syscall.Wait4(-pgid, &ws, syscall.WNOHANG, nil)
			if pid > 0 {
				continue
			}
			select {
			case <-done:
				// Only once no child of the group is left, dead or
				// alive: a zombie left unreaped would count against the
				// test user's RLIMIT_NPROC for every later test.
				if errors.Is(err, syscall.ECHILD) {
					return
				}
			default:
			}
			time.Sleep(time.Millisecond)
		}
	}()
	return func() {
		close(done)
		select {
		case <-finished:
		case <-time.After(5 * time.Second):
		}
	}
}

// rt10KillGroup ends what is left of the group (kill(-pgid) is atomic: a
// fork under way is aborted).
func rt10KillGroup(pgid int) {
	for i := 0; i < 100; i++ {
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
		if len(rt10Group(pgid)) == 0 {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// rt10RunReduced is rt9RunReduced with the scenario's directory given.
func rt10RunReduced(t *testing.T, dir string, s rt9Scenario) rt9Outcome {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	b, _ := json.Marshal(s)
	cmd.Env = append(os.Environ(), rt9ReducedEnv+"="+string(b), rt9DirEnv+"="+dir)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	b, err := cmd.Output()
	if err != nil {
		t.Fatalf("the child failed: %v\n%s", err, stderr.String())
	}
	var o rt9Outcome
	if err := json.Unmarshal(b, &o); err != nil {
		t.Fatalf("%v: %q\n%s", err, b, stderr.String())
	}
	if o.Refused != "" {
		t.Skipf("agentbox refused the reduced tier: %s", o.Refused)
	}
	return o
}

// TestRedteam10ReducedRunawayChain: README says that in the reduced tier
// the init ends, after the program's process group, "every process it
// adopted as subreaper, until none is left, for at most 5 s", so that "a
// process that left the group outlives the command only when agentbox
// itself dies". killOrphans kills only the init's own children, one round
// every 200 µs or more: a chain that forks its next link faster than that
// is never caught up with, and goes on running on the host after the
// command's timeout, its Exec or cleanup, and Manager.Close, with agentbox
// alive. The attack: no process of the chain's group is left 300 ms after
// the child that ran agentbox has exited. The control: a still orphan out
// of the program's group (setsid) is ended, and the command reports 137.
//
// Fixed: each round of killOrphans (and awaitKill, without a pid
// namespace) kills the whole tree below the init: every descendant found
// through /proc's parent links, and their process groups (killTree);
// killGrace outlasts orphansWait.
func TestRedteam10ReducedRunawayChain(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("the reduced tier refuses callers that are root over the host's files")
	}
	if runtime.GOARCH != "amd64" {
		t.Skip("the chain program is x86-64 code")
	}
	for _, c := range []struct {
		api, mode string
		control   bool
	}{
		{"wrap", "still", true},
		{"exec", "still", true},
		{"wrap", "grow", false},
		{"exec", "grow", false},
	} {
		t.Run(c.api+"/"+c.mode, func(t *testing.T) {
			dir := hostDir(t)
			pgFile, exe := filepath.Join(dir, "pgid"), filepath.Join(dir, "chain")
			if err := os.WriteFile(exe, rt10ChainELF(), 0o755); err != nil {
				t.Fatal(err)
			}
			// The test binary, copied out of go test's build directory:
			// that lies in the host's /tmp, which the reduced tier
			// withholds as the full tier does.
			self := filepath.Join(dir, "self")
			if b, err := os.ReadFile(os.Args[0]); err != nil || os.WriteFile(self, b, 0o755) != nil {
				t.Fatalf("copying the test binary: %v", err)
			}
			script := fmt.Sprintf(`%s=%s:%s:%s %s -test.run=^$ </dev/null >/dev/null 2>&1 &
while [ ! -s %s ]; do sleep 0.02; done
sleep 0.2; echo started; sleep 12`, rt10ChainEnv, pgFile, c.mode, exe, self, pgFile)
			// What outlives the init comes to this process (a subreaper
			// here), which reaps the chain's dead: no zombies for the host.
			if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
				t.Fatal(err)
			}
			defer unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 0, 0, 0, 0)
			o := rt10RunReduced(t, dir, rt9Scenario{API: c.api, Script: script, Timeout: 1500 * time.Millisecond})
			b, err := os.ReadFile(pgFile)
			pgid, _ := strconv.Atoi(string(b))
			if err != nil || pgid <= 1 {
				t.Fatalf("the chain did not start (%v): %+v", err, o)
			}
			stopReaping := rt10ReapGroup(pgid)
			defer func() { rt10KillGroup(pgid); stopReaping() }()
			t.Logf("%s/%s: %+v", c.api, c.mode, o)
			switch {
			case c.api == "exec" && !strings.Contains(o.Err, "timed out"):
				t.Fatalf("control: ExecArgs did not end by its timeout: %+v", o)
			case c.api == "wrap" && (o.Err != "" || o.Stdout != "started\n" || o.Code != 137):
				t.Fatalf("control: the wrapped command did not run and end by its timeout (137): %+v", o)
			}
			time.Sleep(300 * time.Millisecond)
			if left := rt10Group(pgid); len(left) > 0 {
				msg := fmt.Sprintf("ESCAPE: %d processes of the command's chain (group %d) still run on the host after %s returned, its timeout passed and its Manager closed, %d ms in all: %v",
					len(left), pgid, c.api, o.Millis, left[:min(len(left), 8)])
				if c.control {
					t.Fatalf("control: %s", msg)
				}
				t.Error(msg)
			}
		})
	}
}
