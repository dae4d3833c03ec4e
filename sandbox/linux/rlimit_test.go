//go:build linux

package linux

import (
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
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

// TestInheritDataLimit lowers the process's soft RLIMIT_DATA for a fork
// and puts it back, leaving the hard limit alone, and never below what the
// process holds plus dataHeadroom (a lower one would fail the test's own
// allocations, as it would the init's).
func TestInheritDataLimit(t *testing.T) {
	var before unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_DATA, &before); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	held, ok := statusVmData(b)
	if !ok {
		t.Fatal("no VmData")
	}
	big := min(before.Cur-1, 1<<40)
	cases := []struct {
		name    string
		bytes   uint64
		lowered bool
		want    uint64 // soft limit while lowered
	}{
		{"no limit", 0, false, 0},
		{"at the soft limit", before.Cur, false, 0},
		{"below it", big, true, big},
		{"below what the process holds", 1 << 20, true, held + dataHeadroom},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			restore, err := inheritDataLimit(c.bytes)
			if err != nil {
				t.Fatal(err)
			}
			if (restore != nil) != c.lowered {
				t.Fatalf("lowered %v, want %v", restore != nil, c.lowered)
			}
			if restore == nil {
				return
			}
			var during, after unix.Rlimit
			_ = unix.Getrlimit(unix.RLIMIT_DATA, &during)
			if err := restore(); err != nil {
				t.Fatal(err)
			}
			_ = unix.Getrlimit(unix.RLIMIT_DATA, &after)
			// VmData moves a little between the two reads.
			if during.Cur < c.want-(8<<20) || during.Cur > c.want+(8<<20) || during.Max != before.Max {
				t.Errorf("during the fork %+v, want soft about %d and hard %d", during, c.want, before.Max)
			}
			if after != before {
				t.Errorf("restored %+v, want %+v", after, before)
			}
		})
	}
}

func TestStatusVmData(t *testing.T) {
	cases := []struct {
		status string
		want   uint64
		ok     bool
	}{
		{"Name:\tx\nVmPeak:\t  9 kB\nVmData:\t  144640 kB\nVmStk:\t 132 kB\n", 144640 << 10, true},
		{"Name:\tx\nVmData:\t0 kB\n", 0, true},
		{"Name:\tkthreadd\nThreads:\t1\n", 0, false},
		{"VmData:\t12 MB\n", 0, false},
		{"VmData:\tx kB\n", 0, false},
	}
	for _, c := range cases {
		got, ok := statusVmData([]byte(c.status))
		if got != c.want || ok != c.ok {
			t.Errorf("%q: %d %v, want %d %v", c.status, got, ok, c.want, c.ok)
		}
	}
}
