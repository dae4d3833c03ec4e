//go:build linux

package agentbox_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/agentbox-dev/agentbox"
)

// TestRedteam53LinkWalkTrap: a command made every later sandbox of its
// project be refused, for good, with two files and a directory the
// planner's walk for other names could not look into.
//
// The attack: one call with the project writable runs
//
//	mkdir .husky && echo x > .husky/pre-commit && ln .husky/pre-commit y
//	mkdir c; 45 times: mkdir t && mv c t/<100 chars> && mv t c
//
// .husky is a hook manager's directory, kept read-only where it exists and
// not held where missing, so the command makes it; its file now has two
// names. Every later call with the project writable keeps .husky
// read-only, finds pre-commit has another name, and looks for it through
// the whole writable root (otherNames). The walk reached the chain, whose
// path is past PATH_MAX, failed, and the plan refused the sandbox; a
// directory of the caller's it could not read (`chmod 000 trap`, as an
// unprivileged caller) did the same. The denied files' walk
// (maskOtherNames) walks every directory ever granted for writing, so
// there one trap refused other projects' calls too.
//
// Now a walk for other names leaves out what it cannot look into, and the
// plan masks it (hideOpaque), so that no command reaches a name there
// either: the deep variants put the other name of the protected file, or
// of a denied one, inside the chain or the unreadable directory, and the
// later call must neither write nor read the file through it.
//
// Severity: medium (a denial of service: every later sandbox of the
// project refused, made by one command in one call).
//
// Found by red-team round 53. Fixed: sandbox/linux/plan_links.go
// (linkWalk.opaque, maxWalkPath), plan_denylinks.go (hideOpaque).
func TestRedteam53LinkWalkTrap(t *testing.T) {
	seg := strings.Repeat("d", 100)
	const depth = 45
	// Built from the bottom up (wrap it in a new parent, depth times), so
	// that no path the shell names is long; what the bottom holds is made
	// first.
	chain := func(bottom string) string {
		return "(mkdir c && cd c && " + bottom + ") && n=0; while [ $n -lt 45 ]; do mkdir t && mv c t/" + seg + " && mv t c || exit 9; n=$((n+1)); done"
	}
	// down walks the chain one relative step at a time, as a command can.
	down := "import os\nos.chdir('c')\nfor _ in range(45): os.chdir('" + seg + "')\n"
	husky := "mkdir .husky && echo x > .husky/pre-commit && ln .husky/pre-commit y"
	cases := []struct {
		name   string
		plant  string
		deny   string // a file the later call denies (its secret is "s3cret")
		attack string // run by the later call: must neither change nor show the file
	}{
		{name: "control-link-only", plant: husky},
		{name: "deep-chain", plant: husky + " && " + chain(":")},
		{name: "unreadable-dir", plant: husky + " && mkdir trap && chmod 000 trap"},
		{name: "unreadable-dir-in-protected", plant: husky + " && mkdir .husky/t && ln y .husky/t/z && chmod 000 .husky/t"},
		{name: "deep-chain-in-protected", plant: husky + " && cd .husky && " + chain(":")},
		{name: "deep-link-to-protected", plant: husky + " && " + chain("ln ../.husky/pre-commit z"),
			attack: "python3 -c \"" + down + "open('z', 'w').write('changed')\" 2>&1; echo done"},
		{name: "unreadable-link-to-protected", plant: husky + " && mkdir trap && ln .husky/pre-commit trap/z && chmod 000 trap",
			attack: "chmod 755 trap 2>&1; echo changed 2>&1 > trap/z; echo done"},
		{name: "deep-link-to-denied", plant: "echo s3cret > token && " + chain("ln ../token z"), deny: "token",
			attack: "python3 -c \"" + down + "print(open('z').read())\" 2>&1; echo done"},
		{name: "unreadable-link-to-denied", plant: "echo s3cret > token && mkdir trap && ln token trap/z && chmod 000 trap", deny: "token",
			attack: "chmod 755 trap 2>&1; cat trap/z 2>&1; echo done"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			root := hostDir(t)
			t.Cleanup(func() {
				_ = os.Chmod(filepath.Join(root, "trap"), 0o755)
				_ = os.Chmod(filepath.Join(root, ".husky", "t"), 0o755)
			})
			m := rt50aManager(t)
			if _, errOut, code := rt50aExec(t, m, tc.plant,
				agentbox.WithWritableRoots(root), agentbox.WithWorkingDir(root)); code != 0 {
				t.Fatalf("premise: call 1 failed: %d %q", code, errOut)
			}
			target := filepath.Join(root, ".husky", "pre-commit")
			if tc.deny != "" {
				target = filepath.Join(root, tc.deny)
			}
			before, err := os.ReadFile(target)
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(tc.plant, "mv c t/") {
				rt53DeepPremise(t, root, seg, depth, target, strings.Contains(tc.plant, "ln ../"))
			}
			opts := []agentbox.Option{agentbox.WithWritableRoots(root), agentbox.WithWorkingDir(root)}
			if tc.deny != "" {
				opts = append(opts, agentbox.WithDenyRead(target))
			}
			out, errOut, code := rt50aExec(t, m, "echo LATER", opts...)
			if code != 0 || !strings.Contains(out, "LATER") {
				t.Fatalf("a later, harmless call in the project failed after the planted trap: %d %q %q", code, out, errOut)
			}
			if tc.deny == "" {
				// The link the first walk finds is held read-only.
				out, _, _ = rt50aExec(t, m, "echo changed > y && echo WROTE-Y", opts...)
				if strings.Contains(out, "WROTE-Y") {
					t.Fatalf("control: the other name of the protected hook file was writable: %q", out)
				}
			}
			if tc.attack == "" {
				return
			}
			out, _, _ = rt50aExec(t, m, tc.attack, opts...)
			t.Logf("attack: %q", out)
			if !strings.Contains(out, "done") {
				t.Fatalf("the attack did not run: %q", out)
			}
			if strings.Contains(out, "s3cret") {
				t.Errorf("the denied file was read through its other name: %q", out)
			}
			after, err := os.ReadFile(target)
			if err != nil {
				t.Fatal(err)
			}
			if string(after) != string(before) {
				t.Errorf("the protected file was written through its other name: %q -> %q (%q)", before, after, out)
			}
		})
	}
}

