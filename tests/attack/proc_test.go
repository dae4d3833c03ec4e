//go:build linux

package attack_test

import (
	"encoding/binary"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/agentbox-dev/agentbox"
)

// startVictim starts a host process of the caller's user, with a secret in
// its environment, for a sandbox to attack; it is killed when the test ends.
func startVictim(t *testing.T) (pid int, secret string) {
	t.Helper()
	secret = uniqueSecret("env")
	victim := exec.Command("/bin/sleep", "120")
	victim.Env = []string{"VICTIM_SECRET=" + secret}
	if err := victim.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = victim.Process.Kill(); _ = victim.Wait() })
	return victim.Process.Pid, secret
}

// TestHostProcesses attacks a process running on the host (a sleep with a
// secret in its environment, same user as the caller) and the sandbox's own
// init: signals, ptrace, process_vm_readv, pidfd, /proc/PID/environ and
// /proc/PID/mem. The controls do the same to the attacker's own child and
// to itself.
func TestHostProcesses(t *testing.T) {
	t.Parallel()
	pid, secret := startVictim(t)
	p := func(format string) string { return fmt.Sprintf(format, pid) }

	ps := []probe{
		control("kill_own_child", "spawnkill", "killed"),
		control("own_environ", "read:/proc/self/environ", "PATH="),
		control("own_mem", "open:/proc/self/mem", ""),
		attack("kill_host", p("kill:%d:9")),
		attack("signal0_host", p("kill:%d:0")),
		attack("ptrace_host", p("ptrace:%d")),
		attack("process_vm_readv_host", p("pvread:%d")),
		attack("pidfd_host", p("pidfd:%d")),
		attack("environ_host", p("read:/proc/%d/environ")),
		attack("mem_host", p("open:/proc/%d/mem")),
		attack("cmdline_host", p("read:/proc/%d/cmdline")),
		attack("init_environ", "read:/proc/1/environ"),
		attack("init_mem", "open:/proc/1/mem"),
		attack("init_fd3", "read:/proc/1/fd/3"),
		attack("init_fd4", "readlink:/proc/1/fd/4"),
		attack("init_root", "readlink:/proc/1/root"),
		attack("init_cwd", "readlink:/proc/1/cwd"),
		attack("init_exe", "readlink:/proc/1/exe"),
		attack("init_ptrace", "ptrace:1"),
		attack("init_process_vm_readv", "pvread:1"),
		attack("init_pidfd_signal", "pidfd:1"),
		attack("init_sigkill", "kill:1:9"),
		attack("init_sigstop", "kill:1:19"),
		control("alive_after_init_attacks", "sys:getpid", ""),
	}
	o, _ := runProbes(t, ciMgr, ps)
	for label, r := range o.results {
		if strings.Contains(r.detail, secret) {
			t.Errorf("ESCAPE %s: the host process's secret leaked: %q", label, r.detail)
		}
	}
	if err := syscall.Kill(pid, 0); err != nil {
		t.Errorf("ESCAPE: the host process is gone after the attack: %v", err)
	}
	if b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ"); err != nil || !strings.Contains(string(b), secret) {
		t.Errorf("control: the victim's environment is not what the attack aimed at: %q, %v", b, err)
	}
}

// TestEnvironment checks that the caller's secrets stay out of the
// sandbox's environment while explicitly passed variables arrive, and that
// the init's command line carries nothing either.
func TestEnvironment(t *testing.T) {
	t.Parallel()
	ps := []probe{
		control("env", "env", "AGENT_VISIBLE=yes"),
		control("init_cmdline", "read:/proc/1/cmdline", ""),
		control("status", "status", "NoNewPrivs: 1"),
		attack("raise_core_limit", "rlimit:core"),
	}
	o, _ := runProbes(t, ciMgr, ps, agentbox.WithEnv("AGENT_VISIBLE=yes"))
	for label, r := range o.results {
		if strings.Contains(r.detail, secretEnvValue) || strings.Contains(r.detail, secretEnvName) {
			t.Errorf("ESCAPE %s: the caller's secret environment variable leaked: %q", label, r.detail)
		}
	}
	st := o.results["status"].detail
	for _, want := range []string{"CapEff: 0000000000000000", "CapPrm: 0000000000000000", "CapBnd: 0000000000000000",
		"CapAmb: 0000000000000000", "Seccomp: 2"} {
		if !strings.Contains(st, want) {
			t.Errorf("status lacks %q: %s", want, st)
		}
	}
	if r := o.results["raise_core_limit"]; !strings.Contains(r.detail, "cur=0 max=0") {
		t.Errorf("core dumps not off: %q", r.detail)
	}
}

