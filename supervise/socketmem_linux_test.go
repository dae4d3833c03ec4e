//go:build linux

package supervise

import (
	"os"
	"testing"
)

func TestTCPQueued(t *testing.T) {
	const header = "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n"
	tests := []struct {
		name, table string
		want        int64
	}{
		{"empty", header, 0},
		{"listener left out", header +
			"   0: 0100007F:A1B2 00000000:0000 0A 00000000:00000040 00:00000000 00000000  1000        0 1 1 0 100 0 0 10 0\n", 0},
		{"sent and received", header +
			"   1: 0100007F:A1B2 0100007F:C3D4 01 00400000:00000000 00:00000000 00000000  1000        0 2 1 0 20 4 30 10 -1\n" +
			"   2: 0100007F:C3D4 0100007F:A1B2 01 00000000:00200000 00:00000000 00000000  1000        0 3 1 0 20 4 30 10 -1\n",
			0x400000 + 0x200000},
		{"tcp6 line", "  sl  local_address                         remote_address                        st tx_queue rx_queue\n" +
			"   0: 00000000000000000000000001000000:1F90 00000000000000000000000001000000:D1D2 01 00001000:00000010 00:00000000 00000000\n",
			0x1010},
		{"garbled queue skipped", header +
			"   1: 0100007F:A1B2 0100007F:C3D4 01 zz:00000010 00:00000000\n", 0},
	}
	for _, tt := range tests {
		if got := tcpQueued([]byte(tt.table)); got != tt.want {
			t.Errorf("%s: tcpQueued = %d, want %d", tt.name, got, tt.want)
		}
	}
}

// A process in the host's network namespace (network: allowed) is not
// charged for the host's sockets.
func TestOwnNetworkHost(t *testing.T) {
	if ownNetwork(os.Getpid()) {
		t.Error("ownNetwork(self) = true: the host's sockets would be charged to a sandbox in the host's network")
	}
	if ownNetwork(1 << 30) {
		t.Error("ownNetwork(no such pid) = true")
	}
}
