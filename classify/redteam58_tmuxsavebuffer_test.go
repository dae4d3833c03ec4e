package classify

import (
	"os"
	"path/filepath"
	"testing"
)

// TestRedteam58TmuxSaveBuffer: tmux save-buffer (saveb) [-a] PATH writes a
// paste buffer to a file, and set-buffer puts any text in one. Neither
// the file nor its text is judged, so
//
//	tmux new -d -s t; tmux set-buffer 'rm -rf ~/.ssh'; tmux save-buffer ~/.bashrc; tmux kill-server   sandboxed
//	tmux save-buffer /etc/hosts         sandboxed
//	tmux saveb -a /etc/hosts            sandboxed
//
// put `rm -rf ~/.ssh` in ~/.bashrc (run by the user's next interactive
// bash, outside any sandbox) or write a system file, as `echo 'rm -rf
// ~/.ssh' >> ~/.bashrc` and `echo x > /etc/hosts` (forbidden) are judged.
//
// Why: tmux.go follows the tmux commands that run shell commands
// (new, send-keys, run-shell, if-shell, pipe-pane …), and load-buffer of
// a key is caught by its path, but save-buffer is not a write
// (writetargets.go has no tmux entry), nor is the text set-buffer stores
// tracked.
//
// Severity: high (a system file written and an rc file planted, judged
// sandboxed).
// Found by red-team round 58.
// Fixed: tmux.go: save-buffer (saveb, any unique prefix) is a tmux command
// of kind 'w', a write of the buffer (text the line does not follow)
// through sessionlogs.go toolWrite, as a redirection of the tmux command.
func TestRedteam58TmuxSaveBuffer(t *testing.T) {
	rt58aNeed(t, "tmux", "bash", "tmux")
	plant := `tmux new -d -s t; tmux set-buffer 'rm -rf ~/.ssh'; tmux save-buffer ~/.bashrc; tmux kill-server`
	home, work := rt58aHome(t)
	if err := os.WriteFile(filepath.Join(home, ".bashrc"), []byte("echo rc\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := rt58aRun(t, home, work, plant)
	out += rt58aRun(t, home, work, `bash -ic true`)
	if !rt58aGone(home) {
		b, _ := os.ReadFile(filepath.Join(home, ".bashrc"))
		t.Fatalf("premise: %q then bash -i did not remove ~/.ssh (.bashrc %q, output %q)", plant, b, out)
	}
	home, work = rt58aHome(t)
	f := filepath.Join(work, "hosts")
	if err := os.WriteFile(f, []byte("127.0.0.1 localhost\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	rt58aRun(t, home, work, `tmux new -d -s t; tmux set-buffer x; tmux save-buffer hosts; tmux kill-server`)
	if b, _ := os.ReadFile(f); string(b) != "x" {
		t.Fatalf("premise: tmux save-buffer did not overwrite its file (now %q)", b)
	}
	// References.
	rtAtLeast(t, []string{"bash"}, `echo 'rm -rf ~/.ssh' >> ~/.bashrc`, Forbidden)
	rtAtLeast(t, []string{"bash"}, `echo x > /etc/hosts`, Forbidden)
	rtAtLeast(t, []string{"bash"}, `tmux load-buffer ~/.ssh/id_rsa`, Escalated)
	// The attack.
	rtAtLeast(t, []string{"bash", "sh"}, plant, Escalated)
	rtAtLeast(t, []string{"bash", "sh"}, `tmux save-buffer /etc/hosts`, Forbidden)
	rtAtLeast(t, []string{"bash", "sh"}, `tmux saveb -a /etc/hosts`, Forbidden)
	// Controls.
	rtBelow(t, `tmux save-buffer buf.txt`, Escalated)
	rtBelow(t, `tmux set-buffer 'make test'`, Escalated)
}