// TestKernelSurface makes the system calls of DESIGN.md's invariant 4 and
// other kernel attack surface; the attacker is also run on the host, so the
// log says which of them only the sandbox stops.
func TestKernelSurface(t *testing.T) {
	t.Parallel()
	dangerous := []string{
		"bpf", "perf_event_open", "userfaultfd", "io_uring_setup", "io_uring_enter", "io_uring_register",
		"keyctl", "add_key", "request_key", "kexec_load", "kexec_file_load", "init_module", "finit_module",
		"delete_module", "syslog", "personality", "fanotify_init", "name_to_handle_at", "reboot", "acct",
		"swapoff", "clock_settime", "settimeofday", "sethostname", "setdomainname", "kcmp",
		"process_vm_readv_self", "ptrace_traceme", "pidfd_getfd",
	}
	if isAMD64 {
		dangerous = append(dangerous, "iopl", "ioperm", "modify_ldt", "uselib")
	}
	var ps []probe
	for _, c := range []string{"getpid", "memfd", "eventfd", "epoll", "inotify", "timerfd", "personality0"} {
		ps = append(ps, control(c, "sys:"+c, ""))
	}
	for _, d := range dangerous {
		ps = append(ps, attack(d, "sys:"+d))
	}
	// Other system call ABIs: seccomp must kill, not just refuse.
	host := hostBaseline(t, "x32=x32", "int80=int80")
	for _, abi := range []string{"x32", "int80"} {
		if host[abi].verdict == allowed {
			ps = append(ps, attack(abi, abi, "SIGSYS"))
		} else {
			t.Logf("%s: not available on this host kernel either (%s %q); not attacked", abi, host[abi].errno, firstLine(host[abi].detail))
		}
	}
	runProbes(t, ciMgr, ps)
}

// hostBaseline runs the attacker on the host, unsandboxed.
func hostBaseline(t *testing.T, args ...string) map[string]result {
	t.Helper()
	out, err := exec.Command(attackerBin, args...).Output()
	if err != nil {
		t.Fatalf("attacker on the host: %v", err)
	}
	return parseOutput(string(out)).results
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return l
}

// TestPrivilegedPrograms runs programs that would give their caller more
// privilege outside a sandbox: set-user-ID and set-group-ID root copies of
// the attacker, and copies carrying file capabilities (CAP_DAC_OVERRIDE,
// CAP_DAC_READ_SEARCH, CAP_SYS_ADMIN), as a host's sudo or a helper with
// file capabilities would be. (Running the host's own sudo or su would
// prove little: they also want a password.) Exec'd in the sandbox they must gain no user,
// group or capability and still not read /etc/shadow; the controls show
// each copy runs. Planting root-owned programs needs root, so the suite's
// unprivileged run skips this test.
func TestPrivilegedPrograms(t *testing.T) {
	t.Parallel()
	if !isRoot {
		t.Skip("planting set-user-ID root programs needs root")
	}
	dir := newDir(t, 0o755)
	bin, err := os.ReadFile(attackerBin)
	if err != nil {
		t.Fatal(err)
	}
	plant := func(name string, mode os.FileMode, caps []byte) string {
		p := filepath.Join(dir, name)
		writeFile(t, p, string(bin), 0o755)
		if err := os.Chown(p, 0, 0); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, mode); err != nil {
			t.Fatal(err)
		}
		if caps != nil {
			if err := unix.Setxattr(p, "security.capability", caps, 0); err != nil {
				t.Fatalf("set file capabilities on %s: %v", p, err)
			}
		}
		return p
	}
	fileCaps := func(bits ...uint) []byte {
		// struct vfs_cap_data, revision 2, effective: magic, then
		// permitted and inheritable for capabilities 0-31 and 32-63.
		var permitted uint32
		for _, b := range bits {
			permitted |= 1 << b
		}
		b := make([]byte, 20)
		binary.LittleEndian.PutUint32(b[0:], 0x02000000|0x1)
		binary.LittleEndian.PutUint32(b[4:], permitted)
		return b
	}
	programs := map[string]string{
		"setuid_root": plant("suid", os.ModeSetuid|0o755, nil),
		"setgid_root": plant("sgid", os.ModeSetgid|0o755, nil),
		"file_caps": plant("fcaps", 0o755, fileCaps(unix.CAP_DAC_OVERRIDE,
			unix.CAP_DAC_READ_SEARCH, unix.CAP_SYS_ADMIN)),
	}
	// Outside a sandbox each copy does raise an unprivileged user (nobody),
	// or the attack below proves nothing.
	for name, p := range programs {
		var out []byte
		var err error
		// A program written a moment ago may still be open for writing in
		// a child another test is forking (until its exec closes it): the
		// kernel then refuses to run it (ETXTBSY) for that moment.
		for try := 0; try < 50; try++ {
			c := exec.Command(p, "child", "privileged")
			c.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534, Groups: []uint32{}}}
			if out, err = c.Output(); !errors.Is(err, syscall.ETXTBSY) {
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
		if err != nil || !strings.Contains(string(out), "gained=yes") {
			t.Fatalf("%s run by nobody outside a sandbox gains nothing (%v: %s): the probe could not fail", name, err, out)
		}
	}
	var ps []probe
	for _, name := range slices.Sorted(maps.Keys(programs)) {
		p := programs[name]
		ps = append(ps,
			control(name+"_runs", "exec:"+p+"|child|ids", "euid="),
			attack(name+"_gains_privilege", "exec:"+p+"|child|privileged"),
			attack(name+"_reads_shadow", "exec:"+p+"|child|read:/etc/shadow"),
		)
	}
	runProbes(t, ciMgr, ps)
}

