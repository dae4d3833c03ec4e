package egress

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"time"
)

// maxHeldBody bounds the request bodies of known length that are read
// whole and checked before any byte of the request leaves: such a request
// with a placeholder reaches the upstream not even in part. Longer and
// chunked bodies are checked as they stream (the request is cut off before
// the placeholder).
const maxHeldBody = 1 << 20

// DefaultMaxHeldBodyBytes is Config.MaxHeldBodyBytes when it is zero.
const DefaultMaxHeldBodyBytes = 16 << 20

// RuleLimitHeldBodies refuses a request whose body the proxy would have to
// hold while other requests already hold Config.MaxHeldBodyBytes.
const RuleLimitHeldBodies = "limit:held-bodies"

// holdChunk is the most a held body grows by at once: the buffer follows
// the bytes that arrive, not the length the client announced.
const holdChunk = 64 << 10

// errBodyBudget is what holdBody returns when the budget stays spent.
var errBodyBudget = errors.New("the request bodies held for checking already fill the proxy's budget")

// byteBudget bounds the bytes one proxy holds at once for one purpose
// (request bodies held for checking, first flights under inspection),
// over all its connections.
type byteBudget struct {
	mu    sync.Mutex
	used  int64
	max   int64
	freed chan struct{} // closed and replaced whenever bytes are released
}

func newByteBudget(max int64) *byteBudget {
	return &byteBudget{max: max, freed: make(chan struct{})}
}

// configBudget is a byteBudget of n bytes, the Config field named field
// (def where it is zero or less), refused below least, which why explains.
func configBudget(field string, n, def, least int64, why string) (*byteBudget, error) {
	if n <= 0 {
		n = def
	}
	if n < least {
		return nil, fmt.Errorf("egress: %s %d is below %d, %s; raise it", field, n, least, why)
	}
	return newByteBudget(n), nil
}

// acquire takes n bytes of the budget, waiting up to wait for others to
// release them. It reports whether it took them.
func (b *byteBudget) acquire(ctx context.Context, n int64, wait time.Duration) bool {
	if n > b.max {
		return false
	}
	timer := time.NewTimer(wait)
	defer timer.Stop()
	for {
		b.mu.Lock()
		if b.used+n <= b.max {
			b.used += n
			b.mu.Unlock()
			return true
		}
		freed := b.freed
		b.mu.Unlock()
		select {
		case <-freed:
		case <-timer.C:
			return false
		case <-ctx.Done():
			return false
		}
	}
}

// tryAcquire takes n bytes of the budget if it has room for them now.
func (b *byteBudget) tryAcquire(n int64) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.used+n > b.max {
		return false
	}
	b.used += n
	return true
}

// release gives n bytes back.
func (b *byteBudget) release(n int64) {
	b.mu.Lock()
	b.used -= n
	close(b.freed)
	b.freed = make(chan struct{})
	b.mu.Unlock()
}

// inUse is how many bytes are held now.
func (b *byteBudget) inUse() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.used
}

// errClientGone is what holdBody returns when the client hung up, or ctx
// was done, while the request waited for room.
var errClientGone = errors.New("the client left while its request waited for room to hold its body")

// holdBody reads a body of known length up to maxHeldBody through scan,
// once the proxy's budget has room for it (waiting up to wait, while ctx
// is not done and client, the socket the body comes from, does not hang
// up). It returns the body (nil when it is not held) and a func that
// gives its bytes back to the budget, to call once the body has been
// sent; or errBodyBudget, errClientGone, or errPlaceholder with scan.leak
// set, or the read error. The buffer grows with the bytes that arrive, so
// a client that announces a length and sends less costs only what it sent.
func (p *Proxy) holdBody(ctx context.Context, client net.Conn, scan *leakReader, length int64, wait time.Duration) ([]byte, func(), error) {
	if length <= 0 || length > maxHeldBody {
		return nil, func() {}, nil
	}
	wctx, stop := untilHangup(ctx, client)
	took := p.bodies.acquire(wctx, length, wait)
	if gone := stop(); !took {
		if gone {
			return nil, nil, errClientGone
		}
		return nil, nil, errBodyBudget
	}
	var once sync.Once
	release := func() { once.Do(func() { p.bodies.release(length) }) }
	b := make([]byte, 0, min(length, holdChunk))
	for int64(len(b)) < length {
		if len(b) == cap(b) {
			nb := make([]byte, len(b), min(2*int64(cap(b)), length))
			copy(nb, b)
			b = nb
		}
		n, err := scan.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err != nil && (int64(len(b)) < length || !errors.Is(err, io.EOF)) {
			release()
			if errors.Is(err, io.EOF) {
				err = io.ErrUnexpectedEOF
			}
			return nil, nil, err
		}
	}
	return b, release, nil
}

// budgetReason explains a refusal under RuleLimitHeldBodies.
func (p *Proxy) budgetReason(length int64) string {
	return fmt.Sprintf("%s of %d bytes: a body of %d bytes found no room in time", errBodyBudget.Error(), p.bodies.max, length)
}
