//go:build linux

package attack_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/agentbox-dev/agentbox"
)

// TestNamespaceAndInodeEscapes attacks what the kernel offers beyond the
// system calls TestKernelSurface makes: descriptors for namespaces outside
// the sandbox (the nsfs ioctls NS_GET_USERNS and NS_GET_PARENT, the pidfd
// namespace ioctls on the init), the host's audit log, inode attributes
// only CAP_LINUX_IMMUTABLE may set (a file made immutable in a writable
// root could not be changed or removed on the host), real-time and
// deadline scheduling, real-time I/O priority, PR_SET_MM, vhangup, a raised
// memory-lock limit, exemption from the OOM killer, writes to the init's
// /proc files and to LSM attributes, and parts of the init's /proc entry
// not covered elsewhere. The controls use the same interfaces on the
// sandbox's own objects, and run a program from a memfd (which exists on
// no mount: it must gain nothing).
func TestNamespaceAndInodeEscapes(t *testing.T) {
	t.Parallel()
	w := newDir(t, 0o755)
	immutable, appendOnly := filepath.Join(w, "immutable"), filepath.Join(w, "append-only")
	for _, f := range []string{immutable, appendOnly} {
		writeFile(t, f, publicContent, 0o644)
	}
	giveToSandboxUser(t, w, immutable, appendOnly)

	ps := []probe{
		control("getflags", "getflags:"+immutable, "flags"),
		control("write_root_file", "write:"+immutable, ""),
		control("nstype_own_pid", "nsioctl:pid|type", "type"),
		control("own_net_owner", "nsioctl:net|userns", "user:"),
		control("pidfd_own_mnt_ns", "pidfdns:self|mnt", "mnt:"),
		control("memfd_program", "memfdexec", "gained=no"),
		control("init_status", "read:/proc/1/status", "Pid:"),
		attack("chattr_immutable", "chattr:"+immutable+"|i"),
		attack("chattr_append_only", "chattr:"+appendOnly+"|a"),
		attack("ns_owner_of_own_userns", "nsioctl:user|userns"),
		attack("ns_parent_userns", "nsioctl:user|parent"),
		attack("ns_parent_pidns", "nsioctl:pid|parent"),
		attack("audit_user_message", "auditsend"),
		attack("sched_deadline", "sys:sched_deadline"),
		attack("ioprio_realtime", "sys:ioprio_rt"),
		attack("prctl_set_mm", "sys:prctl_set_mm"),
		attack("vhangup", "sys:vhangup"),
		attack("raise_memlock", "sys:mlockall_future"),
		attack("oom_unkillable", "sys:oom_unkillable"),
		attack("lsm_attr_current", "procwrite:/proc/self/attr/current|unconfined"),
		attack("lsm_attr_exec", "procwrite:/proc/self/attr/exec|unconfined"),
		attack("sysrq_trigger", "procwrite:/proc/sysrq-trigger|h"),
		attack("init_comm", "procwrite:/proc/1/comm|pwned"),
		attack("init_oom_score", "procwrite:/proc/1/oom_score_adj|1000"),
		attack("init_timerslack", "procwrite:/proc/1/timerslack_ns|1"),
		attack("init_clear_refs", "procwrite:/proc/1/clear_refs|1"),
		attack("init_ns_net", "open:/proc/1/ns/net"),
		attack("init_ns_user", "open:/proc/1/ns/user"),
		attack("init_fdinfo", "readdir:/proc/1/fdinfo"),
		attack("init_map_files", "readdir:/proc/1/map_files"),
		attack("init_maps", "read:/proc/1/maps"),
		attack("init_auxv", "read:/proc/1/auxv"),
		attack("init_task_environ", "read:/proc/1/task/1/environ"),
		attack("init_task_root", "readlink:/proc/1/task/1/root"),
		attack("init_task_mem", "open:/proc/1/task/1/mem"),
		attack("init_sigterm", "kill:1:15"),
		attack("init_sigquit", "kill:1:3"),
		control("own_child_sigterm_by_sigio", "sigio:child|15", "gone"),
		attack("init_sigterm_by_sigio", "sigio:1|15"),
		control("alive_after_init_signals", "sys:getpid", ""),
	}
	for _, ns := range []string{"mnt", "user", "net", "pid"} {
		ps = append(ps, attack("pidfd_init_"+ns+"_ns", "pidfdns:1|"+ns))
	}
	runProbes(t, ciMgr, ps, agentbox.WithWritableRoots(w))

	for _, f := range []string{immutable, appendOnly} {
		fd, err := unix.Open(f, unix.O_RDONLY|unix.O_CLOEXEC, 0)
		if err != nil {
			t.Fatal(err)
		}
		flags, err := unix.IoctlGetUint32(fd, unix.FS_IOC_GETFLAGS)
		unix.Close(fd)
		if err == nil && flags&(0x10|0x20) != 0 {
			t.Errorf("ESCAPE: %s has inode flags %#x on the host", f, flags)
		}
	}
	if b, err := os.ReadFile(immutable); err != nil || !strings.Contains(string(b), writeMarker) {
		t.Errorf("control: the sandbox's write did not reach the writable root: %q, %v", b, err)
	}
}
