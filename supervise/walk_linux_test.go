//go:build linux

package supervise

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestWalkTree runs walkTree over scripted listings: each listing is the
// pids /proc shows, and mem the memory a read finds (absent: gone).
func TestWalkTree(t *testing.T) {
	for _, tc := range []struct {
		name      string
		listings  [][]string
		mem       map[string]int64
		parent    map[string]string // a read's parent (exact counts)
		again     map[string]int64  // a second read's value (-1: gone)
		rounds    int
		reread    bool
		want      int64
		wantProcs int
		wantLists int
	}{
		{"settled tree: one more listing", [][]string{{"1", "2", "self"}, {"1", "2", "self"}},
			map[string]int64{"1": 10, "2": 20}, nil, nil, 8, true, 30, 2, 2},
		{"hop: a gone pid's memory found in a newer one", [][]string{{"1", "2"}, {"1", "3"}, {"1", "3"}},
			map[string]int64{"1": 10, "3": 75}, nil, nil, 8, true, 85, 2, 3},
		{"hop after the read: not counted twice", [][]string{{"1", "2"}, {"1", "3"}, {"1", "3"}},
			map[string]int64{"1": 10, "2": 75, "3": 75}, nil, nil, 8, true, 85, 2, 3},
		{"an exited process's memory is not taken from another's", [][]string{{"1", "2"}, {"1", "3"}, {"1", "3"}},
			map[string]int64{"1": 10, "2": 75, "3": 5}, nil, nil, 8, true, 85, 2, 3},
		// Two hopping chains, each caught in one round and gone by the
		// next; a third caught in the last round: the best round holds
		// two. Taking gone from fresh left 10+40.
		{"chains caught in different rounds do not cancel out", [][]string{{"1", "2"}, {"1", "3", "4"}, {"1", "5", "6"}, {"1", "7"}, {"1", "7"}},
			map[string]int64{"1": 10, "3": 40, "4": 40, "5": 40, "7": 40}, nil, nil, 8, true, 90, 3, 5},
		{"new processes holding fresh memory count", [][]string{{"1"}, {"1", "2"}, {"1", "2"}},
			map[string]int64{"1": 10, "2": 40}, nil, nil, 8, true, 50, 2, 3},
		{"a relisting's processes count with the first walk's", [][]string{{"1", "2"}, {"1", "2", "3"}, {"1", "2", "3"}},
			map[string]int64{"1": 10, "2": 20, "3": 30}, nil, nil, 8, true, 60, 3, 3},
		// 2, added by the first relisting, shares with 3 when 3 comes:
		// read again, not counted with the share it had alone.
		{"a process a relisting added is read again in later rounds", [][]string{{"1"}, {"1", "2"}, {"1", "2", "3"}, {"1", "2", "3"}},
			map[string]int64{"1": 10, "2": 50, "3": 50}, nil, map[string]int64{"2": 20}, 8, true, 80, 3, 4},
		{"an exact count leaves out a process an earlier relisting added", [][]string{{"1"}, {"1", "2"}, {"1", "2", "3"}, {"1", "2", "3"}},
			map[string]int64{"1": 10, "2": 50, "3": 50}, nil, map[string]int64{"2": 20}, 8, false, 60, 2, 4},
		{"a process a relisting added counts no more once gone", [][]string{{"1"}, {"1", "2"}, {"1", "2", "3"}, {"1", "2", "3"}},
			map[string]int64{"1": 10, "2": 50, "3": 50}, nil, map[string]int64{"2": -1}, 8, true, 60, 2, 4},
		// The parent held 200 alone; with its new child they hold 100
		// each: read again, the listing's sum is 205, not 305.
		{"a first-walk parent of a new process is read again", [][]string{{"1", "2"}, {"1", "2", "3"}, {"1", "2", "3"}},
			map[string]int64{"1": 5, "2": 200, "3": 100}, map[string]string{"3": "2"}, map[string]int64{"2": 100}, 8, false, 205, 2, 3},
		{"a parent gone since is not read again", [][]string{{"1", "2"}, {"1", "3"}, {"1", "3"}},
			map[string]int64{"1": 5, "2": 200, "3": 100}, map[string]string{"3": "2"}, map[string]int64{"2": 1000}, 8, false, 205, 2, 3},
		{"bounded rounds for a tree that never settles", [][]string{{"1"}, {"1", "2"}, {"1", "3"}, {"1", "4"}, {"1", "5"}},
			map[string]int64{"1": 10, "2": 7, "3": 7, "4": 7, "5": 7}, nil, nil, 3, true, 17, 2, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lists := 0
			list := func() ([]string, error) {
				l := tc.listings[min(lists, len(tc.listings)-1)]
				lists++
				return l, nil
			}
			reads := map[string]int{}
			read := func(name string) (int64, string, bool) {
				reads[name]++
				if n, ok := tc.again[name]; ok && reads[name] > 1 {
					return n, tc.parent[name], n >= 0 // -1: gone
				}
				n, ok := tc.mem[name]
				return n, tc.parent[name], ok
			}
			got, procs, err := walkTree(list, read, tc.rounds, tc.reread)
			if err != nil || got != tc.want || procs != tc.wantProcs || lists != tc.wantLists {
				t.Errorf("walkTree = %d, %d procs, %v after %d listings; want %d, %d procs after %d",
					got, procs, err, lists, tc.want, tc.wantProcs, tc.wantLists)
			}
		})
	}
	t.Run("a first listing that fails fails the count", func(t *testing.T) {
		_, _, err := walkTree(func() ([]string, error) { return nil, errors.New("gone") },
			func(string) (int64, string, bool) { return 0, "", false }, 8, true)
		if err == nil {
			t.Error("walkTree succeeded without a listing")
		}
	})
}

// TestSameSize: two processes whose statm sizes differ are two memories
// (no kcmp asked); equal sizes, or a process gone, leave the question to
// the kernel.
func TestSameSize(t *testing.T) {
	dir := t.TempDir()
	for pid, statm := range map[string]string{"1": "1234 100 50 1 0 300 0\n", "2": "1234 90 40 1 0 290 0\n", "3": "20000 19000 5 1 0 19100 0\n"} {
		if err := os.MkdirAll(filepath.Join(dir, pid), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, pid, "statm"), []byte(statm), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	proc, err := os.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer proc.Close()
	s := &treeSampler{proc: proc}
	for _, tc := range []struct {
		child  string
		parent int
		want   bool
	}{
		{"2", 1, true},  // one size: ask the kernel
		{"3", 1, false}, // another size: two memories
		{"4", 1, true},  // gone: ask the kernel (it answers no)
	} {
		if got := s.sameSize(tc.child, tc.parent); got != tc.want {
			t.Errorf("sameSize(%s, %d) = %v, want %v", tc.child, tc.parent, got, tc.want)
		}
	}
}
