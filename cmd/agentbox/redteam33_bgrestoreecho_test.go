//go:build linux

package main

import (
	"bufio"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentbox-dev/agentbox/internal/ptytest"
	"github.com/agentbox-dev/agentbox/internal/syncbuf"
)

// rt33EchoShell is a session leader on the terminal (stdin) that acts as
// an interactive shell: it starts argv[1] with argv[3:] as a
// background job with stdin from /dev/null unless --tty (the README's advice for a
// command that may run in the background), reports "bg N" on fd 3 when it
// ends; once fd 4 gives it the word, it starts argv[1] vault add API_KEY
// --vault argv[2] as the foreground job (tcsetpgrp, as a shell does), and
// reports "fg N" on fd 3 when that ends.
const rt33EchoShell = `
import os, sys, signal, threading
exe, vault, args = sys.argv[1], sys.argv[2], sys.argv[3:]
report = os.fdopen(3, "w", buffering=1)
bg = os.fork()
if bg == 0:
    os.setpgid(0, 0)
    if "--tty" not in args:
        n = os.open("/dev/null", os.O_RDONLY)
        os.dup2(n, 0)
    os.execv(exe, [exe] + args)
try:
    os.setpgid(bg, bg)
except OSError:
    pass
def waitbg():
    _, st = os.waitpid(bg, 0)
    report.write("bg %d\n" % os.waitstatus_to_exitcode(st))
threading.Thread(target=waitbg, daemon=True).start()
os.read(4, 1)
fg = os.fork()
if fg == 0:
    os.setpgid(0, 0)
    while os.tcgetpgrp(0) != os.getpgrp():
        pass
    os.execv(exe, [exe, "vault", "add", "API_KEY", "--vault", vault])
try:
    os.setpgid(fg, fg)
except OSError:
    pass
signal.signal(signal.SIGTTOU, signal.SIG_IGN)
os.tcsetpgrp(0, fg)
_, st = os.waitpid(fg, 0)
os.tcsetpgrp(0, os.getpgrp())
report.write("fg %d\n" % os.waitstatus_to_exitcode(st))
`

// TestRedteam33BackgroundRestoreEchoesPassphrase: a sandboxed command run
// in the background of the user's shell, its stdin /dev/null as the README
// advises for such a command (`agentbox exec -- cmd </dev/null &`), still
// holds the user's terminal as its stdout. It watches the terminal's modes
// (tcgetattr on fd 1: `stty -a <&1`, which needs no foreground) until a
// foreground program turns echo off to read a secret — here agentbox's own
// `vault add` passphrase prompt (sudo, ssh, gpg alike) — and then simply
// exits. agentbox, its tree gone, "puts the terminal back as it was"
// (sharedFile.restore): it finds the modes differ from its snapshot taken
// at the start and sets them back with TCSETS, from the background
// (withoutSIGTTOU lets it), over the foreground job's: echo comes back on
// in the middle of the foreground's no-echo read, and the passphrase the
// user types next is shown on the screen (shoulder-surfing, screen
// sharing, terminal scrollback and recordings). The same restore puts a
// full-screen editor in the foreground back into cooked mode, and a job
// started from a raw-mode program (an agent's TUI, vim's :!cmd &) that
// ends after it leaves the user's shell raw. No reading of the terminal
// is involved, so this is not the documented background-reader limit
// (though the shell's fd 1 and 2 are O_RDWR on the terminal, so
// `</dev/null` alone does not stop such reads either: a reader races the
// foreground one, noticeably; the restore discloses without a race), and
// an innocent command that happens to end during a password prompt does
// it too.
//
// Control: the background command runs and exits 0, and the foreground
// prompt is shown and accepts the passphrase (it reads what is typed).
//
// Severity: medium (a vault or login passphrase disclosed on screen; the
// terminal's modes changed under a foreground program).
// Fix: restore a shared terminal's modes only when agentbox is in the
// terminal's foreground process group (or when the modes still are the
// ones the program set: compare against what the program left, not only
// against the snapshot); in the background, leave them to the foreground
// job, as restoreChanged does for the prompt.
// Fixed: sharedFile.restore leaves a terminal's modes alone while another
// process group holds its foreground, and ExecResult names what it left
// (a "terminal" violation, which exec prints).
func TestRedteam33BackgroundRestoreEchoesPassphrase(t *testing.T) {
	term := rt33EchoRun(t, "exec", "--", "/bin/sh", "-c", `echo WATCHING-rt33; while stty -a <&2 | grep -q " echo "; do sleep 0.1; done; echo SAW-ECHO-OFF-rt33; exit 0`)
	if !strings.Contains(term, "agentbox: terminal foreground-kept: ") {
		t.Errorf("the background agentbox did not say it left the terminal's modes; terminal %q", term)
	}
}

