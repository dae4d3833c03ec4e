//go:build linux

// Package egress_test is the end-to-end suite of agentbox's filtered network
// (issue #3 item 8): a sandboxed curl (and a small python client, for raw
// sockets, fronted TLS and pipelining) must reach the hosts the policy
// allows, through the egress proxy, and nothing else: not a denied name,
// not a name resolving to a blocked address, not a fronted SNI, not a
// direct connection that bypasses the proxy, not the host's loopback
// services, nor the host's own addresses.
//
// The test binary runs in three roles, told apart by an environment
// variable:
//
//   - host (no variable): TestMain creates a working directory under
//     /var/tmp, re-executes the binary in a new user, network and mount
//     namespace of its own (uid and gid 0 mapped to the caller, so it works
//     as root and as an unprivileged user without touching the host's
//     network), waits for it, checks that the host's interfaces and
//     /etc/hosts are as they were, and then runs the TestHost… tests itself:
//     the real-client test needs the host's network.
//   - netns: the re-executed binary. It refuses to go on unless its network
//     namespace holds nothing but lo, builds the topology (see
//     topology_test.go) and runs the TestNet… tests: the agentbox process's
//     "host" network is this namespace, so the proxy's upstream connections
//     go over a veth pair to the upstream namespace and nowhere else.
//   - upstream: a helper cloned by netns into a network namespace of its
//     own, serving HTTP and HTTPS on documentation-range addresses (and on a
//     private and a metadata address that must never be reached).
package egress_test

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/netip"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"
)

// Environment variables that carry a re-executed binary's role, the
// working directory the host process made and the host's network namespace.
const (
	envRole      = "AGENTBOX_EGRESS_E2E_ROLE"
	envDir       = "AGENTBOX_EGRESS_E2E_DIR"
	envHostNetns = "AGENTBOX_EGRESS_E2E_HOST_NETNS"

	roleNetns    = "netns"
	roleUpstream = "upstream"
)

// Test-name prefixes that decide where a test runs.
const (
	netnsPrefix = "TestNet"  // in the private namespaces
	hostPrefix  = "TestHost" // in the original process, on the host's network
)

// workDir is the directory the host process created under /var/tmp (mode
// 0755, so every sandbox can read what it holds).
var workDir string

// role is this process's role.
var role = os.Getenv(envRole)

func TestMain(m *testing.M) {
	switch role {
	case roleUpstream:
		workDir = os.Getenv(envDir)
		os.Exit(runUpstream())
	case roleNetns:
		workDir = os.Getenv(envDir)
		os.Exit(runNetns(m))
	case "":
		os.Exit(runHost(m))
	default:
		fmt.Fprintf(os.Stderr, "egress e2e: unknown role %q\n", role)
		os.Exit(2)
	}
}

// runHost is the original test process: it runs the namespace child, then
// the TestHost tests.
func runHost(m *testing.M) int {
	flag.Parse()
	if f := flag.Lookup("test.list"); f != nil && f.Value.String() != "" {
		return m.Run()
	}
	dir, err := os.MkdirTemp("/var/tmp", "agentbox-egress-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "egress e2e:", err)
		return 1
	}
	workDir = dir
	code := func() int {
		defer os.RemoveAll(dir)
		if err := os.Chmod(dir, 0o755); err != nil {
			fmt.Fprintln(os.Stderr, "egress e2e:", err)
			return 1
		}
		code := runChild()
		// The TestNet tests ran in the child; here only the TestHost ones.
		_ = flag.Set("test.skip", addSkip(flagValue("test.skip"), "^"+netnsPrefix))
		code = max(code, m.Run())
		if err := checkNoChildren(); err != nil {
			fmt.Fprintln(os.Stderr, "egress e2e:", err)
			code = max(code, 1)
		}
		return code
	}()
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		fmt.Fprintf(os.Stderr, "egress e2e: %s left behind (%v)\n", dir, err)
		code = max(code, 1)
	}
	return code
}