// TestCgroupNamespace reads the sandbox's own cgroup membership: behind its
// cgroup namespace every hierarchy must show as "/", so the program learns
// nothing of the host's cgroup tree, nor agentbox's process ID, which
// names the sandbox's cgroup. Both a new sandbox and a warm one (placed in
// its cgroup after it was started) are checked.
func TestCgroupNamespace(t *testing.T) {
	t.Parallel()
	for _, m := range []struct {
		name string
		mgr  *agentbox.Manager
	}{{"warm", ciMgr}, {"cold", newManager(t, coldConfig())}} {
		t.Run(m.name, func(t *testing.T) {
			o, _ := runProbes(t, m.mgr, []probe{control("own_cgroup", "read:/proc/self/cgroup", "::")})
			for _, line := range strings.Split(strings.TrimSpace(o.results["own_cgroup"].detail), "\n") {
				f := strings.SplitN(line, ":", 3)
				if len(f) != 3 || f[2] != "/" {
					t.Errorf("LEAK: the sandbox sees its cgroup as %q", line)
				}
			}
		})
	}
}

func coldConfig() agentbox.Config {
	cfg := ciConfig()
	cfg.ColdStart = true
	return cfg
}

// TestHostIPC attacks the host's System V and POSIX IPC objects from the
// sandbox: a shared memory segment holding a secret and a message queue,
// both open to everyone on the host, so that only the sandbox's IPC
// namespace stands between them and the program. The control creates and
// uses a segment of the sandbox's own.
func TestHostIPC(t *testing.T) {
	t.Parallel()
	secret := uniqueSecret("shm")
	key := int(time.Now().UnixNano()&0x3fffffff) | 1
	id, err := unix.SysvShmGet(key, 4096, unix.IPC_CREAT|unix.IPC_EXCL|0o666)
	if err != nil {
		t.Fatalf("host segment: %v", err)
	}
	t.Cleanup(func() { _, _ = unix.SysvShmCtl(id, unix.IPC_RMID, nil) })
	b, err := unix.SysvShmAttach(id, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	copy(b, secret)
	_ = unix.SysvShmDetach(b)

	queue := fmt.Sprintf("/agentbox-attack-%d", key)
	name, _ := unix.BytePtrFromString(queue[1:])
	fd, _, errno := unix.Syscall6(unix.SYS_MQ_OPEN, uintptr(unsafe.Pointer(name)),
		unix.O_CREAT|unix.O_EXCL|unix.O_RDWR|unix.O_CLOEXEC, 0o666, 0, 0, 0)
	if errno != 0 {
		t.Fatalf("host message queue: %v", errno)
	}
	unix.Close(int(fd))
	t.Cleanup(func() { _, _, _ = unix.Syscall(unix.SYS_MQ_UNLINK, uintptr(unsafe.Pointer(name)), 0, 0) })

	// The same probes on the host reach both: they can fail.
	host := exec.Command(attackerBin, "shm=sysvshm:"+strconv.Itoa(key), "mq=mqopen:"+queue)
	out, err := host.Output()
	if err != nil || !strings.Contains(string(out), secret) || !strings.Contains(string(out), "opened "+queue) {
		t.Fatalf("the probes do not reach the host's IPC from outside a sandbox: %v\n%s", err, out)
	}

	runProbes(t, ciMgr, []probe{
		control("own_sysv_shm", "sysvshmown", "own segment"),
		attack("host_sysv_shm", "sysvshm:"+strconv.Itoa(key)),
		attack("host_posix_mq", "mqopen:"+queue),
	})
}
