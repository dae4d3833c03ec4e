//go:build linux

package linux

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/agentbox-dev/agentbox/internal/paths"
	"github.com/agentbox-dev/agentbox/sandbox"
)

// TestReducedPlanHidesHostPrivateAreas checks that the reduced tier, which
// has the host's /tmp, /dev/shm and /run where the full tier has private
// mounts, withholds them from Landlock, and keeps what the full tier
// shows there (a working directory in /tmp, the resolver's file in /run)
// and its own TMPDIR.
func TestReducedPlanHidesHostPrivateAreas(t *testing.T) {
	base := hostTempDir(t)
	w := filepath.Join(base, "work")
	if err := os.MkdirAll(w, 0o755); err != nil {
		t.Fatal(err)
	}
	inTmp, err := os.MkdirTemp("/tmp", "agentbox-test-visible-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(inTmp) })
	resolv, err := filepath.EvalSymlinks("/etc/resolv.conf")
	resolvInRun := err == nil && paths.Within(resolv, "/run")

	tests := []struct {
		name      string
		fs        sandbox.Filesystem
		hidden    []string
		read      []string // among the read roots
		notRead   []string // not among them
		readOnly  bool     // the read allow-list is in force
		writeRoot string   // among the writable roots
	}{
		{name: "default", fs: sandbox.Filesystem{Writable: []string{w}},
			hidden: []string{"/tmp", "/dev/shm", "/run"}, read: []string{"/"}, writeRoot: w},
		{name: "working directory in /tmp", fs: sandbox.Filesystem{Writable: []string{w}, Visible: []string{inTmp}},
			hidden: []string{"/tmp", "/dev/shm", "/run"}, read: []string{"/", inTmp}, writeRoot: w},
		{name: "read allow-list", fs: sandbox.Filesystem{Writable: []string{w}, Read: []string{"/usr", inTmp}},
			hidden: []string{"/tmp", "/dev/shm", "/run"}, read: []string{"/usr", inTmp, "/tmp"}, notRead: []string{"/"}, readOnly: true},
		{name: "writable root in /tmp", fs: sandbox.Filesystem{Writable: []string{inTmp}},
			hidden: []string{"/tmp", "/dev/shm", "/run"}, notRead: []string{inTmp}, writeRoot: inTmp},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pl, err := buildReducedPlan(&sandbox.Spec{Filesystem: tc.fs}, "test")
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { os.RemoveAll(pl.tmpDir) })
			ll := pl.init.Landlock
			if !slices.Equal(ll.Hidden, tc.hidden) {
				t.Errorf("hidden %q, want %q", ll.Hidden, tc.hidden)
			}
			for _, r := range tc.read {
				if !slices.Contains(ll.ReadRoots, r) {
					t.Errorf("read roots %q lack %s", ll.ReadRoots, r)
				}
			}
			for _, r := range tc.notRead {
				if slices.Contains(ll.ReadRoots, r) {
					t.Errorf("read roots %q hold %s", ll.ReadRoots, r)
				}
			}
			if resolvInRun && !slices.Contains(ll.ReadRoots, resolv) {
				t.Errorf("read roots %q lack the resolver's file %s", ll.ReadRoots, resolv)
			}
			// The tier's own TMPDIR, wherever it lies, is a writable root.
			for _, wr := range []string{pl.tmpDir, tc.writeRoot} {
				if wr != "" && !slices.Contains(ll.WriteRoots, wr) {
					t.Errorf("writable roots %q lack %s", ll.WriteRoots, wr)
				}
			}
			for _, a := range []string{"/tmp", "/dev/shm"} {
				if slices.Contains(ll.WriteRoots, a) {
					t.Errorf("the host's %s is a writable root: %q", a, ll.WriteRoots)
				}
			}
		})
	}
}

// TestLandlockCoverHidden checks how the read grant walks around denied
// and hidden paths: a hidden area is never granted from a root above it,
// a root inside it is, and a denied path wins inside it too.
func TestLandlockCoverHidden(t *testing.T) {
	b := &llBuilder{deny: []string{"/home/u/.ssh", "/tmp/home/.ssh"}, hidden: []string{"/dev/shm", "/run", "/tmp"}}
	tests := []struct {
		p          string
		skip, walk bool
	}{
		{"/", false, true},
		{"/usr", false, false},
		{"/dev", false, true},
		{"/dev/shm", true, false},
		{"/tmp", true, false},
		{"/run", true, false},
		{"/runner", false, false},
		{"/tmp/work", false, false},
		{"/tmp/home", false, true},
		{"/tmp/home/.ssh", true, false},
		{"/run/systemd/resolve/stub-resolv.conf", false, false},
		{"/home/u", false, true},
		{"/home/u/.ssh/id_ed25519", true, false},
	}
	for _, tc := range tests {
		if skip, walk := b.judge(tc.p); skip != tc.skip || walk != tc.walk {
			t.Errorf("%s: skip %v walk %v, want %v %v", tc.p, skip, walk, tc.skip, tc.walk)
		}
	}
}

func TestPrivateTmpEnv(t *testing.T) {
	const tmp = "/var/tmp/agentbox-tmp-1"
	tests := []struct {
		name string
		env  []string
		want []string
	}{
		{"none", []string{"PATH=/usr/bin"}, []string{"PATH=/usr/bin", "TMPDIR=" + tmp}},
		{"the full tier's /tmp", []string{"TMPDIR=/tmp", "HOME=/h"}, []string{"HOME=/h", "TMPDIR=" + tmp}},
		{"twice", []string{"TMPDIR=/tmp", "TMPDIR=/dev/shm/x"}, []string{"TMPDIR=" + tmp}},
		{"in /run", []string{"TMPDIR=/run/user/1000/"}, []string{"TMPDIR=" + tmp}},
		{"empty", []string{"TMPDIR="}, []string{"TMPDIR=" + tmp}},
		{"the caller's own", []string{"TMPDIR=/work/tmp"}, []string{"TMPDIR=/work/tmp"}},
		{"a name that only starts alike", []string{"TMPDIRS=/tmp"}, []string{"TMPDIRS=/tmp", "TMPDIR=" + tmp}},
		{"caches of a home without them", []string{"TMPDIR=/tmp", "XDG_CACHE_HOME=/tmp/.cache", "npm_config_cache=/tmp/.npm"},
			[]string{"XDG_CACHE_HOME=" + tmp + "/.cache", "npm_config_cache=" + tmp + "/.npm", "TMPDIR=" + tmp}},
		{"caches elsewhere", []string{"XDG_CACHE_HOME=/work/c", "npm_config_cache=/tmpx/n", "GOCACHE=/tmp/g"},
			[]string{"XDG_CACHE_HOME=/work/c", "npm_config_cache=/tmpx/n", "GOCACHE=/tmp/g", "TMPDIR=" + tmp}},
	}
	for _, tc := range tests {
		env := slices.Clone(tc.env)
		if got := privateTmpEnv(env, tmp); !slices.Equal(got, tc.want) {
			t.Errorf("%s: got %q, want %q", tc.name, got, tc.want)
		}
		if !slices.Equal(env, tc.env) {
			t.Errorf("%s: the caller's environment changed: %q", tc.name, env)
		}
	}
}
