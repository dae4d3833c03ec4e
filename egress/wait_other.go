//go:build !linux

package egress

import "net"

// waitDataBlocks reports that waitData does not wait here.
const waitDataBlocks = false

// waitData reports a full chunk without waiting: io.Copy then blocks in
// the read itself.
func waitData(net.Conn) (int64, error) { return spliceChunk, nil }
