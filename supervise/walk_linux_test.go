//go:build linux

package supervise

import (
	"errors"
	"testing"
)

// TestWalkTree runs walkTree over scripted listings: each listing is the
// pids /proc shows, and mem the memory a read finds (absent: gone).
func TestWalkTree(t *testing.T) {
	for _, tc := range []struct {
		name      string
		listings  [][]string
		mem       map[string]int64
		rounds    int
		want      int64
		wantProcs int
		wantLists int
	}{
		{"settled tree: one more listing", [][]string{{"1", "2", "self"}, {"1", "2", "self"}},
			map[string]int64{"1": 10, "2": 20}, 8, 30, 2, 2},
		{"hop: a gone pid's memory found in a newer one", [][]string{{"1", "2"}, {"1", "3"}, {"1", "3"}},
			map[string]int64{"1": 10, "3": 75}, 8, 85, 2, 3},
		{"hop after the read: not counted twice", [][]string{{"1", "2"}, {"1", "3"}, {"1", "3"}},
			map[string]int64{"1": 10, "2": 75, "3": 75}, 8, 85, 3, 3},
		{"an exited process takes away no more than the relistings add", [][]string{{"1", "2"}, {"1", "3"}, {"1", "3"}},
			map[string]int64{"1": 10, "2": 75, "3": 5}, 8, 85, 3, 3},
		{"new processes holding fresh memory count", [][]string{{"1"}, {"1", "2"}, {"1", "2"}},
			map[string]int64{"1": 10, "2": 40}, 8, 50, 2, 3},
		{"bounded rounds for a tree that never settles", [][]string{{"1"}, {"1", "2"}, {"1", "3"}, {"1", "4"}, {"1", "5"}},
			map[string]int64{"1": 10, "2": 7, "3": 7, "4": 7, "5": 7}, 3, 17, 3, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lists := 0
			list := func() ([]string, error) {
				l := tc.listings[min(lists, len(tc.listings)-1)]
				lists++
				return l, nil
			}
			read := func(name string) (int64, bool) { n, ok := tc.mem[name]; return n, ok }
			got, procs, err := walkTree(list, read, tc.rounds)
			if err != nil || got != tc.want || procs != tc.wantProcs || lists != tc.wantLists {
				t.Errorf("walkTree = %d, %d procs, %v after %d listings; want %d, %d procs after %d",
					got, procs, err, lists, tc.want, tc.wantProcs, tc.wantLists)
			}
		})
	}
	t.Run("a first listing that fails fails the count", func(t *testing.T) {
		_, _, err := walkTree(func() ([]string, error) { return nil, errors.New("gone") },
			func(string) (int64, bool) { return 0, false }, 8)
		if err == nil {
			t.Error("walkTree succeeded without a listing")
		}
	})
}
