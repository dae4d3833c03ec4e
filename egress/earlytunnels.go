package egress

import (
	"net/netip"
	"slices"
	"sync"
)

// A tunnel to the address a credential's value goes to is intercepted and
// masked for it (credSet.echoes, red-team round 62), but that is decided
// when the tunnel opens: one opened before the value first went there
// (spliced, TLS end to end between the command and the host) would read
// back, in the clear, a value the host stores and shows (red-team round
// 63). So the tunnels are kept by address while they run, and when a
// value first goes to an address, before it is sent, the tunnels to that
// address that do not mask it are ended.
//
// This holds for the Proxies that share one Injections (a Manager's). A
// tunnel of another process, to an address a value then goes to from
// this one, is not ended: that process learns of the value from the
// record only when it looks (README, known limits).

// liveTunnels are the running tunnels by the address they reach.
type liveTunnels struct {
	mu sync.Mutex
	by map[netip.Addr]map[*tunnel]struct{}
}

// add keeps t as a tunnel to a until the returned func is called.
func (l *liveTunnels) add(a netip.Addr, t *tunnel) (remove func()) {
	if !a.IsValid() {
		return func() {}
	}
	a = a.Unmap()
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.by == nil {
		l.by = make(map[netip.Addr]map[*tunnel]struct{})
	}
	if l.by[a] == nil {
		l.by[a] = make(map[*tunnel]struct{})
	}
	l.by[a][t] = struct{}{}
	return func() {
		l.mu.Lock()
		defer l.mu.Unlock()
		delete(l.by[a], t)
		if len(l.by[a]) == 0 {
			delete(l.by, a)
		}
	}
}

// endUnmasked ends the tunnels to a that do not mask the value of the
// credentials whose flag is f, as it is about to go there.
func (l *liveTunnels) endUnmasked(a netip.Addr, f *injectedFlag) {
	a = a.Unmap()
	l.mu.Lock()
	var end []*tunnel
	for t := range l.by[a] {
		if !t.masks(f) {
			end = append(end, t)
		}
	}
	l.mu.Unlock()
	for _, t := range end {
		t.p.log.Info("egress: a tunnel opened before a credential's value went to its address is ended: it could read back the value unmasked",
			"address", a.String(), "credential", f.key)
		t.closeBoth()
	}
}

// setEchoes sets the credentials whose values the tunnel masks.
func (t *tunnel) setEchoes(cs []*credential) {
	t.echoMu.Lock()
	defer t.echoMu.Unlock()
	t.echoes = cs
}

// masks reports whether the tunnel masks the value of the credential
// whose flag is f.
func (t *tunnel) masks(f *injectedFlag) bool {
	t.echoMu.Lock()
	defer t.echoMu.Unlock()
	return slices.ContainsFunc(t.echoes, func(c *credential) bool { return c.injected == f })
}

// maskedEchoes returns the credentials whose values the tunnel masks.
func (t *tunnel) maskedEchoes() []*credential {
	t.echoMu.Lock()
	defer t.echoMu.Unlock()
	return t.echoes
}
