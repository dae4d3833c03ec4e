//go:build linux

package audit

import (
	"os"
	"path/filepath"
	"testing"
)

// TestRedteam14CheckLocationLinkHop: the log's directory is reached through
// a link that lies in a directory another user owns. That user can replace
// the link at will (between checkLocation and the open, or after), yet the
// link's own directory is on the kernel's way but neither among the path's
// ancestors nor among the resolved path's, so it is never judged.
//
// Fixed: checkLocation walks the path a name at a time as the kernel does
// (traversed) and judges every directory it enters, those holding a link
// on the way included; Open judges the file it opened by its descriptor.
func TestRedteam14CheckLocationLinkHop(t *testing.T) {
	r14fLocationCases(t, func(uid, gid int, base string, mkdir func(string, os.FileMode, int) string) []r14fCase {
		return []r14fCase{
			{"control: log directory through a link in the caller's own directory", func(t *testing.T) (string, string) {
				real := mkdir("creal", 0o700, -1)
				own := mkdir("cown", 0o755, -1)
				hop := filepath.Join(own, "hop")
				if err := os.Symlink(real, hop); err != nil {
					t.Fatal(err)
				}
				logs := filepath.Join(base, "clogs")
				if err := os.Symlink(hop, logs); err != nil {
					t.Fatal(err)
				}
				return filepath.Join(logs, "a.log"), "ln -s /tmp " + own + "/new && mv -T " + own + "/new " + hop
			}, false},
			{"log directory reached through a link in another user's directory", func(t *testing.T) (string, string) {
				real := mkdir("real", 0o700, -1)
				bdir := mkdir("bdir", 0o755, uid)
				bown := mkdir("bown", 0o755, uid)
				hop := filepath.Join(bdir, "hop")
				if err := os.Symlink(real, hop); err != nil {
					t.Fatal(err)
				}
				if err := os.Lchown(hop, uid, gid); err != nil {
					t.Fatal(err)
				}
				logs := filepath.Join(base, "logs")
				if err := os.Symlink(hop, logs); err != nil {
					t.Fatal(err)
				}
				return filepath.Join(logs, "a.log"), "ln -s " + bown + " " + bdir + "/new && mv -T " + bdir + "/new " + hop
			}, true},
		}
	})
}