// rt53DeepPremise checks that the chain's end lies past PATH_MAX on the
// host and, if linked, that its z is another name of target.
func rt53DeepPremise(t *testing.T, root, seg string, depth int, target string, linked bool) {
	t.Helper()
	p := filepath.Join(root, "c")
	for range depth {
		p = filepath.Join(p, seg)
	}
	if len(p) <= unix.PathMax {
		t.Fatalf("premise: chain %d bytes", len(p))
	}
	if _, err := os.ReadDir(p); err == nil || !strings.Contains(err.Error(), "file name too long") {
		t.Fatalf("premise: the chain's end is not past PATH_MAX: %v", err)
	}
	if !linked {
		return
	}
	fd, err := unix.Open(filepath.Join(root, "c"), unix.O_PATH|unix.O_DIRECTORY, 0)
	if err != nil {
		t.Fatal(err)
	}
	for range depth {
		next, err := unix.Openat(fd, seg, unix.O_PATH|unix.O_DIRECTORY, 0)
		unix.Close(fd)
		if err != nil {
			t.Fatal(err)
		}
		fd = next
	}
	defer unix.Close(fd)
	var deep, want unix.Stat_t
	if err := unix.Fstatat(fd, "z", &deep, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		t.Fatalf("premise: no z at the chain's end: %v", err)
	}
	if err := unix.Stat(target, &want); err != nil {
		t.Fatal(err)
	}
	if deep.Ino != want.Ino || deep.Dev != want.Dev {
		t.Fatalf("premise: z is not another name of %s", target)
	}
}
