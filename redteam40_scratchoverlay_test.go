//go:build linux

package agentbox_test

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentbox-dev/agentbox"
)

// rt40ScratchScript runs inside the sandbox (python3, no apostrophes):
// argv 1 the cache dir of the test, 2 the writable root, 3 the socket
// path, 4 the survivor marker, 5 the home cache.
const rt40ScratchScript = `
import os, sys, mmap, socket, array, subprocess
D, W, S, MARK, C = sys.argv[1:6]
def t(name, f):
    try:
        r = f()
        print("RES", name, "OK", repr(r)[:160])
    except Exception as e:
        print("RES", name, "ERR", type(e).__name__, str(e)[:120])
F = D + "/pkg/f"
t("ctl_read_host", lambda: open(F).read())
t("ctl_write_new", lambda: open(D + "/new.json", "w").write("NEWDATA"))
t("ctl_read_new", lambda: open(D + "/new.json").read())
ro = os.open(F, os.O_RDONLY)
m = mmap.mmap(ro, 0, mmap.MAP_SHARED, mmap.PROT_READ)
t("mmap_write_ro", lambda: mmap.mmap(ro, 0, mmap.MAP_SHARED, mmap.PROT_READ | mmap.PROT_WRITE))
t("procfd_reopen_write", lambda: open("/proc/self/fd/%d" % ro, "r+").write("POISON1\n"))
t("ctl_read_poisoned", lambda: open(F).read())
t("old_fd_sees", lambda: os.pread(ro, 64, 0))
t("old_mmap_sees", lambda: m[:16])
t("map_files_rdwr", lambda: [open("/proc/self/map_files/" + n, "r+") for n in os.listdir("/proc/self/map_files")][:0])
os.makedirs(D + "/d2", exist_ok=True)
t("setx_opaque", lambda: os.setxattr(D + "/pkg", "user.overlay.opaque", b"y"))
t("setx_redirect", lambda: os.setxattr(D + "/d2", "user.overlay.redirect", b"/huggingface"))
t("setx_trusted_redirect", lambda: os.setxattr(D + "/d2", "trusted.overlay.redirect", b"/huggingface"))
t("ls_pkg_after_opaque", lambda: sorted(os.listdir(D + "/pkg")))
t("ls_d2_after_redirect", lambda: sorted(os.listdir(D + "/d2")))
t("read_d2_token", lambda: open(D + "/d2/token").read())
t("mknod_whiteout", lambda: os.mknod(D + "/wh", 0o20600, os.makedev(0, 0)))
t("link_into_root", lambda: os.link(F, W + "/hl"))
t("rename_into_root", lambda: os.rename(D + "/pkg", W + "/pkg"))
t("read_denied", lambda: open(C + "/huggingface/token").read())
t("read_denied_procroot", lambda: open("/proc/self/root" + C + "/huggingface/token").read())
t("rename_denied_parent", lambda: os.rename(C + "/huggingface", D + "/hf"))
def send():
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(S)
    rw = os.open(F, os.O_RDWR)
    lo = os.open(D + "/lower2", os.O_RDONLY)
    s.sendmsg([b"x"], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", [lo, rw]))])
    s.recv(1)
    return "sent"
t("fdpass", send)
subprocess.Popen([sys.executable, "-c", "import time,os; fd=os.open(%r, os.O_RDWR); time.sleep(30)" % F, MARK], start_new_session=True)
print("RES done OK")
`

