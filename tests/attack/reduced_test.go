//go:build linux

package attack_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentbox-dev/agentbox"
	"github.com/agentbox-dev/agentbox/internal/nomount"
	"github.com/agentbox-dev/agentbox/sandbox"
)

// reducedEnv makes the test binary run the attacker once through agentbox
// and print the ExecResult as JSON (or reducedRefused and the error), on a
// machine its value stands for: one of reducedMachines, or "userns-only"
// (nothing missing). Its arguments are the probes; reducedWriteEnv names
// the writable root. See runInChild.
const (
	reducedEnv      = "AGENTBOX_ATTACK_REDUCED"
	reducedBinEnv   = "AGENTBOX_ATTACK_REDUCED_BIN"
	reducedWriteEnv = "AGENTBOX_ATTACK_REDUCED_WRITE"
	// reducedNprocEnv, when set, is the run's MaxProcesses.
	reducedNprocEnv = "AGENTBOX_ATTACK_REDUCED_NPROC"
)

// reducedMachines are the ways a machine lacks usable user namespaces.
var reducedMachines = []struct {
	name   string
	userns bool // the test binary runs in a user namespace of its own
}{
	// Turned off (sysctl user.max_user_namespaces=0), set in a user
	// namespace of the test's own, where the caller is root.
	{"no-userns", true},
	// Made but granting no capability (Ubuntu's AppArmor restriction),
	// stood for by a seccomp filter refusing mount: the caller stays who
	// it is, root or not.
	{"no-capabilities", false},
}

// reducedRefused starts runReduced's output when agentbox refused to run.
const reducedRefused = "REFUSED"

