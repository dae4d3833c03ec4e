//go:build linux

package linux

import (
	"errors"
	"reflect"
	"testing"
)

func sampleSpec() *initSpec {
	return &initSpec{
		Path: "/bin/sh", Args: []string{"sh", "-c", "echo 'ü'"}, Env: []string{"A=1", "B="}, Dir: "/work",
		Hostname: "agentbox", ReadOnly: []string{"/usr", "/etc"},
		Mounts: []mountOp{
			{Kind: opTmpfs, Dst: "/run", Dir: true},
			{Kind: opIdmapRW, Src: "/w", Dst: "/w", Dir: true, FD: 2},
			{Kind: opMaskFile, Dst: "/w/.netrc", Watch: true},
		},
		TmpfsSize: 3<<30 + 12345, Network: "filtered", ProxyPort: 3128,
		Landlock: landlockSpec{ReadRoots: []string{"/"}, DenyRead: []string{"/home/u/.ssh"},
			Hidden: []string{"/tmp", "/run"}, WriteRoots: []string{"/w", "/tmp"},
			Devices: []string{"/dev/null"}, TCP: true, ConnectPorts: []int{3128, 443}},
		Limits:           limitsSpec{Processes: 1024, MemoryBytes: 2 << 30, FileDescriptors: 1024, CPUSeconds: 7, CountedOnly: true},
		AllowUnixSockets: true, Reduced: "no user namespaces", PrivateTmp: "/tmp/agentbox-tmp-1", MissingLayers: true, Terminal: true, TermRows: 33, TermCols: 77,
		Files: []fileSpec{{Name: "ca.pem", Data: []byte("-----BEGIN\x00")}},
	}
}

func TestInitSpecRoundTrip(t *testing.T) {
	for _, s := range []*initSpec{sampleSpec(), {}} {
		got, err := decodeInitSpec(s.encode())
		if err != nil {
			t.Fatal(err)
		}
		// Empty and nil lists decode alike; compare through a second encoding.
		if string(got.encode()) != string(s.encode()) {
			t.Fatalf("round trip changed the spec:\n got %+v\nwant %+v", got, s)
		}
	}
	got, _ := decodeInitSpec(sampleSpec().encode())
	if !reflect.DeepEqual(got, sampleSpec()) {
		t.Fatalf("got %+v", got)
	}
}

func TestCtlMsgRoundTrip(t *testing.T) {
	m := ctlMsg{Type: msgError, Layers: []string{"a", "b"}, Stage: "mount", Err: "boom", Unavailable: true, Code: -3, Signal: 9, Stdio: true, Idmaps: 2, CgroupTasks: 2, Terminal: true, Watch: true, Started: 1 << 62, Payload: []byte{0, 1, 2}}
	got, err := decodeCtlMsg(m.encode())
	if err != nil || !reflect.DeepEqual(got, m) {
		t.Fatalf("got %+v, %v", got, err)
	}
}

func TestDecodeRejectsDamage(t *testing.T) {
	b := sampleSpec().encode()
	for _, cut := range []int{0, 1, len(b) / 2, len(b) - 1} {
		if _, err := decodeInitSpec(b[:cut]); err == nil {
			t.Errorf("a spec cut at %d bytes decoded", cut)
		}
	}
	if _, err := decodeInitSpec(append(b, 0)); err == nil {
		t.Error("trailing bytes accepted")
	}
}

func FuzzDecodeInitSpec(f *testing.F) {
	f.Add(sampleSpec().encode())
	f.Add([]byte{})
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 0x0f})
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := decodeInitSpec(b)
		if err != nil {
			return
		}
		if again, err := decodeInitSpec(s.encode()); err != nil || !reflect.DeepEqual(again.encode(), s.encode()) {
			t.Fatalf("re-encoding a decoded spec changed it: %v", err)
		}
	})
}

// TestRecvAfterPeerLeftUnread: a peer that sends its last message and
// exits with one of ours unread (an init that fails before it reads the
// parent's msgCgroup) makes the kernel report ECONNRESET on our end ahead
// of the queued message. The message still reaches the reader.
func TestRecvAfterPeerLeftUnread(t *testing.T) {
	ours, peer, err := socketpair()
	if err != nil {
		t.Fatal(err)
	}
	defer ours.Close()
	if err := sendMsg(int(peer.Fd()), ctlMsg{Type: msgError, Err: "exec: not found"}); err != nil {
		t.Fatal(err)
	}
	if err := sendMsg(int(ours.Fd()), ctlMsg{Type: msgCgroup}); err != nil {
		t.Fatal(err)
	}
	peer.Close() // with our message unread
	m, _, err := recvMsg(int(ours.Fd()))
	if err != nil || m.Type != msgError || m.Err != "exec: not found" {
		t.Fatalf("recv after the peer left: %+v, %v; want its error message", m, err)
	}
	if _, _, err := recvMsg(int(ours.Fd())); !errors.Is(err, errClosed) {
		t.Errorf("then: %v, want the end of the socket", err)
	}
}
