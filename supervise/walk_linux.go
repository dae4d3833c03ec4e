//go:build linux

package supervise

// walkRounds bounds the listings of the sandbox's /proc in one count: the
// first walk and the relistings that follow it (walkTree).
const walkRounds = 16

// procRead reads the memory of the process name (ok false: gone before
// its read) and, where its value depends on which processes share its
// pages (the exact count's proportional shares), the name of its parent,
// whose share a new child changes.
type procRead func(name string) (n int64, parent string, ok bool)

// walkTree counts the memory of the processes list names, reading each
// with read, and returns the sum and the number of processes it counts.
//
// One listing then one read per process loses memory that moves between
// processes during the walk: a process that forks a child (which
// inherits its memory) and exits at once keeps its memory, at every
// instant, in a process the listing did not have yet or one that is gone
// when the walk reaches it (TestRedteam30MonitorMissesForkHoppingMemory).
// So after the first walk the tree is listed again and the pids not read
// yet are read right after the listing, until a listing adds none: a
// settled tree costs one more readdir.
//
// Each listing gives one sum, and the count is the largest: what the
// processes of the first walk that the listing still shows held, and what
// the processes it first shows held, read just after it. A process an
// earlier relisting added counts only if reread is true, read again: a
// hopping process has passed its memory to a child since. An exact count
// (reread false) leaves such processes out: a proportional share read
// while a parent had fewer children is more than the share now, and its
// children come and go every few milliseconds, so reading a round's worth
// of them again still summed shares of different moments. For the same
// reason a first-walk parent of a process a relisting adds is read again
// in that round: read before the child was born, it held the pages they
// now share whole. Both counted a 220 MiB server recycling forked
// workers past 256 MiB (TestRedteam32MonitorFalseKillForkingServer). The
// rest of the first walk (a large settled tree) is read once.
//
// Both sums tried before failed: summing every read of the walk counted
// one hopping process once per round (a tree well within its limit
// killed); taking away, from what the relistings added, what processes
// counted and since gone had held, whichever process either was, let six
// hopping chains caught in different rounds cancel one another out (450
// MiB held for seconds under a 256 MiB limit, counted as 160; CI).
//
// A tree that never stops making processes (a build, a hopping chain)
// reaches the bound of rounds.
func walkTree(list func() ([]string, error), read procRead, rounds int, reread bool) (int64, int, error) {
	first := map[string]int64{} // read in the first walk; refreshed as a parent
	later := map[string]bool{}  // added by a relisting, and not yet seen gone
	tried := map[string]bool{}
	var best int64
	bestProcs := 0
	for round := 0; round < rounds; round++ {
		names, err := list()
		if err != nil {
			if round == 0 {
				return 0, 0, err
			}
			break
		}
		listed := make(map[string]bool, len(names))
		now := map[string]int64{} // read in this round
		var parents []string
		added := false
		for _, name := range names {
			if !isPidName(name) {
				continue
			}
			listed[name] = true
			if tried[name] && !(reread && later[name]) {
				continue
			}
			added = added || !tried[name]
			tried[name] = true
			n, parent, ok := read(name)
			switch {
			case !ok:
				delete(later, name)
			case round == 0:
				first[name] = n
			default:
				later[name] = true
				now[name] = n
				parents = append(parents, parent)
			}
		}
		refreshed := map[string]bool{}
		for _, p := range parents {
			if _, ok := first[p]; ok && listed[p] && !refreshed[p] {
				refreshed[p] = true
				if n, _, ok := read(p); ok {
					first[p] = n
				}
			}
		}
		var sum int64
		procs := len(now)
		for _, n := range now {
			sum += n
		}
		for name, n := range first {
			if listed[name] {
				sum += n
				procs++
			}
		}
		if round == 0 || sum > best {
			best, bestProcs = sum, procs
		}
		if !added {
			break
		}
	}
	return best, bestProcs, nil
}

// isPidName reports whether a name in /proc is a process's.
func isPidName(name string) bool {
	return name != "" && name[0] >= '1' && name[0] <= '9'
}
