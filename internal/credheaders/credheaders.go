// Package credheaders names the request headers a credential's value may
// never be injected into: those that frame or route the request (Framing),
// which the proxy owns, and those that look like a credential's but that
// servers store and send back (Stored). The egress proxy injects no value
// into them, and neither a policy, a Config nor an egress.Credential may
// name one as a credential's header: one list of each, and one reading of a
// header name (Normal), so that the checks cannot drift apart.
package credheaders

import (
	"slices"
	"strings"
)

// Stored are header names (in lower case, _ read as -) of a credential's
// shape that carry none, and that servers store and repeat: idempotency keys
// come back in webhook events, pagination tokens in responses, CSRF tokens
// in pages. IsStored also counts object stores' user metadata headers.
var Stored = []string{
	"idempotency-key", "x-idempotency-key", "idempotency-token", "x-idempotency-token",
	"cache-key", "x-cache-key", "request-key", "x-request-key", "x-forwarded-key",
	"csrf-token", "x-csrf-token", "xsrf-token", "x-xsrf-token",
	"page-token", "next-page-token", "x-page-token", "x-next-page-token",
	"continuation-token", "x-continuation-token", "x-ms-continuation-token",
	"sync-token", "x-sync-token",
}

// Framing are header names (in lower case, _ read as -) that frame or
// route the request, or authenticate to the proxy: the proxy must own
// them, so no credential is injected into them.
var Framing = []string{
	"host", "content-length", "transfer-encoding", "connection", "upgrade",
	"te", "trailer", "keep-alive", "proxy-connection", "proxy-authorization", "proxy-authenticate", "expect",
}

// Normal returns the header name k in lower case with _ read as -, the
// form Framing and Stored are written in. Some servers and the frameworks
// in front of applications read _ as - (CGI-style header variables make
// both HTTP_CONTENT_LENGTH), so Content_Length is refused as Content-Length
// is.
func Normal(k string) string {
	return strings.ReplaceAll(strings.ToLower(k), "_", "-")
}

// storedPrefixes start the names of user metadata headers that object
// stores keep with an object and send back with every later read of it,
// besides those with a "meta" or "metadata" part (x-amz-meta-*,
// x-goog-meta-*, x-ms-meta-*, x-object-meta-*, x-oss-meta-*, …).
var storedPrefixes = []string{"x-bz-info-"}

// IsStored reports whether the header name k, in any case and with _ for
// -, is one of Stored or a user metadata header (x-amz-meta-api-key): a
// credential's value in one would be stored with the object and come back,
// unmasked, to whoever reads it later.
func IsStored(k string) bool {
	k = Normal(k)
	if slices.Contains(Stored, k) {
		return true
	}
	for _, p := range storedPrefixes {
		if strings.HasPrefix(k, p) {
			return true
		}
	}
	parts := strings.Split(k, "-")
	return slices.Contains(parts[:len(parts)-1], "meta") || slices.Contains(parts[:len(parts)-1], "metadata")
}

// IsFraming reports whether the header name k, in any case and with _ for
// -, is one of Framing.
func IsFraming(k string) bool {
	return slices.Contains(Framing, Normal(k))
}
