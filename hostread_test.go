//go:build unix

package agentbox

import (
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestHostRead: the host-side reads of files a command may have shaped
// (readNoFollow, readFollow, scanAccess.read beneath the root) return a
// small regular file and refuse, without blocking and without reading, a
// FIFO, a socket, a file larger than hostReadMax (a sparse one of 64 GiB
// costs the command nothing) and, but for readFollow, a symbolic link.
func TestHostRead(t *testing.T) {
	dir := t.TempDir()
	mk := map[string]func(p string) error{
		"normal": func(p string) error { return os.WriteFile(p, []byte("[core]\n\tbare = false\n"), 0o600) },
		"limit":  func(p string) error { return os.WriteFile(p, make([]byte, hostReadMax), 0o600) },
		"fifo":   func(p string) error { return syscall.Mkfifo(p, 0o600) },
		"socket": func(p string) error {
			l, err := net.Listen("unix", p)
			if err == nil {
				t.Cleanup(func() { l.Close() })
			}
			return err
		},
		"sparse": func(p string) error {
			f, err := os.Create(p)
			if err != nil {
				return err
			}
			defer f.Close()
			return f.Truncate(64 << 30)
		},
		"link":     func(p string) error { return os.Symlink("normal", p) },
		"linkfifo": func(p string) error { return os.Symlink("fifo", p) },
		"dir":      func(p string) error { return os.Mkdir(p, 0o700) },
	}
	for _, name := range []string{"normal", "limit", "fifo", "socket", "sparse", "link", "linkfifo", "dir"} {
		if err := mk[name](filepath.Join(dir, name)); err != nil {
			t.Skipf("making the %s: %v", name, err)
		}
	}
	access := &scanAccess{root: dir}
	defer access.restore()
	readers := map[string]func(string) ([]byte, error){
		"readNoFollow": readNoFollow, "readFollow": readFollow, "scanAccess.read": access.read,
	}
	for _, tt := range []struct {
		name   string
		size   int   // of what is read, when it is
		err    error // wanted, when nil is not
		follow bool  // readFollow reads it (as the normal file / refuses as the fifo)
	}{
		{name: "normal", size: 21},
		{name: "limit", size: hostReadMax},
		{name: "fifo", err: errNotRegular},
		{name: "socket"}, // ENXIO on open, or not regular
		{name: "sparse", err: errTooLarge},
		{name: "dir"},
		{name: "link", follow: true, size: 21},
		{name: "linkfifo"},
	} {
		for rname, read := range readers {
			t.Run(tt.name+"/"+rname, func(t *testing.T) {
				done := make(chan struct{})
				var b []byte
				var err error
				go func() { b, err = read(filepath.Join(dir, tt.name)); close(done) }()
				select {
				case <-done:
				case <-time.After(10 * time.Second):
					t.Fatalf("%s blocked on the %s", rname, tt.name)
				}
				wantRead := tt.size > 0 && (!tt.follow || rname == "readFollow")
				switch {
				case wantRead && (err != nil || len(b) != tt.size):
					t.Errorf("got %d bytes, %v; want %d bytes", len(b), err, tt.size)
				case !wantRead && err == nil:
					t.Errorf("read %d bytes of the %s; want an error", len(b), tt.name)
				case !wantRead && tt.err != nil && !errors.Is(err, tt.err):
					t.Errorf("error %v; want %v", err, tt.err)
				}
			})
		}
	}
}

// TestClipDetail: a Detail built from a file's content keeps its start.
func TestClipDetail(t *testing.T) {
	for _, tt := range []struct {
		in      string
		want    string // the start kept
		clipped bool
	}{
		{in: "core.fsmonitor", want: "core.fsmonitor"},
		{in: strings.Repeat("x", detailMax), want: strings.Repeat("x", detailMax)},
		{in: strings.Repeat("\x00", 1<<20), want: strings.Repeat("\x00", detailMax), clipped: true},
		{in: "a" + strings.Repeat("é", detailMax), want: "a" + strings.Repeat("é", (detailMax-1)/2), clipped: true},
	} {
		got := clipDetail(tt.in)
		if !strings.HasPrefix(got, tt.want) || len(got) > detailMax+40 || (got != tt.in) != tt.clipped {
			t.Errorf("clipDetail(%d bytes) = %q…", len(tt.in), got[:min(len(got), 20)])
		}
		if tt.clipped && (got[len(tt.want)] != "…"[0] || !strings.Contains(got, "bytes in all")) {
			t.Errorf("clipDetail(%d bytes) has no marker after the kept start", len(tt.in))
		}
	}
}