// rt33EchoRun runs the scenario with the background job agentbox bgArgs
// and returns what the terminal showed.
func rt33EchoRun(t *testing.T, bgArgs ...string) string {
	runEnv(t)
	dir := t.TempDir()
	vaultFile := filepath.Join(dir, "vault", "vault.json")
	const pass = "rt33-Secret-Passphrase"
	writeVault(t, vaultFile, pass, "OLD_KEY", "tok-rt33")
	os.Unsetenv(vaultPassphraseEnv)

	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	master, slave := ptytest.Open(t)
	out := &syncbuf.Buffer{}
	go func() { _, _ = io.Copy(out, master) }()
	rr, rw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	gr, gw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	sh := exec.Command("python3", append([]string{"-c", rt33EchoShell, exe, vaultFile}, bgArgs...)...)
	sh.Env = append(os.Environ(), cliEnv+"=1")
	sh.Stdin, sh.Stdout, sh.Stderr = slave, slave, slave
	sh.ExtraFiles = []*os.File{rw, gr}
	sh.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	if err := sh.Start(); err != nil {
		t.Fatal(err)
	}
	rw.Close()
	gr.Close()
	done := make(chan error, 1)
	go func() { done <- sh.Wait() }()
	t.Cleanup(func() {
		_ = syscall.Kill(-sh.Process.Pid, syscall.SIGKILL)
		_ = sh.Process.Kill()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
		}
		gw.Close()
	})
	reports := make(chan string, 4)
	go func() {
		s := bufio.NewScanner(rr)
		for s.Scan() {
			reports <- s.Text()
		}
		close(reports)
	}()
	waitOut := func(text string, d time.Duration) bool {
		for end := time.Now().Add(d); time.Now().Before(end); time.Sleep(100 * time.Millisecond) {
			if strings.Contains(out.String(), text) {
				return true
			}
		}
		return false
	}
	waitReport := func(prefix string, d time.Duration) (string, bool) {
		timer := time.After(d)
		for {
			select {
			case r, ok := <-reports:
				if !ok {
					return "", false
				}
				if strings.HasPrefix(r, prefix) {
					return r, true
				}
			case <-timer:
				return "", false
			}
		}
	}

	if !waitOut("WATCHING-rt33", 30*time.Second) {
		t.Fatalf("control: the background command did not start; terminal %q", out.String())
	}
	if _, err := gw.Write([]byte{1}); err != nil {
		t.Fatal(err)
	}
	if !waitOut("Vault passphrase:", 30*time.Second) {
		t.Fatalf("control: no passphrase prompt in the foreground; terminal %q", out.String())
	}
	bg, ok := waitReport("bg ", 20*time.Second)
	if !ok || bg != "bg 0" {
		t.Fatalf("control: the background command did not end well (%q, %v); terminal %q", bg, ok, out.String())
	}
	time.Sleep(500 * time.Millisecond) // agentbox's restore is done: it has exited
	mark := len(out.String())
	if _, err := master.Write([]byte(pass + "\n")); err != nil {
		t.Fatal(err)
	}
	// The value prompt (no echo) follows a right passphrase.
	if !waitOut("API_KEY", 30*time.Second) {
		t.Logf("no value prompt seen; terminal %q", out.String())
	}
	time.Sleep(300 * time.Millisecond)
	_, _ = master.Write([]byte("rt33-value\n"))
	fg, _ := waitReport("fg ", 30*time.Second)
	shown := out.String()[mark:]
	if strings.Contains(shown, pass) {
		t.Errorf("the passphrase typed at the foreground no-echo prompt was shown on the terminal: a background agentbox restored echo over it when its command ended (foreground %q); terminal after typing %q", fg, shown)
	}
	if strings.Contains(shown, "rt33-value") {
		t.Errorf("the secret value typed at the no-echo prompt was shown on the terminal; terminal after typing %q", shown)
	}
	return out.String()
}

// TestRedteam33BackgroundTTYRelayKeepsEcho: the same scenario with the
// background command given --tty (the README's other advice): its relay
// must leave the foreground prompt's no-echo mode alone when it ends.
// Held at the time of writing; kept as a passing test (new: the relay's
// end in the background during a foreground no-echo read).
func TestRedteam33BackgroundTTYRelayKeepsEcho(t *testing.T) {
	rt33EchoRun(t, "exec", "--tty", "--", "/bin/sh", "-c", `echo WATCHING-rt33; sleep 4; exit 0`)
}
