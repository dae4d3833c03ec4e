package sandbox

import "testing"

func TestKernelFilesystem(t *testing.T) {
	tests := []struct {
		path, want string
	}{
		{"/proc", "/proc"}, {"/proc/sys/vm", "/proc"}, {"/sys", "/sys"}, {"/sys/fs/cgroup", "/sys"},
		{"/dev", "/dev"}, {"/dev/pts", "/dev"}, {"/dev/shm", ""}, {"/dev/shm/x", ""},
		{"/devices", ""}, {"/process", ""}, {"/system", ""}, {"/home/u/proc", ""}, {"/", ""},
	}
	for _, tt := range tests {
		got, ok := KernelFilesystem(tt.path)
		if got != tt.want || ok != (tt.want != "") {
			t.Errorf("KernelFilesystem(%q) = %q, %v; want %q", tt.path, got, ok, tt.want)
		}
	}
}
