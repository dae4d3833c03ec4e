//go:build linux

package supervise

// walkRounds bounds the listings of the sandbox's /proc in one count: the
// first walk and the relistings that follow it (walkTree).
const walkRounds = 8

// walkTree counts the memory of the processes list names, reading each
// with read (ok false: gone before its read), and returns the sum and the
// number of processes it counts.
//
// One listing then one read per process loses memory that moves between
// processes during the walk: a process that forks a child (which
// inherits its memory) and exits at once keeps its memory, at every
// instant, in a process the listing did not have yet or one that is gone
// when the walk reaches it (TestRedteam30MonitorMissesForkHoppingMemory).
// So after a walk the tree is listed again and the pids not read yet are
// read right after the listing, until a listing adds none: a settled
// tree costs one more readdir.
//
// Each listing gives one sum: what the processes it shows held when
// read (each process is read once, in the round whose listing first
// showed it), and the count is the largest of these sums. A process that
// has exited no longer counts once a listing no longer shows it, so
// memory a process passed to its child before exiting counts once in a
// round's sum, in the child's read. Summing every read of the walk
// instead counted one hopping process once per round (a tree well within
// its limit killed); taking away, from what the relistings added, what
// the processes counted before and since gone had held (gone against
// fresh, whichever process either was) let six hopping chains each
// caught in some round cancel one another out, leaving only the last
// round's catch: 450 MiB held for seconds under a 256 MiB limit, seen at
// counts of 160 MiB (CI).
//
// A tree that never stops making processes (a build, a hopping chain)
// reaches the bound of rounds.
func walkTree(list func() ([]string, error), read func(name string) (int64, bool), rounds int) (int64, int, error) {
	held := map[string]int64{} // read, with what it held (gone: absent)
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
		var sum int64
		procs := 0
		added := false
		for _, name := range names {
			if !isPidName(name) {
				continue
			}
			if !tried[name] {
				tried[name], added = true, true
				if n, ok := read(name); ok {
					held[name] = n
				}
			}
			if n, ok := held[name]; ok {
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
