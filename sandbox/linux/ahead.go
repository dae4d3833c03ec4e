//go:build linux

package linux

import "golang.org/x/sys/unix"

// ahead holds what an init prepared before its spec came, in the time it
// waits (prepareAhead): work that depends on no spec, or on a guess of it
// that is checked when the spec is there. Set before the spec is read, by
// the init's main goroutine, and read only after.
var ahead struct {
	threads bool // watchSpareThreads idle OS threads are started
	// filters are the seccomp filters built for the likely options.
	filters map[seccompOptions][]unix.SockFilter
}

// prepareAhead does, in an init cloned into namespaces of its own before
// its spec comes, the work a start would otherwise do after: starting the
// spare OS threads of the mount watch (about 0.4 ms here), bringing up
// the network namespace's loopback interface (0.1 ms), and building the
// seccomp filters of the default policy (about 0.05 ms each). None of it grants
// anything: the threads are the init's, the loopback interface is the
// one setUpNetwork brings up in every namespace of its own (in the host's,
// where it is up already, nothing is done), and a filter is used only for
// the very options it was built for (seccompFilter).
func prepareAhead() {
	spareThreads(watchSpareThreads)
	ahead.threads = true
	_ = loopbackUp() // failing here, it fails again, and is reported, in setUpNetwork
	ahead.filters = make(map[seccompOptions][]unix.SockFilter)
	for _, o := range defaultSeccompOptions() {
		if f, err := buildSeccomp(o); err == nil {
			ahead.filters[o] = f
		}
	}
}

// defaultSeccompOptions are the filter's options for the default policy's
// sandbox, started by a library caller with pipes for streams: unix
// sockets confined by Landlock where its ABI can (9 and later), refused
// otherwise; the memory limit a memory cgroup enforces (root's, or a
// delegated one: the spec then asks no RLIMIT_DATA), or RLIMIT_DATA
// (an ordinary user's without delegation).
func defaultSeccompOptions() []seccompOptions {
	confined := LandlockABI() >= 9
	return []seccompOptions{{allowUnix: confined}, {allowUnix: confined, dataLimit: true}}
}

// seccompFilter returns the filter for o: one built ahead for the same
// options, else a new one.
func seccompFilter(o seccompOptions) ([]unix.SockFilter, error) {
	if f, ok := ahead.filters[o]; ok {
		return f, nil
	}
	return buildSeccomp(o)
}
