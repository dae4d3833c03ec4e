//go:build !linux

package egress

import (
	"context"
	"net"
)

// waitDataBlocks reports that waitData does not wait here.
const waitDataBlocks = false

// waitData reports a full chunk without waiting: io.Copy then blocks in
// the read itself.
func waitData(net.Conn) (int64, error) { return spliceChunk, nil }

// untilHangup returns ctx: a peer's hang-up is not watched here, so a
// request waiting for room ends when ctx is done or its wait is over.
func untilHangup(ctx context.Context, _ net.Conn) (context.Context, func() bool) {
	return ctx, func() bool { return ctx.Err() != nil }
}
