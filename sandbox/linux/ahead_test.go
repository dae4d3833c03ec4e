//go:build linux

package linux

import (
	"slices"
	"testing"

	"golang.org/x/sys/unix"
)

// TestSeccompFilterAhead: the filter built ahead serves only the options it
// was built for; any other options get a filter of their own, the same one
// buildSeccomp makes for them.
func TestSeccompFilterAhead(t *testing.T) {
	saved := ahead
	t.Cleanup(func() { ahead = saved })
	ahead.filters = make(map[seccompOptions][]unix.SockFilter)
	guesses := defaultSeccompOptions()
	if len(guesses) < 2 || guesses[0] == guesses[1] {
		t.Fatalf("guesses %+v: want the cgroup's and RLIMIT_DATA's memory limit", guesses)
	}
	built := map[seccompOptions][]unix.SockFilter{}
	for _, g := range guesses {
		f, err := buildSeccomp(g)
		if err != nil {
			t.Fatal(err)
		}
		built[g], ahead.filters[g] = f, f
	}
	for _, g := range guesses {
		got, err := seccompFilter(g)
		if err != nil {
			t.Fatal(err)
		}
		if &got[0] != &built[g][0] {
			t.Errorf("%+v: the filter built ahead was not used for the options it was built for", g)
		}
	}
	base := guesses[0]
	for _, o := range []seccompOptions{
		{allowUnix: !base.allowUnix},
		{allowUnix: base.allowUnix, callerTerminal: true},
		{allowUnix: base.allowUnix, dataLimit: true, uncountedMemory: true},
		{allowUnix: base.allowUnix, dataLimit: true, hostShared: true, streamOnly: true, keeper: 7},
	} {
		got, err := seccompFilter(o)
		if err != nil {
			t.Fatal(err)
		}
		want, err := buildSeccomp(o)
		if err != nil {
			t.Fatal(err)
		}
		for g, f := range built {
			if &got[0] == &f[0] {
				t.Errorf("%+v: given the filter built ahead for %+v", o, g)
			}
			if slices.Equal(got, f) {
				t.Errorf("%+v: the same program as %+v's (the options change nothing?)", o, g)
			}
		}
		if !slices.Equal(got, want) {
			t.Errorf("%+v: the filter differs from buildSeccomp's", o)
		}
	}
}