// runChild re-executes the test binary in new user, network and mount
// namespaces and returns its exit status. It checks afterwards that nothing
// the child built shows on the host.
func runChild() int {
	hostsBefore, err := os.ReadFile("/etc/hosts")
	if err != nil && !os.IsNotExist(err) {
		fmt.Fprintln(os.Stderr, "egress e2e:", err)
		return 1
	}
	// Pdeathsig fires when the thread that started the child ends.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	cmd := exec.Command("/proc/self/exe", childArgs()...)
	hostNetns, err := os.Readlink("/proc/self/ns/net")
	if err != nil {
		fmt.Fprintln(os.Stderr, "egress e2e:", err)
		return 1
	}
	cmd.Env = append(os.Environ(), envRole+"="+roleNetns, envDir+"="+workDir, envHostNetns+"="+hostNetns)
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{
		Cloneflags: syscall.CLONE_NEWNET | syscall.CLONE_NEWNS,
		Pdeathsig:  syscall.SIGKILL,
	}
	if os.Getuid() != 0 {
		// An ordinary user needs a user namespace for the others. Root
		// does not, and must not take one that maps root to root: agentbox
		// refuses to run there (it could not run commands as nobody).
		cmd.SysProcAttr.Cloneflags |= syscall.CLONE_NEWUSER
		cmd.SysProcAttr.UidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getuid(), Size: 1}}
		cmd.SysProcAttr.GidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getgid(), Size: 1}}
	}
	code := 0
	if err := cmd.Run(); err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			fmt.Fprintf(os.Stderr, "egress e2e: cannot start the test binary in new user and network namespaces: %v\n"+
				"(the sandbox itself needs user namespaces; check user.max_user_namespaces and AppArmor's unprivileged_userns restriction)\n", err)
			return 1
		}
		code = max(ee.ExitCode(), 1)
	}
	if err := checkHostUntouched(hostsBefore); err != nil {
		fmt.Fprintln(os.Stderr, "egress e2e:", err)
		code = max(code, 1)
	}
	return code
}

// checkHostUntouched fails if the child's topology shows on the host: one
// of its interfaces or addresses, or a changed /etc/hosts. (Other changes
// are not the suite's: other programs on the machine may add interfaces.)
func checkHostUntouched(hostsBefore []byte) error {
	var errs []error
	hosts, err := os.ReadFile("/etc/hosts")
	if err != nil && !os.IsNotExist(err) {
		return err
	}
	if !bytes.Equal(hosts, hostsBefore) {
		errs = append(errs, fmt.Errorf("/etc/hosts changed during the run:\n%s", hosts))
	}
	ifs, err := net.Interfaces()
	if err != nil {
		return err
	}
	for _, i := range ifs {
		if i.Name == hostIf || i.Name == upIf {
			errs = append(errs, fmt.Errorf("the host has an interface %s", i.Name))
		}
		addrs, err := i.Addrs()
		if err != nil {
			return err
		}
		for _, a := range addrs {
			p, err := netip.ParsePrefix(a.String())
			if err == nil && slices.Contains(topologyAddrs(), p.Addr().String()) {
				errs = append(errs, fmt.Errorf("the host's %s carries the topology's address %s", i.Name, a))
			}
		}
	}
	return errors.Join(errs...)
}

// Flags a child must not share with its parent: they name files both would
// write (go test's cache log, profiles).
var parentOnlyFlags = []string{
	"test.testlogfile", "test.coverprofile", "test.cpuprofile", "test.memprofile",
	"test.blockprofile", "test.mutexprofile", "test.trace", "test.fuzzcachedir",
}

// childArgs are the parent's test flags for the child, which skips the
// TestHost tests.
func childArgs() []string {
	var args []string
	skipSet := false
	flag.Visit(func(f *flag.Flag) {
		switch {
		case slices.Contains(parentOnlyFlags, f.Name):
		case f.Name == "test.skip":
			skipSet = true
			args = append(args, "-test.skip="+addSkip(f.Value.String(), "^"+hostPrefix))
		default:
			args = append(args, "-"+f.Name+"="+f.Value.String())
		}
	})
	if !skipSet {
		args = append(args, "-test.skip=^"+hostPrefix)
	}
	return append(args, flag.Args()...)
}

// addSkip adds the top-level pattern extra to a -test.skip value. A value
// with a slash (sub-test levels) is kept as it is: the tests themselves
// also skip in the wrong process (see inNetns and onHost).
func addSkip(skip, extra string) string {
	switch {
	case skip == "":
		return extra
	case strings.Contains(skip, "/"):
		return skip
	default:
		return "(?:" + skip + ")|" + extra
	}
}

func flagValue(name string) string {
	if f := flag.Lookup(name); f != nil {
		return f.Value.String()
	}
	return ""
}

// inNetns skips t unless it runs in the private namespaces.
func inNetns(t *testing.T) {
	t.Helper()
	if role != roleNetns {
		t.Skip("runs in the test's private user and network namespace (the re-executed child)")
	}
}

// onHost skips t unless it runs in the original test process.
func onHost(t *testing.T) {
	t.Helper()
	if role != "" {
		t.Skip("runs in the original test process, on the host's network")
	}
}
