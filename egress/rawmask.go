package egress

import (
	"io"
	"time"
)

// A tunnel to a host credentials are bound to is intercepted on every
// port (tunnelFor), but only TLS and plain HTTP are read as such: any
// other protocol (SSH, SMTP, a console) goes on as raw bytes. Such a host
// may repeat a value it kept from a request on 443 in a banner or a
// console's answer (red-team round 62), so its raw bytes come down
// through a lateMask, which masks from the first read on which a value of
// the bound credentials has gone out. The tunnel then copies instead of
// splicing.

// down relays what the upstream sends to the client: spliced, or masked
// where the tunnel's host has credentials bound to it (echoes).
func (t *tunnel) down() {
	echoes := t.maskedEchoes()
	if len(echoes) == 0 {
		t.pump(t.client, t.up, &t.p.stats.bytesDown)
		return
	}
	mask := &echoMask{watch: true}
	lm := &lateMask{src: &idleReader{t: t, c: t.up}, echoes: echoes, mask: mask, timeout: t.p.handshake, where: "a tunnel's raw stream"}
	defer func() {
		lm.wipe()
		mask.wipe()
	}()
	_, err := io.Copy(&countWriter{w: t.client, n: &t.p.stats.bytesDown}, lm)
	reportEchoes(t.p, mask, func(reason, cred string) Decision {
		d := refuse(t.d, RuleCredentialLeak, reason)
		d.Time, d.Credential = time.Now(), cred
		return d
	})
	if err == nil {
		closeWrite(t.client)
		return
	}
	t.closeBoth()
}
