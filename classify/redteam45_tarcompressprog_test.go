package classify

import (
	"os"
	"path/filepath"
	"testing"
)

// TestRedteam45TarCompressProgCluster: tar -I PROG (--use-compress-program)
// runs PROG to decompress; tar splits PROG into words, so `sh -c "CMD" x`
// runs CMD. The classifier knows `tar -I 'PROG'` as a separate word
// (forbidden), but execOptions (escapes.go: "tar" lists {"-I", ""};
// runExecOptions matches only a word equal to "-I" or starting "-I=")
// misses every other way getopt and tar's old-style options give -I its
// value:
//
//   - attached in a cluster: `tar -xvI'sh -c "rm -rf ~" x' -f x.tar`;
//   - ending a cluster, value in the next word: `tar -xI 'PROG' -f x.tar`;
//   - attached after the archive: `tar -xf x.tar -I'PROG'`;
//   - old-style bundled letters, values in order: `tar xIf 'PROG' x.tar`.
//
// Each runs rm -rf ~ and is judged sandboxed.
//
// Severity: high (a forbidden command judged sandboxed).
// Found by red-team round 45 (high). Fixed: a short option is
// found in a cluster or attached, as getopt reads it (shortInCluster with
// tar's value letters), and tar's old-style first word is read as its
// options (tarOldStyle).
func TestRedteam45TarCompressProgCluster(t *testing.T) {
	setup := func(t *testing.T, dir string) {
		if err := os.WriteFile(filepath.Join(dir, "f"), []byte("hi\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		rt44bRun(t, dir, "tar", "cf", "x.tar", "f")
	}
	prog := `sh -c "CMD" x`
	rt44bCheck(t, []rt44bCase{
		{argv: []string{"tar", "-xvI" + prog, "-f", "x.tar"}, setup: setup},
		{argv: []string{"tar", "-xI", prog, "-f", "x.tar"}, setup: setup},
		{argv: []string{"tar", "-xf", "x.tar", "-I" + prog}, setup: setup},
		{argv: []string{"tar", "xIf", prog, "x.tar"}, setup: setup},
	}, Forbidden)
	// Control: ordinary extractions stay below escalated.
	for _, l := range []string{"tar -xzvf x.tgz", "tar -xI zstd -f x.tar.zst", "tar xJf x.tar.xz -C out"} {
		if r := Default().ClassifyShell("bash", l); r.Decision > Sandboxed {
			t.Errorf("control: %q = %s (%s), want at most sandboxed", l, r.Decision, r.Rule)
		}
	}
}
