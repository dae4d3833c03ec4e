package credheaders

import "testing"

func TestIsStored(t *testing.T) {
	for _, tc := range []struct {
		name string
		want bool
	}{
		{"Idempotency-Key", true},
		{"x_csrf_token", true},
		// Object stores' user metadata: kept with the object, sent back
		// with every later read.
		{"x-amz-meta-api-key", true},
		{"X-Goog-Meta-Token", true},
		{"x-ms-meta-secret", true},
		{"X-Object-Meta-Auth-Token", true},
		{"x-oss-meta-password", true},
		{"x_amz_meta_token", true},
		{"x-goog-metadata-token", true},
		{"X-Bz-Info-Api-Key", true},
		// Credentials' own headers.
		{"Authorization", false},
		{"X-Api-Key", false},
		{"X-Goog-Api-Key", false},
		{"X-Amz-Security-Token", false},
		{"X-Metabase-Session", false},
		{"X-Meta", false},
	} {
		if got := IsStored(tc.name); got != tc.want {
			t.Errorf("IsStored(%q) = %v, want %v", tc.name, got, tc.want)
		}
	}
}