// TestRedteam40ScratchOverlay attacks the home's tool caches, shown as
// scratch overlays by DefaultConfig (~/.cache here), from inside a real
// sandbox: a lower file reopened for writing through /proc/self/fd of a
// descriptor opened before copy-up, a writable shared mmap of it, map_files;
// overlay xattrs set through the overlay (user.overlay.opaque, .redirect to
// a directory holding a denied credential, trusted.overlay.*); a whiteout
// made with mknod 0:0; a hard link and a rename of cache data into a
// writable root; the denied ~/.cache/huggingface/token read directly,
// through /proc/self/root, through a renamed parent; cache descriptors (one
// of the lower file, one of its copy-up) passed out over a unix socket in
// the writable root to a host process, which writes through them; a
// process left behind holding a cache file open; and the next command's
// view. The host's cache must be unchanged, nothing may land in the
// writable root, no process may outlive the command, and the next command
// must see the host's cache. Controls: the host's cache is read, and files
// are written and read back inside the run.
//
// Passing (all held as root and as agentbox-ci on 6.18): kept, it covers
// the overlay's own xattrs (escaped by the kernel to user.overlay.overlay.*,
// no effect), descriptors of scratch files handed to the host, and the
// survivor, which TestScratch does not.
func TestRedteam40ScratchOverlay(t *testing.T) {
	home := privateHome(t)
	cache := filepath.Join(home, ".cache")
	if _, err := os.Stat(cache); err != nil {
		t.Skip("no ~/.cache: the default scratch points the command at /tmp instead")
	}
	d := filepath.Join(cache, fmt.Sprintf("rt40b-%d", os.Getpid()))
	t.Cleanup(func() { os.RemoveAll(d) })
	for _, p := range []string{d + "/pkg"} {
		if err := os.MkdirAll(p, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	const hostData = "HOSTDATA\n"
	if err := os.WriteFile(d+"/pkg/f", []byte(hostData), 0o666); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(d+"/lower2", []byte(hostData), 0o666); err != nil {
		t.Fatal(err)
	}
	_ = os.Chmod(d+"/pkg/f", 0o666)
	_ = os.Chmod(d+"/lower2", 0o666)
	_ = os.Chmod(d+"/pkg", 0o777)
	_ = os.Chmod(d, 0o777)
	hf := filepath.Join(cache, "huggingface")
	token := filepath.Join(hf, "token")
	secret := fmt.Sprintf("RT40SECRET-%d-%d", os.Getpid(), time.Now().UnixNano())
	if _, err := os.Lstat(token); err == nil {
		secret = "" // a real token: do not touch it, only check it is not read
	} else {
		if _, err := os.Stat(hf); err != nil {
			if err := os.Mkdir(hf, 0o755); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { os.RemoveAll(hf) })
		} else {
			t.Cleanup(func() { os.Remove(token) })
		}
		if err := os.WriteFile(token, []byte(secret), 0o644); err != nil {
			t.Fatal(err)
		}
	}

	w := hostDir(t)
	_ = os.Chmod(w, 0o777)
	sock := filepath.Join(w, "s")
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: sock, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	_ = os.Chmod(sock, 0o777)
	hostWrites := make(chan string, 1)
	go func() {
		c, err := ln.AcceptUnix()
		if err != nil {
			hostWrites <- "accept: " + err.Error()
			return
		}
		defer c.Close()
		buf, oob := make([]byte, 8), make([]byte, 256)
		_, oobn, _, _, err := c.ReadMsgUnix(buf, oob)
		var log []string
		if err == nil {
			msgs, _ := syscall.ParseSocketControlMessage(oob[:oobn])
			for _, msg := range msgs {
				fds, _ := syscall.ParseUnixRights(&msg)
				for i, fd := range fds {
					_, werr := syscall.Pwrite(fd, []byte("POISONFD\n"), 0)
					f, oerr := os.OpenFile(fmt.Sprintf("/proc/self/fd/%d", fd), os.O_WRONLY, 0)
					if oerr == nil {
						_, oerr = f.WriteAt([]byte("POISONRE\n"), 0)
						f.Close()
					}
					log = append(log, fmt.Sprintf("fd%d pwrite=%v reopen=%v", i, werr, oerr))
					syscall.Close(fd)
				}
			}
		} else {
			log = append(log, "recv: "+err.Error())
		}
		c.Write([]byte("k"))
		hostWrites <- strings.Join(log, "; ")
	}()

	cfg := agentbox.DefaultConfig()
	cfg.Classifier = rt9Sandboxed{}
	cfg.Network.AllowUnixSockets = true
	m := newManager(t, cfg)
	mark := fmt.Sprintf("rt40b-survivor-%d", os.Getpid())
	exec := func(script string) (string, *agentbox.ExecResult) {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		res, err := m.ExecArgs(ctx, "/usr/bin/python3", []string{"-c", script, d, w, sock, mark, cache},
			agentbox.WithWritableRoots(w), agentbox.WithWorkingDir(w))
		if err != nil {
			t.Fatalf("ExecArgs: %v", err)
		}
		return res.Stdout + res.Stderr, res
	}
	out, res := exec(rt40ScratchScript)
	t.Logf("layers %q\n%s", res.Layers, out)
	got := map[string]string{}
	for _, l := range strings.Split(out, "\n") {
		if f := strings.SplitN(l, " ", 4); len(f) >= 3 && f[0] == "RES" {
			got[f[1]] = strings.Join(f[2:], " ")
		}
	}
	ok := func(k, want string) {
		if v := got[k]; !strings.HasPrefix(v, "OK") || !strings.Contains(v, want) {
			t.Errorf("control %s: %q (want OK with %q)", k, v, want)
		}
	}
	ok("ctl_read_host", "HOSTDATA")
	ok("ctl_read_new", "NEWDATA")
	ok("done", "")
	for _, k := range []string{"mmap_write_ro", "setx_trusted_redirect", "read_d2_token", "mknod_whiteout",
		"link_into_root", "rename_into_root", "read_denied", "read_denied_procroot", "rename_denied_parent"} {
		if !strings.HasPrefix(got[k], "ERR") {
			t.Errorf("attack %s was not refused: %q", k, got[k])
		}
	}
	if v := got["ls_pkg_after_opaque"]; !strings.Contains(v, "f") {
		t.Errorf("user.overlay.opaque set through the overlay hid the lower layer: %q", v)
	}
	if v := got["ls_d2_after_redirect"]; strings.Contains(v, "token") {
		t.Errorf("user.overlay.redirect set through the overlay redirected into a denied dir: %q", v)
	}
	if secret != "" && strings.Contains(out, secret) {
		t.Errorf("ESCAPE: the denied ~/.cache/huggingface/token was read: %q", out)
	}
	select {
	case s := <-hostWrites:
		t.Logf("host side of fd passing: %s", s)
	case <-time.After(5 * time.Second):
		t.Errorf("control: no descriptor reached the host listener (fdpass %q)", got["fdpass"])
	}

	// The host: its cache as it was, nothing in the writable root, no survivor.
	for _, p := range []string{d + "/pkg/f", d + "/lower2"} {
		if b, _ := os.ReadFile(p); string(b) != hostData {
			t.Errorf("ESCAPE: host cache file %s now reads %q", p, b)
		}
	}
	for _, p := range []string{d + "/new.json", d + "/d2", d + "/wh", w + "/hl", w + "/pkg"} {
		if _, err := os.Lstat(p); err == nil {
			t.Errorf("ESCAPE: %s, made in the sandbox, is on the host", p)
		}
	}
	time.Sleep(2 * time.Second)
	procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, p := range procs {
		if b, _ := os.ReadFile(p); strings.Contains(string(b), mark) {
			t.Errorf("a process the command left holding a cache file open outlives it: %s %q", p, b)
		}
	}

	// The next command's view.
	out2, _ := exec(`
import sys, os
D = sys.argv[1]
print("RES f", repr(open(D + "/pkg/f").read()))
print("RES new", os.path.exists(D + "/new.json"), os.path.exists(D + "/d2"))
`)
	if !strings.Contains(out2, `RES f 'HOSTDATA\n'`) || !strings.Contains(out2, "RES new False False") {
		t.Errorf("the next command sees what the previous one left: %q", out2)
	}
}
