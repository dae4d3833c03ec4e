package classify

import (
	"errors"
	"os"
	"path"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
)

// set is a set of strings whose map is built on first use, so that the
// package's many word lists cost a program nothing until it classifies (the
// sandbox's init re-executes the binary that embeds this package and never
// does).
type set = *lazySet

type lazySet struct {
	words []string
	m     atomic.Pointer[map[string]struct{}]
}

func newSet(words ...string) set { return &lazySet{words: words} }

func (s *lazySet) has(v string) bool {
	m := s.m.Load()
	if m == nil {
		m = s.build()
	}
	_, ok := (*m)[v]
	return ok
}

// build makes the map; of two goroutines that race to, one's is kept.
func (s *lazySet) build() *map[string]struct{} {
	m := make(map[string]struct{}, len(s.words))
	for _, w := range s.words {
		m[w] = struct{}{}
	}
	if s.m.CompareAndSwap(nil, &m) {
		return &m
	}
	return s.m.Load()
}

// systemTops are top-level directories whose immediate children are also
// too important to delete or re-permission recursively.
var systemTops = newSet("home", "Users", "usr", "etc", "var", "boot", "lib", "lib32", "lib64",
	"libx32", "bin", "sbin", "System", "Library", "private", "dev", "proc", "sys", "snap", "nix")

// homeTops are directories directly in a home directory that hold the
// user's data or settings wholesale.
var homeTops = newSet("Documents", "Desktop", "Pictures", "Photos", "Music", "Videos", "Movies", "Library",
	".config", ".local", ".ssh", ".gnupg", "Dropbox", "OneDrive")

// cleanTarget normalises a path argument: "~" stays the home marker, runs of
// '/' collapse, "." and ".." are resolved lexically, /proc/self/root (a link
// to /) is stripped, and a trailing glob component becomes its directory
// (rm -rf /usr/* destroys /usr as surely as rm -rf /usr).
func cleanTarget(v string) string {
	v = strings.TrimSpace(v)
	if v == "" {
		return ""
	}
	if strings.HasPrefix(v, "~") {
		// ~, ~/x, ~user/x
		rest := ""
		if i := strings.IndexByte(v, '/'); i >= 0 {
			v, rest = v[:i], v[i:]
		}
		if v != "~" {
			v = "~user"
		}
		if rest == "" {
			return v
		}
		c := path.Clean(rest)
		if c == "/" {
			return v
		}
		return stripGlobLeaf(v + c)
	}
	if strings.HasPrefix(v, "/") {
		return stripGlobLeaf(walkAbs(v, nil))
	}
	return stripGlobLeaf(path.Clean(v))
}

// stripProcRoot removes a /proc/<pid>/root prefix, which resolves to /.
func stripProcRoot(p string) string {
	if !strings.HasPrefix(p, "/proc/") {
		return p
	}
	rest := p[len("/proc/"):]
	i := strings.IndexByte(rest, '/')
	if i < 0 {
		return p
	}
	pid, tail := rest[:i], rest[i:]
	if !procPID(pid) {
		return p
	}
	// /proc/PID/task/TID/… is the same process's view (root, cwd, environ).
	if t, ok := strings.CutPrefix(tail, "/task/"); ok {
		if j := strings.IndexByte(t, '/'); j > 0 && procPID(t[:j]) {
			tail = t[j:]
			p = "/proc/" + pid + tail
		}
	}
	if tail == "/root" {
		return "/"
	}
	if strings.HasPrefix(tail, "/root/") {
		return path.Clean(tail[len("/root"):])
	}
	return p
}

// procPID reports whether a /proc component names a process (or a thread):
// self, thread-self, a number, or a glob that may match one.
func procPID(s string) bool {
	return s == "self" || s == "thread-self" || allDigits(s) || strings.ContainsAny(s, "*?[") && strings.Trim(s, "*?[]!^-0123456789") == ""
}

// procCwd returns the path below /proc/PID/cwd in p (/proc/self/cwd/.aws
// is .aws in the working directory), ok false for any other path.
func procCwd(p string) (string, bool) {
	s := stripProcRoot(p) // drops task/TID
	rest, ok := strings.CutPrefix(s, "/proc/")
	if !ok {
		return "", false
	}
	pid, tail, _ := strings.Cut(rest, "/")
	if !procPID(pid) {
		return "", false
	}
	if tail == "cwd" {
		return ".", true
	}
	sub, ok := strings.CutPrefix(tail, "cwd/")
	return sub, ok
}

