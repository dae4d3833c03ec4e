//go:build linux

package supervise

// walkRounds bounds the listings of the sandbox's /proc in one count: the
// first walk and the relistings that follow it (walkTree).
const walkRounds = 8

// walkTree counts the memory of the processes list names, reading each
// with read (ok false: gone before its read), and returns the sum and the
// number of processes read.
//
// One listing then one read per process loses memory that moves between
// processes during the walk: a process that forks a child (which
// inherits its memory) and exits at once keeps its memory, at every
// instant, in a process the listing did not have yet or one that is gone
// when the walk reaches it (TestRedteam30MonitorMissesForkHoppingMemory).
// So after a walk the tree is listed again and the pids not read yet are
// read, until a listing adds none: a settled tree costs one more readdir.
//
// A process counted in one round may have passed its memory to a child
// that a later round counts again. So, of what the relistings add
// (fresh), as much is taken away as the counted processes that a later
// listing no longer shows held (gone): an exited process's memory is
// either freed or in such a child, never both held and gone. The sum
// stays at or above what the processes still listed hold.
//
// A tree that never stops making processes (a build, a hopping chain)
// reaches walkRounds. Its last round reads the pids the last listing
// added right after that listing, so what a hop can carry past it is
// what moves in that short round: counting more there (the fresh value
// again for each pid gone before its read) killed a hopping tree well
// within its limit, since a hopping tree reaches the bound at every
// count; the relistings before it are what catch the hop.
func walkTree(list func() ([]string, error), read func(name string) (int64, bool), rounds int) (int64, int, error) {
	tried := map[string]bool{}
	counted := map[string]int64{} // counted, and shown by the last listing
	var total, fresh, gone int64
	procs := 0
	for round := 0; round < rounds; round++ {
		names, err := list()
		if err != nil {
			if round == 0 {
				return 0, 0, err
			}
			break
		}
		listed := make(map[string]bool, len(names))
		added := false
		for _, name := range names {
			if !isPidName(name) {
				continue
			}
			listed[name] = true
			if tried[name] {
				continue
			}
			tried[name], added = true, true
			n, ok := read(name)
			if !ok {
				continue // gone: its memory, if passed on, is in a newer pid
			}
			procs++
			counted[name] = n
			total += n
			if round > 0 {
				fresh += n
			}
		}
		for name, n := range counted {
			if !listed[name] {
				gone += n
				delete(counted, name)
			}
		}
		if !added {
			break
		}
	}
	return total - min(gone, fresh), procs, nil
}

// isPidName reports whether a name in /proc is a process's.
func isPidName(name string) bool {
	return name != "" && name[0] >= '1' && name[0] <= '9'
}