func runReduced() int {
	fail := func(err error) int {
		fmt.Fprintln(os.Stderr, "reduced tier:", err)
		return 1
	}
	var err error
	switch os.Getenv(reducedEnv) {
	case "no-userns":
		err = os.WriteFile("/proc/sys/user/max_user_namespaces", []byte("0"), 0)
	case "no-capabilities":
		err = nomount.Install()
	}
	if err != nil {
		return fail(err)
	}
	cfg := ciConfig()
	cfg.FallbackPolicy = agentbox.FallbackWarn
	if n := os.Getenv(reducedNetworkEnv); n != "" {
		if cfg.Network.Mode, err = sandbox.ParseNetworkMode(n); err != nil {
			return fail(err)
		}
	}
	if n := os.Getenv(reducedNprocEnv); n != "" {
		if cfg.ResourceLimits.MaxProcesses, err = strconv.ParseInt(n, 10, 64); err != nil {
			return fail(err)
		}
	}
	if n := os.Getenv(reducedMemEnv); n != "" {
		if cfg.ResourceLimits.MaxMemoryBytes, err = strconv.ParseInt(n, 10, 64); err != nil {
			return fail(err)
		}
	}
	m, err := agentbox.NewManager(cfg)
	if err != nil {
		return fail(err)
	}
	defer m.Close()
	if os.Getenv(reducedWrapEnv) != "" {
		return wrapKillReduced(m)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	opts := []agentbox.Option{agentbox.WithWorkingDir("/")}
	if w := os.Getenv(reducedWriteEnv); w != "" {
		opts = append(opts, agentbox.WithWritableRoots(w))
	}
	res, err := m.ExecArgs(ctx, os.Getenv(reducedBinEnv), os.Args[1:], opts...)
	if err != nil {
		fmt.Println(reducedRefused, err)
		return 0
	}
	if err := json.NewEncoder(os.Stdout).Encode(res); err != nil {
		return fail(err)
	}
	return 0
}

// TestReducedTier attacks the reduced tier, which the warn fallback runs
// where user namespaces are unusable: Landlock and seccomp without
// namespaces. What it claims must hold: no read of the deny list outside
// writable roots, no write outside them, no TCP to the host's loopback,
// no UDP, raw or unix sockets, no signal, trace or /proc access to a host
// process of the same user. What it cannot do (keep paths inside a
// writable root read-only) must be said, in ExecResult.Degraded. For a
// caller that is root over the host's files it cannot keep root-only files
// closed (there is no user namespace to run the command as nobody), so it
// must refuse.
func TestReducedTier(t *testing.T) {
	t.Parallel()
	for _, machine := range reducedMachines {
		t.Run(machine.name, func(t *testing.T) {
			t.Parallel()
			attackReducedTier(t, machine.name, machine.userns)
		})
	}
}

func attackReducedTier(t *testing.T, machine string, userns bool) {
	w := newDir(t, 0o777)
	writeFile(t, filepath.Join(w, ".git", "HEAD"), "ref: refs/heads/main\n", 0o644)
	outside := newDir(t, 0o777)
	host := newHostListeners(t)
	pid, secret := startVictim(t)

	ps := []probe{
		control("write_root", "write:"+w+"/ok", ""),
		control("read_public", "read:"+fakeHome+"/.profile", homeProfile),
		reducedTCPSocket(),
		attack("ssh_key", "read:"+fakeHome+"/.ssh/id_ed25519"),
		attack("shadow", "read:/etc/shadow"),
		attack("aws_credentials", "read:"+fakeHome+"/.aws/credentials"),
		attack("agentbox_state", "read:"+stateDir+"/registry.json"),
		attack("write_outside", "write:"+outside+"/x"),
		attack("write_home", "write:"+fakeHome+"/.bashrc"),
		attack("host_loopback_tcp", "tcp:"+host.tcp),
		attack("udp_socket", "socket:inet:dgram"),
		attack("netlink_socket", "socket:netlink:raw:0"),
		attack("raw_socket", "socket:inet:raw:1"),
		attack("kill_host", fmt.Sprintf("kill:%d:0", pid)),
		attack("ptrace_host", fmt.Sprintf("ptrace:%d", pid)),
		attack("environ_host", fmt.Sprintf("read:/proc/%d/environ", pid)),
	}
	ps = append(ps, host.unixProbes()...)

	refused, res := runInChild(t, machine, userns, w, ps)
	if isRoot {
		if !strings.Contains(refused, "root-only files") {
			t.Errorf("ESCAPE: the reduced tier ran a root caller's command: %q %+v", refused, res)
		}
		return
	}
	if res == nil {
		t.Fatalf("agentbox refused: %s", refused)
	}
	o := parseOutput(res.Stdout)
	if !o.started || !o.done {
		t.Fatalf("attacker run incomplete (exit %d)\nstdout:\n%s\nstderr:\n%s", res.ExitCode, res.Stdout, res.Stderr)
	}
	t.Logf("layers %q\nattacker output:\n%s", res.Layers, res.Stdout)
	checkProbes(t, o, ps)
	for label, r := range o.results {
		if strings.Contains(r.detail, secret) || strings.Contains(r.detail, homeSSHKey) {
			t.Errorf("ESCAPE %s: a secret leaked: %q", label, r.detail)
		}
	}
	host.expectUntouched(t)

	// The run says that it was degraded, and what that leaves open.
	if len(res.Degraded) == 0 || !strings.Contains(res.Degraded[0], "reduced tier") ||
		!strings.Contains(res.Degraded[0], filepath.Join(w, ".git")) || !strings.Contains(res.Degraded[0], "no /dev/shm") ||
		!strings.Contains(res.Degraded[0], "inotify instances") {
		t.Errorf("the reduced tier did not say what it leaves unenforced: Degraded %q", res.Degraded)
	}
}

// TestRootMappedToRoot runs agentbox as root in a user namespace that maps
// root to the caller (the host's root when the suite runs as root). There
// is no other uid to run commands as, so a root caller must be refused:
// the command would read root-only files by owner rights. An unprivileged
// caller's namespace root is that user, and gets the full sandbox.
func TestRootMappedToRoot(t *testing.T) {
	t.Parallel()
	ps := []probe{control("ran", "sys:getpid", ""), attack("shadow", "read:/etc/shadow")}
	refused, res := runInChild(t, "userns-only", true, newDir(t, 0o755), ps)
	if isRoot {
		if !strings.Contains(refused, "maps root to the host's root") {
			t.Errorf("ESCAPE: agentbox ran a command as the host's root: %q %+v", refused, res)
		}
		return
	}
	if res == nil {
		t.Fatalf("agentbox refused: %s", refused)
	}
	o := parseOutput(res.Stdout)
	checkProbes(t, o, ps)
	if len(res.Degraded) != 0 {
		t.Errorf("the full sandbox said it was degraded: %q", res.Degraded)
	}
}

// runInChild runs the attacker with ps through agentbox in a child of the
// test binary set up as machine (see runReduced), in a user namespace of
// its own that maps root to the caller when userns. It returns agentbox's
// refusal, or the result.
func runInChild(t *testing.T, machine string, userns bool, writable string, ps []probe) (refused string, res *agentbox.ExecResult) {
	t.Helper()
	return runBinInChild(t, machine, userns, writable, attackerBin, probeArgs(ps))
}

// runBinInChild is runInChild for any program: bin with args; env is
// added to the child's environment.
func runBinInChild(t *testing.T, machine string, userns bool, writable, bin string, args []string, env ...string) (refused string, res *agentbox.ExecResult) {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), reducedEnv+"="+machine, reducedBinEnv+"="+bin, reducedWriteEnv+"="+writable)
	cmd.Env = append(cmd.Env, env...)
	if userns {
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
	if r, ok := strings.CutPrefix(string(out), reducedRefused); ok {
		return strings.TrimSpace(r), nil
	}
	res = new(agentbox.ExecResult)
	if err := json.Unmarshal(out, res); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	return "", res
}

