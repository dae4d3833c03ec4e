// Package credheaders names the request headers that never carry a
// credential although their names look like a credential's: servers store
// them and send them back. The egress proxy injects no value into them, and
// a policy may not name one as a credential's header: one list, so that the
// two cannot drift apart.
package credheaders

import (
	"slices"
	"strings"
)

// Stored are header names (in lower case, _ read as -) of a credential's
// shape that carry none, and that servers store and repeat: idempotency keys
// come back in webhook events, pagination tokens in responses, CSRF tokens
// in pages.
var Stored = []string{
	"idempotency-key", "x-idempotency-key", "idempotency-token", "x-idempotency-token",
	"cache-key", "x-cache-key", "request-key", "x-request-key", "x-forwarded-key",
	"csrf-token", "x-csrf-token", "xsrf-token", "x-xsrf-token",
	"page-token", "next-page-token", "x-page-token", "x-next-page-token",
	"continuation-token", "x-continuation-token", "x-ms-continuation-token",
	"sync-token", "x-sync-token",
}

// Normal returns the header name k in lower case with _ read as -, the
// form Stored is written in.
func Normal(k string) string {
	return strings.ReplaceAll(strings.ToLower(k), "_", "-")
}

// IsStored reports whether the header name k, in any case, is one of
// Stored.
func IsStored(k string) bool {
	return slices.Contains(Stored, Normal(k))
}