func stripGlobLeaf(p string) string {
	for {
		dir, leaf := path.Split(p)
		if dir == "" || !strings.ContainsAny(leaf, "*?[") && !hasExtGlob(leaf) {
			return p
		}
		p = path.Clean(dir)
		if p == "/" || strings.HasPrefix(p, "~") && !strings.Contains(p, "/") {
			return p
		}
	}
}

func allDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return false
		}
	}
	return true
}

// criticalTarget reports whether destroying or re-permissioning f
// recursively would wreck the machine or the user's home: /, a top-level
// directory, a system directory's immediate child, a home directory, or a
// relative path that climbs three or more levels.
func criticalTarget(f field) bool {
	v := f.val
	if f.dynPrefix && !strings.HasPrefix(v, "~") {
		return false
	}
	if winCritical(v) {
		return true
	}
	if h, ok := homeByParent("", f); ok && cleanTarget(h) == "~" {
		return true // ~/../$USER, /home/$USER: the home
	}
	c := cleanTarget(v)
	switch {
	case c == "":
		return false
	case c == "~" || c == "~user":
		return true
	case strings.HasPrefix(c, "~"):
		_, rest, _ := strings.Cut(c, "/")
		return homeTops.has(rest)
	case c == "/":
		return true
	case strings.HasPrefix(c, "/"):
		parts := strings.Split(c[1:], "/")
		if len(parts) == 1 {
			return parts[0] != "tmp" // the sandbox's /tmp is private
		}
		if len(parts) != 2 || !systemTops.has(parts[0]) {
			return false
		}
		return parts[0] != "var" || (parts[1] != "www" && parts[1] != "tmp")
	}
	// Relative: only climbing.
	ups := 0
	for _, p := range strings.Split(c, "/") {
		if p != ".." {
			return false
		}
		ups++
	}
	return ups >= 3
}

