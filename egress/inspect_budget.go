package egress

import (
	"errors"
	"fmt"
	"io"
)

// DefaultMaxInspectedBytes is Config.MaxInspectedBytes when it is zero.
const DefaultMaxInspectedBytes = 8 << 20

// minInspectedBytes is the least Config.MaxInspectedBytes may be: room for
// the largest ClientHello accepted (tlsMaxHelloLen), and as much again.
const minInspectedBytes = 2 * tlsMaxHelloLen

// RuleLimitInspected refuses a tunnel whose first flight would pass
// Config.MaxInspectedBytes.
const RuleLimitInspected = "limit:inspected-bytes"

// errInspectBudget is what a flightReader returns once the budget is spent.
var errInspectBudget = errors.New("the first flights being inspected already fill the proxy's budget")

// flightReader reads a tunnel's first flight (a ClientHello, and the early
// data and second ClientHello after a HelloRetryRequest), charging every
// byte to the proxy's budget for first flights: the inspection holds what
// it reads until the flight is judged, and a program could otherwise make
// each of its tunnels hold hundreds of KiB of agentbox's memory (a 64 KiB
// hello in one-byte records is 384 KiB read; early data may be 256 KiB).
// done gives the bytes back.
type flightReader struct {
	r    io.Reader
	b    *byteBudget
	took int64
}

func (f *flightReader) Read(p []byte) (int, error) {
	n, err := f.r.Read(p)
	if n > 0 {
		if !f.b.tryAcquire(int64(n)) {
			return 0, errInspectBudget
		}
		f.took += int64(n)
	}
	return n, err
}

// done gives the bytes read back to the budget.
func (f *flightReader) done() {
	if f.took > 0 {
		f.b.release(f.took)
		f.took = 0
	}
}

// inspectedReason explains a refusal under RuleLimitInspected.
func (p *Proxy) inspectedReason() string {
	return fmt.Sprintf("the first flights of other tunnels being inspected hold the proxy's %d bytes for them", p.flights.max)
}
