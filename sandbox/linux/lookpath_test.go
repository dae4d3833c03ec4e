//go:build linux

package linux

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

// TestLookPath: names are found as a shell in the working directory would
// find them, relative names and relative PATH entries included.
func TestLookPath(t *testing.T) {
	wd := t.TempDir()
	for _, f := range []struct {
		name string
		mode os.FileMode
	}{{"run.sh", 0o755}, {"bin/tool", 0o755}, {"data.txt", 0o644}, {"sub/run.sh", 0o755}} {
		p := filepath.Join(wd, f.name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("#!/bin/sh\n"), f.mode); err != nil {
			t.Fatal(err)
		}
	}
	path := func(v string) []string { return []string{"PATH=" + v} }
	sh := "" // where the default PATH finds sh on this machine
	for _, d := range []string{"/usr/local/bin", "/usr/bin", "/bin"} {
		if _, err := os.Stat(d + "/sh"); err == nil {
			sh = d + "/sh"
			break
		}
	}
	for _, c := range []struct {
		name, file string
		env        []string
		want       string // "" with errno set: refused
		errno      error
	}{
		{"dot slash", "./run.sh", nil, filepath.Join(wd, "run.sh"), nil},
		{"relative with a slash", "sub/run.sh", nil, filepath.Join(wd, "sub/run.sh"), nil},
		{"parent", "../" + filepath.Base(wd) + "/run.sh", nil, filepath.Join(wd, "run.sh"), nil},
		{"absolute", filepath.Join(wd, "run.sh"), nil, filepath.Join(wd, "run.sh"), nil},
		{"system command", "sh", nil, sh, nil},
		{"relative PATH entry", "tool", path("bin:/usr/bin"), filepath.Join(wd, "bin/tool"), nil},
		{"empty PATH entry is the working directory", "run.sh", path("/usr/bin:"), filepath.Join(wd, "run.sh"), nil},
		{"not on PATH", "run.sh", nil, "", unix.ENOENT},
		{"relative and missing", "./nope", nil, "", unix.ENOENT},
		{"not executable", "./data.txt", nil, "", unix.EACCES},
		{"a directory", "./bin", nil, "", unix.EACCES},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := lookPath(c.file, wd, c.env)
			if c.errno != nil {
				if !errors.Is(err, c.errno) {
					t.Fatalf("lookPath(%q) = %q, %v; want %v", c.file, got, err, c.errno)
				}
				return
			}
			if err != nil || got != c.want {
				t.Fatalf("lookPath(%q) = %q, %v; want %q", c.file, got, err, c.want)
			}
		})
	}
}