// winCritical recognises Windows drive roots and system folders.
func winCritical(v string) bool {
	l := strings.ToLower(strings.ReplaceAll(v, `\`, "/"))
	if len(l) >= 2 && l[1] == ':' && l[0] >= 'a' && l[0] <= 'z' {
		rest := strings.Trim(l[2:], "/*.")
		return rest == "" || rest == "windows" || rest == "users" || rest == "program files" || rest == "windows/system32"
	}
	switch strings.Trim(l, "/*") {
	case "%systemroot%", "%windir%", "%userprofile%", "$env:userprofile", "$env:systemroot", "%systemdrive%":
		return true
	}
	return false
}

// blockDevicePrefixes name raw disks and memory devices under /dev.
var blockDevicePrefixes = []string{"sd", "hd", "vd", "xvd", "nvme", "mmcblk", "disk", "dm-", "md", "mapper/",
	"loop", "sr", "nbd", "rbd", "zd", "mem", "kmem", "port", "bus/", "root", "ubd", "fd0", "scd", "xd", "rdisk",
	"block/", "zram", "ubi", "mtd"}

// isBlockDevice reports whether p names a disk, partition or memory device.
func isBlockDevice(p string) bool {
	c := cleanTarget(p)
	if !strings.HasPrefix(c, "/dev/") {
		return false
	}
	dev := c[len("/dev/"):]
	for _, pre := range blockDevicePrefixes {
		if strings.HasPrefix(dev, pre) {
			return true
		}
	}
	return false
}

// harmlessDevice reports whether p is a device that is fine to write.
func harmlessDevice(p string) bool {
	switch cleanTarget(p) {
	case "/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty", "/dev/zero", "/dev/full", "/dev/stdin":
		return true
	}
	c := cleanTarget(p)
	return strings.HasPrefix(c, "/dev/fd/") || strings.HasPrefix(c, "/dev/shm/") || strings.HasPrefix(c, "/dev/pts/")
}

// systemWritePrefixes are locations where a write changes how the machine
// boots, authenticates or behaves.
var systemWritePrefixes = []string{"/etc/", "/boot/", "/bin/", "/sbin/", "/usr/", "/lib/", "/lib32/", "/lib64/",
	"/libx32/", "/proc/sys/", "/sys/", "/root/", "/var/spool/cron/", "/var/spool/at", "/System/", "/Library/",
	"/private/etc/", "~/.ssh/", "~user/.ssh/", "/var/lib/dpkg/", "/var/lib/rpm/"}

// systemWriteTarget reports whether writing to f touches a system file or a
// raw device.
func systemWriteTarget(f field) bool {
	if f.dynPrefix && !strings.HasPrefix(f.val, "~") {
		return false
	}
	v := f.val
	if harmlessDevice(v) {
		return false
	}
	if isBlockDevice(v) {
		return true
	}
	c := cleanTarget(v)
	if callerIsRoot() && (c == "/root" || strings.HasPrefix(c, "/root/")) {
		// Root's home is the caller's own: judged as ~ (~/.ssh stays a
		// system target), as it is for everyone else's home.
		c = "~" + strings.TrimPrefix(c, "/root")
	}
	switch c {
	case "/proc/sysrq-trigger", "/proc/sys", "/etc", "/boot":
		return true
	}
	for _, p := range systemWritePrefixes {
		if strings.HasPrefix(c+"/", p) {
			return true
		}
	}
	l := strings.ToLower(strings.ReplaceAll(v, `\`, "/"))
	return len(l) > 2 && l[1] == ':' && strings.HasPrefix(l[2:], "/windows/")
}

// inHome returns f spelled from ~ when it is an absolute path at or under
// home (the caller's home directory, clean and absolute; "" for none):
// /home/user/.ssh/x is ~/.ssh/x.
func inHome(f field, home string) (field, bool) {
	if home == "" || f.dynPrefix || !strings.HasPrefix(f.val, "/") {
		return f, false
	}
	c := path.Clean(f.val)
	rest, ok := strings.CutPrefix(c, home)
	if !ok || rest != "" && rest[0] != '/' {
		return f, false
	}
	g := f
	g.val = "~" + rest
	return g, true
}

// cleanHome returns dir as inHome wants it: clean and absolute, "" for a
// relative path or /.
func cleanHome(dir string) string {
	c := path.Clean(dir)
	if !strings.HasPrefix(c, "/") || c == "/" {
		return ""
	}
	return c
}

// callerIsRoot reports whether this process runs as root, whose home
// /root is: for any other user, a write there is a write to a system path.
var callerIsRoot = sync.OnceValue(func() bool { return os.Geteuid() == 0 })

// validGlob checks a protected-path glob.
func validGlob(g string) error {
	if strings.TrimSpace(g) == "" {
		return errors.New("empty glob")
	}
	for _, part := range strings.Split(strings.Trim(g, "/"), "/") {
		if part == "**" {
			continue
		}
		if _, err := path.Match(part, ""); err != nil {
			return err
		}
	}
	return nil
}

// protectedMatch reports whether the path v (as written) falls under one of
// the protected globs; with tree (a directory filled wholesale) also
// whether it is a parent of one (.git for .git/hooks). With fold, case is
// ignored.
func protectedMatch(globs []string, v string, tree, fold bool) bool {
	if v == "" {
		return false
	}
	if fold {
		v = strings.ToLower(v)
	}
	c := v
	if !strings.HasPrefix(v, "~") {
		c = path.Clean(v)
	} else if i := strings.IndexByte(v, '/'); i >= 0 {
		c = "~" + path.Clean(v[i:])
	}
	comps := strings.Split(strings.TrimPrefix(c, "/"), "/")
	abs := strings.HasPrefix(c, "/")
	for _, g := range globs {
		if fold {
			g = strings.ToLower(g)
		}
		gAbs := strings.HasPrefix(g, "/")
		gHome := strings.HasPrefix(g, "~/")
		gc := strings.Split(strings.Trim(strings.TrimPrefix(g, "~"), "/"), "/")
		// The glob itself, and with tree each of its proper prefixes
		// matched exactly (the path is a parent of what it protects).
		for k := len(gc); k >= 1 && (k == len(gc) || tree); k-- {
			g, prefix := gc[:k], k == len(gc)
			switch {
			case gAbs:
				if abs && matchComps(g, comps, prefix) {
					return true
				}
			case gHome:
				if len(comps) > 0 && comps[0] == "~" && matchComps(g, comps[1:], prefix) {
					return true
				}
			default:
				for i := range comps {
					if matchComps(g, comps[i:], prefix) {
						return true
					}
				}
			}
		}
	}
	return false
}

// matchComps matches glob components against path components; with prefix
// the glob may match a leading run of the path (protecting what is below).
func matchComps(g, p []string, prefix bool) bool {
	if len(g) == 0 {
		return prefix || len(p) == 0
	}
	if g[0] == "**" {
		for i := 0; i <= len(p); i++ {
			if matchComps(g[1:], p[i:], prefix) {
				return true
			}
		}
		return false
	}
	if len(p) == 0 {
		return false
	}
	if ok, _ := path.Match(g[0], p[0]); !ok {
		return false
	}
	return matchComps(g[1:], p[1:], prefix)
}

// lazyRegexp compiles expr on first use: a program that links the package
// but never classifies does not pay for it at start-up.
func lazyRegexp(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}
