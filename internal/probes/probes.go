// Package probes holds the small programs tests run inside sandboxes to
// read what the kernel gave them, shared by tests of several packages.
package probes

// THPScript (Python) prints whether transparent huge pages are on for the
// process (THP_enabled), how much of 2 MiB of aligned private memory,
// advised MADV_HUGEPAGE and written, huge pages back (AnonHugePages, kB),
// and what prctl(PR_SET_THP_DISABLE) answers when it turns them back on
// (0) and off again (1). It holds no single quote, so a shell can take it
// in one.
const THPScript = `
import ctypes, mmap
libc = ctypes.CDLL(None, use_errno=True)
libc.prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong]
libc.madvise.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
st = [l.split()[1] for l in open("/proc/self/status") if l.startswith("THP_enabled:")]
print("THP_enabled", st[0] if st else "?")
H = 2 << 20
m = mmap.mmap(-1, 3 * H, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
base = ctypes.addressof(ctypes.c_char.from_buffer(m))
al = (base + H - 1) & ~(H - 1)
libc.madvise(al, H, 14)
ctypes.memset(al, 0x5a, H)
thp = [l.split()[1] for l in open("/proc/self/smaps_rollup") if l.startswith("AnonHugePages:")][0]
print("AnonHugePages", thp)
r = libc.prctl(41, 0, 0, 0, 0)
print("clear", "refused %d" % ctypes.get_errno() if r else "ok")
r = libc.prctl(41, 1, 0, 0, 0)
print("set", "refused %d" % ctypes.get_errno() if r else "ok")
`
