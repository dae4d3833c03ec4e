//go:build linux

package linux

import (
	"encoding/binary"
	"errors"
	"math"
)

// The control socket carries its messages in a small binary encoding
// rather than JSON: encoding/json spends about a millisecond on its first
// use in a fresh process, and every sandbox's init is a fresh process. The
// encoding is a sequence of fields in a fixed order, each a uvarint, a
// length-prefixed string, or a count followed by its items.

type encoder struct{ b []byte }

func (e *encoder) uint(v uint64) { e.b = binary.AppendUvarint(e.b, v) }
func (e *encoder) int(v int)     { e.b = binary.AppendVarint(e.b, int64(v)) }
func (e *encoder) bool(v bool) {
	if v {
		e.uint(1)
	} else {
		e.uint(0)
	}
}
func (e *encoder) str(s string)     { e.uint(uint64(len(s))); e.b = append(e.b, s...) }
func (e *encoder) strs(ss []string) { encodeList(e, ss, e.str) }
func (e *encoder) ints(vs []int)    { encodeList(e, vs, e.int) }

// encodeList writes the count of vs, then each item with one.
func encodeList[T any](e *encoder, vs []T, one func(T)) {
	e.uint(uint64(len(vs)))
	for _, v := range vs {
		one(v)
	}
}

type decoder struct {
	b   []byte
	err error
}

var errTruncated = errors.New("truncated message")

func (d *decoder) fail() {
	if d.err == nil {
		d.err = errTruncated
	}
	d.b = nil
}

func (d *decoder) uint() uint64 {
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.fail()
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) int() int {
	v, n := binary.Varint(d.b)
	if n <= 0 || v > math.MaxInt32 || v < math.MinInt32 {
		d.fail()
		return 0
	}
	d.b = d.b[n:]
	return int(v)
}

func (d *decoder) bool() bool { return d.uint() != 0 }

func (d *decoder) str() string {
	n := d.uint()
	if n > uint64(len(d.b)) {
		d.fail()
		return ""
	}
	s := string(d.b[:n])
	d.b = d.b[n:]
	return s
}

// count reads a list length, refusing one longer than the bytes left.
func (d *decoder) count() int {
	n := d.uint()
	if n > uint64(len(d.b)) {
		d.fail()
		return 0
	}
	return int(n)
}

func (d *decoder) strs() []string { return decodeList(d, d.str) }
func (d *decoder) ints() []int    { return decodeList(d, d.int) }

// decodeList reads a count, then that many items with one.
func decodeList[T any](d *decoder, one func() T) []T {
	n := d.count()
	out := make([]T, 0, n)
	for range n {
		out = append(out, one())
	}
	return out
}

// finish reports the first error, or leftover bytes: a message is read whole.
func (d *decoder) finish() error {
	if d.err == nil && len(d.b) != 0 {
		d.err = errors.New("trailing bytes in message")
	}
	return d.err
}

func (s *initSpec) encode() []byte {
	var e encoder
	e.str(s.Path)
	e.strs(s.Args)
	e.strs(s.Env)
	e.str(s.Dir)
	e.str(s.Hostname)
	e.strs(s.ReadOnly)
	encodeList(&e, s.Mounts, func(m mountOp) {
		e.str(string(m.Kind))
		e.str(m.Src)
		e.str(m.Dst)
		e.bool(m.Dir)
		e.int(m.FD)
		e.bool(m.Watch)
	})
	e.uint(uint64(s.TmpfsSize))
	e.str(s.Network)
	e.int(s.ProxyPort)
	l := &s.Landlock
	e.strs(l.ReadRoots)
	e.strs(l.DenyRead)
	e.strs(l.Hidden)
	e.strs(l.WriteRoots)
	e.strs(l.Devices)
	e.bool(l.TCP)
	e.ints(l.ConnectPorts)
	e.uint(s.Limits.Processes)
	e.uint(s.Limits.MemoryBytes)
	e.uint(s.Limits.FileDescriptors)
	e.uint(s.Limits.CPUSeconds)
	e.bool(s.Limits.CountedOnly)
	e.bool(s.AllowUnixSockets)
	e.str(s.Reduced)
	e.str(s.PrivateTmp)
	e.bool(s.MissingLayers)
	encodeList(&e, s.Files, func(f fileSpec) {
		e.str(f.Name)
		e.str(string(f.Data))
	})
	e.bool(s.Terminal)
	e.int(s.TermRows)
	e.int(s.TermCols)
	e.bool(s.AwaitCgroup)
	return e.b
}

func decodeInitSpec(b []byte) (*initSpec, error) {
	d := &decoder{b: b}
	s := &initSpec{}
	s.Path = d.str()
	s.Args = d.strs()
	s.Env = d.strs()
	s.Dir = d.str()
	s.Hostname = d.str()
	s.ReadOnly = d.strs()
	s.Mounts = decodeList(d, func() mountOp {
		return mountOp{Kind: opKind(d.str()), Src: d.str(), Dst: d.str(), Dir: d.bool(), FD: d.int(), Watch: d.bool()}
	})
	s.TmpfsSize = int64(d.uint())
	s.Network = d.str()
	s.ProxyPort = d.int()
	l := &s.Landlock
	l.ReadRoots = d.strs()
	l.DenyRead = d.strs()
	l.Hidden = d.strs()
	l.WriteRoots = d.strs()
	l.Devices = d.strs()
	l.TCP = d.bool()
	l.ConnectPorts = d.ints()
	s.Limits.Processes = d.uint()
	s.Limits.MemoryBytes = d.uint()
	s.Limits.FileDescriptors = d.uint()
	s.Limits.CPUSeconds = d.uint()
	s.Limits.CountedOnly = d.bool()
	s.AllowUnixSockets = d.bool()
	s.Reduced = d.str()
	s.PrivateTmp = d.str()
	s.MissingLayers = d.bool()
	s.Files = decodeList(d, func() fileSpec { return fileSpec{Name: d.str(), Data: []byte(d.str())} })
	s.Terminal = d.bool()
	s.TermRows = d.int()
	s.TermCols = d.int()
	s.AwaitCgroup = d.bool()
	return s, d.finish()
}

func (m *ctlMsg) encode() []byte {
	var e encoder
	e.str(m.Type)
	e.strs(m.Layers)
	e.str(m.Stage)
	e.str(m.Err)
	e.bool(m.Unavailable)
	e.int(m.Code)
	e.int(m.Signal)
	e.bool(m.Stdio)
	e.int(m.Idmaps)
	e.int(m.CgroupTasks)
	e.bool(m.Terminal)
	e.bool(m.Watch)
	e.uint(m.Started)
	e.str(string(m.Payload))
	return e.b
}

func decodeCtlMsg(b []byte) (ctlMsg, error) {
	d := &decoder{b: b}
	m := ctlMsg{Type: d.str(), Layers: d.strs(), Stage: d.str(), Err: d.str(), Unavailable: d.bool(),
		Code: d.int(), Signal: d.int(), Stdio: d.bool(), Idmaps: d.int(), CgroupTasks: d.int(), Terminal: d.bool(), Watch: d.bool(), Started: d.uint()}
	if p := d.str(); p != "" {
		m.Payload = []byte(p)
	}
	return m, d.finish()
}
