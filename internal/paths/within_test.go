package paths

import "testing"

func TestWithin(t *testing.T) {
	for _, c := range []struct {
		p, base string
		want    bool
	}{
		{"/a/b", "/a/b", true},
		{"/a/b/c", "/a/b", true},
		{"/a/bc", "/a/b", false},
		{"/a", "/a/b", false},
		{"/", "/", true},
		{"/anything", "/", true},
		{"/a/b", "/a/b/", false}, // not clean: never below
		{"/ab", "/a", false},
	} {
		if got := Within(c.p, c.base); got != c.want {
			t.Errorf("Within(%q, %q) = %v, want %v", c.p, c.base, got, c.want)
		}
	}
	var sink bool
	if n := testing.AllocsPerRun(100, func() { sink = Within("/home/user/project/src/main.go", "/home/user/project") }); n != 0 || !sink {
		t.Errorf("Within allocates %v times", n)
	}
}
