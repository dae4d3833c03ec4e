//go:build linux

package linux

import (
	"os"
	"path/filepath"
	"testing"
)

func TestUserTasks(t *testing.T) {
	proc := t.TempDir()
	status := func(uid string, threads string) string {
		return "Name:\tx\nUid:\t" + uid + "\t" + uid + "\t0\t0\nGid:\t1\t1\t1\t1\nThreads:\t" + threads + "\n"
	}
	for name, content := range map[string]string{
		"1":    status("1000", "1"),
		"20":   status("1000", "12"), // a threaded process counts each thread
		"300":  status("0", "4"),     // another user's
		"4000": status("1001", "1"),  // real uid 1001
		"self": status("1000", "99"), // not a pid
		"55":   "Name:\tbroken\n",    // unreadable fields: skipped
	} {
		if err := os.MkdirAll(filepath.Join(proc, name), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(proc, name, "status"), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(proc, "77"), 0o755); err != nil { // exited: no status
		t.Fatal(err)
	}
	for _, tt := range []struct {
		uid  uint32
		want uint64
	}{{1000, 13}, {0, 4}, {1001, 1}, {42, 0}} {
		got, err := userTasks(proc, tt.uid)
		if err != nil || got != tt.want {
			t.Errorf("userTasks(uid %d) = %d, %v; want %d", tt.uid, got, err, tt.want)
		}
	}
	if _, err := userTasks(filepath.Join(proc, "missing"), 0); err == nil {
		t.Error("userTasks of a missing /proc: no error")
	}
}

// TestSharedProcessLimit: the limit is MaxProcesses beyond the user's
// running tasks, this test's own among them.
func TestSharedProcessLimit(t *testing.T) {
	running, err := userTasks("/proc", uint32(os.Getuid()))
	if err != nil || running == 0 {
		t.Fatalf("userTasks = %d, %v; this test runs as the user", running, err)
	}
	got, err := sharedProcessLimit(64)
	if err != nil {
		t.Fatal(err)
	}
	// Other processes of the user may start or end in between.
	if got < 64 || got > running+64+256 {
		t.Errorf("sharedProcessLimit(64) = %d with %d tasks running", got, running)
	}
}
