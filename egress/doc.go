// Package egress is agentbox's filtering egress proxy: the only way out of a
// sandbox whose network mode is "filtered".
//
// One listener serves both an HTTP proxy (absolute-URI requests and
// CONNECT) and SOCKS5 (CONNECT with names or IP literals), told apart by the
// first byte. Every request is decided by a Policy and the address Guard,
// and every decision goes to a Sink for the audit log:
//
//	IP literal:  guard → Denied → Allowed (explicit address only) → deny
//	name:        Denied → Allowed → Denied "*" → OnRequest → deny,
//	             then resolve (rooted), then the guard and the Denied
//	             IP patterns on every address
//
// Names are resolved only once the lists allowed them, so a refused name
// never reaches a DNS server (no exfiltration through lookups), and they
// are resolved rooted ("name."), never extended by the host's search list
// into a name the policy did not judge. The guard and the Denied IP
// patterns veto whatever the name lists said (a name resolving to a denied
// address does not reach it): the proxy dials one of the addresses the
// guard approved — the very address it checked, never a second lookup, so
// DNS rebinding gains nothing. When a name resolves to both approved and
// refused addresses, the refused ones are skipped (and named in the
// decision's Reason) and an approved one is dialled; when all are refused,
// the request is refused with the rule that refused the first.
//
// Hosts spelled as IPv4 numbers in non-canonical forms ("2130706433",
// "0x7f.1", "127.1", "0177.0.0.1") are refused without resolving them; a
// host whose last label is numeric is never treated as a DNS name.
//
// Anti-fronting: the first bytes a client sends into a CONNECT or SOCKS5
// tunnel are inspected before any reaches upstream. If they are a TLS
// ClientHello whose server_name names another host than the tunnel's
// target, the tunnel is refused (rule "sni-mismatch"; the client gets a TLS
// access_denied alert); a malformed ClientHello is refused too (also one
// followed by more bytes in the record that ends it), and so is
// one without SNI to a target named by its host name (including every
// ClientHello in the SSLv2-compatible format, which cannot carry SNI): a
// front end would pick the host from the encrypted request. To an IP
// literal a ClientHello without SNI passes. A PROXY protocol header, behind
// which a front end would read a hello unchecked, is refused (rule
// "proxy-protocol"). This stops SNI-routed domain fronting; a Host header
// inside the encrypted stream cannot be seen without interception. For
// plain HTTP the Host header must name the request target.
//
// Refusals explain themselves: HTTP 403 (503 for the tunnel limit) with
// header X-Agentbox-Deny naming the rule and a one-line text body; SOCKS5
// reply 0x02 (0x07 for BIND and UDP ASSOCIATE).
//
// Tunnels copy with splice(2) between the two TCP connections, so their
// bytes do not pass through this process's memory.
//
// Credentials (Config.Credentials, see Credential) are the exception: a
// tunnel to a host a credential is bound to is intercepted once the policy,
// the guard and the SNI check allowed it. The proxy presents a certificate
// from its own short-lived CA (ECDSA P-256, key only in memory, name
// constraints naming the bound hosts; CACertPEM, TrustBundle, TrustEnv),
// verifies the upstream against the roots agentbox trusts (SystemRootsPEM:
// SSL_CERT_FILE, SSL_CERT_DIR or the system bundle), and relays HTTP/1.1
// requests one by one, replacing the sandbox's placeholder with the real
// value in request headers. A placeholder headed anywhere else — any
// plain-HTTP request, or an intercepted request to a host the credential is
// not bound to — is refused (rule "credential-leak"). Every injection and
// every such refusal is a Decision naming the credential, never its value.
package egress