// TestReducedTierForkBomb forks until the kernel refuses in the reduced
// tier, where RLIMIT_NPROC counts every process of the user on the host:
// while the user already runs more processes than MaxProcesses, the
// program must still start and fork (the limit is MaxProcesses beyond
// them), and the bomb must still be refused well before it runs away.
func TestReducedTierForkBomb(t *testing.T) {
	if isRoot {
		t.Skip("the reduced tier refuses root (TestReducedTier)")
	}
	t.Parallel()
	const limit = 32
	// The user's own processes, more than the limit, held for the run.
	for range limit + 8 {
		c := exec.Command("/bin/sleep", "60")
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = c.Process.Kill(); _ = c.Wait() })
	}
	ps := []probe{attack("forkbomb", "forkbomb", "EAGAIN")}
	refused, res := runBinInChild(t, "no-capabilities", false, newDir(t, 0o755), attackerBin, probeArgs(ps),
		reducedNprocEnv+"="+strconv.Itoa(limit))
	if res == nil {
		t.Fatalf("agentbox refused: %s", refused)
	}
	o := parseOutput(res.Stdout)
	if !o.started || !o.done {
		t.Fatalf("the program did not run (exit %d): the user's own processes took the sandbox's limit\nstdout:\n%s\nstderr:\n%s", res.ExitCode, res.Stdout, res.Stderr)
	}
	checkProbes(t, o, ps)
	var forked int
	if _, err := fmt.Sscanf(o.results["forkbomb"].detail, "forked %d", &forked); err != nil {
		t.Fatalf("forkbomb: %q: %v", o.results["forkbomb"].detail, err)
	}
	t.Logf("forked %d with MaxProcesses %d, %d processes of the user's own held", forked, limit, limit+8)
	// Other tests' processes of the same user exiting meanwhile leave the
	// bomb room for more, and others starting (the packages' tests run
	// side by side as one user) take some: bound it loosely, above the
	// nothing it forked when the user's own processes took the limit,
	// far below its 5,000.
	if forked < limit/8 || forked > 8*limit {
		t.Errorf("the bomb forked %d processes with MaxProcesses %d: want about the limit", forked, limit)
	}
}
