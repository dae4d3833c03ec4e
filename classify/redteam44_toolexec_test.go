package classify

import (
	"os"
	"path/filepath"
	"testing"
)

// rt44bWrite writes name under dir.
func rt44bWrite(t *testing.T, dir, name, text string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestRedteam44ToolExec: programs that run a command they are handed,
// judged sandboxed while the command is rm -rf ~:
//
//   - tar -xf x.tar --to-c='CMD': --to-command abbreviated (unique among
//     tar's options; --to-command= itself is followed). The README says
//     long options count when abbreviated.
//   - split --filter='CMD' f: split runs the filter with $SHELL -c for
//     each piece.
//   - go run -exec 'sh -c "CMD"' . and go test -exec …: go runs the
//     built binary through the -exec program (split with quotes);
//     go build -toolexec … runs every compiler tool through it.
//   - gcc -wrapper sh,-c,CMD x.c: gcc runs each subprocess through the
//     wrapper.
//   - vim -es -c 'call system("CMD")': vim's system() (vim -c '!CMD' is
//     followed).
//
// Found by red-team round 44 (medium: forbidden commands through everyday
// build and text tools). Fixed: tar's long options by any abbreviation
// (longAbbrev), split --filter, go -exec/-toolexec and gcc -wrapper are
// commands (execOptions); later (next stop) vim's ex commands are read for
// system() and the like, :read !, :write !, :terminal and :!cmd after a |
// (vimEx).
func TestRedteam44ToolExec(t *testing.T) {
	goMod := func(t *testing.T, dir string) {
		rt44bWrite(t, dir, "go.mod", "module x\n\ngo 1.20\n")
		rt44bWrite(t, dir, "main.go", "package main\n\nfunc main() {}\n")
		rt44bWrite(t, dir, "main_test.go", "package main\n\nimport \"testing\"\n\nfunc TestX(t *testing.T) {}\n")
	}
	rt44bCheck(t, []rt44bCase{
		{argv: []string{"tar", "-xf", "x.tar", "--to-c=CMD"}, setup: func(t *testing.T, dir string) {
			rt44bWrite(t, dir, "f", "hi\n")
			rt44bRun(t, dir, "tar", "-cf", "x.tar", "f")
		}},
		{argv: []string{"split", "--filter=CMD", "f"}, setup: func(t *testing.T, dir string) { rt44bWrite(t, dir, "f", "hi\n") }},
		{argv: []string{"go", "run", "-exec", `sh -c "CMD"`, "."}, setup: goMod},
		{argv: []string{"go", "test", "-exec", `sh -c "CMD"`, "."}, setup: goMod},
		{argv: []string{"go", "build", "-a", "-toolexec", `sh -c "CMD"`, "."}, setup: goMod},
		{argv: []string{"gcc", "-wrapper", "sh,-c,CMD", "x.c"}, setup: func(t *testing.T, dir string) { rt44bWrite(t, dir, "x.c", "int main(){return 0;}\n") }},
	}, Escalated)
	rt44bCheck(t, []rt44bCase{
		{argv: []string{"vim", "-es", "-c", `call system("CMD")`, "-c", "qa!"}},
		{argv: []string{"vim", "-es", "-c", "r !CMD", "-c", "qa!"}},
		{argv: []string{"vim", "-es", "-c", "set nomore | r !CMD", "-c", "qa!"}},
		{argv: []string{"vim", "-es", "-c", "w !CMD", "-c", "qa!"}},
		{argv: []string{"vim", "-es", "+silent !CMD", "+qa!"}},
		{argv: []string{"vim", "-es", "-c", `call job_start(["sh", "-c", "CMD"])`, "-c", "sleep 2", "-c", "qa!"}},
	}, Forbidden)
}
