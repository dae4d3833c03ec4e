//go:build linux

package linux

import (
	"slices"
	"testing"
)

// TestSeccompFilterAhead: the filter built ahead serves only the options it
// was built for; any other options get a filter of their own, the same one
// buildSeccomp makes for them.
func TestSeccompFilterAhead(t *testing.T) {
	saved := ahead
	t.Cleanup(func() { ahead = saved })
	guess := defaultSeccompOptions()
	built, err := buildSeccomp(guess)
	if err != nil {
		t.Fatal(err)
	}
	ahead.opts, ahead.filter = guess, built

	got, err := seccompFilter(guess)
	if err != nil {
		t.Fatal(err)
	}
	if &got[0] != &built[0] {
		t.Error("the filter built ahead was not used for the options it was built for")
	}
	for _, o := range []seccompOptions{
		{allowUnix: !guess.allowUnix, dataLimit: true},
		{allowUnix: guess.allowUnix},
		{allowUnix: guess.allowUnix, dataLimit: true, callerTerminal: true},
		{allowUnix: guess.allowUnix, dataLimit: true, uncountedMemory: true},
		{allowUnix: guess.allowUnix, dataLimit: true, hostShared: true, streamOnly: true, keeper: 7},
	} {
		got, err := seccompFilter(o)
		if err != nil {
			t.Fatal(err)
		}
		want, err := buildSeccomp(o)
		if err != nil {
			t.Fatal(err)
		}
		if &got[0] == &built[0] {
			t.Errorf("%+v: given the filter built ahead for %+v", o, guess)
		}
		if !slices.Equal(got, want) {
			t.Errorf("%+v: the filter differs from buildSeccomp's", o)
		}
		if slices.Equal(got, built) {
			t.Errorf("%+v: the same program as the default options' (the options change nothing?)", o)
		}
	}
}
