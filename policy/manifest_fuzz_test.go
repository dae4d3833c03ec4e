package policy

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// FuzzParseManifest checks that no input panics, that every rejection is a
// *ManifestErrors with real positions, and that every accepted manifest
// holds its invariants. Normal test runs only replay the seed corpus; run
// go test ./policy -fuzz FuzzParseManifest to search.
func FuzzParseManifest(f *testing.F) {
	seeds, _ := filepath.Glob(filepath.Join("testdata", "*.yaml"))
	shipped, _ := filepath.Glob(filepath.Join("..", "manifests", "*.yaml"))
	for _, p := range append(seeds, shipped...) {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte("name: a\npermissions: {network: {allow: [\"[::1]:1\"]}, credentials: [{name: A, hosts: [\"*.x\"]}]}\n"))
	f.Add([]byte("a: &a [*a]\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := ParseManifestWith("f.yaml", data, LoadOptions{Home: "/home/u", BaseDir: "/base"})
		if err != nil {
			var me *ManifestErrors
			if !errors.As(err, &me) || len(me.List) == 0 {
				t.Fatalf("error %T %v is not a non-empty *ManifestErrors", err, err)
			}
			for _, e := range me.List {
				if e.File != "f.yaml" || e.Line < 1 || e.Col < 1 || e.Msg == "" {
					t.Fatalf("malformed error %+v", e)
				}
			}
			return
		}
		if CheckName(m.Name) != nil {
			t.Fatalf("accepted invalid name %q", m.Name)
		}
		fsp := m.Permissions.Filesystem
		for _, list := range [][]PathRule{fsp.Read, fsp.Write, fsp.Deny} {
			for _, r := range list {
				if !filepath.IsAbs(r.Path) || filepath.Clean(r.Path) != r.Path {
					t.Fatalf("path %q not absolute and clean", r.Path)
				}
			}
		}
		for _, h := range m.Permissions.Network.Deny {
			if h.Any && (h.Port == PortDefault || h.Port == PortAny) {
				t.Fatalf("deny list keeps %q instead of setting DenyAll", h)
			}
			if q, err := ParseHostPattern(h.String()); err != nil || q.String() != h.String() {
				t.Fatalf("deny pattern %+v does not round-trip: %v", h, err)
			}
		}
		hosts := append([]HostPattern{}, m.Permissions.Network.Allow...)
		for _, c := range m.Permissions.Credentials {
			if CheckCredentialName(c.Name) != nil {
				t.Fatalf("accepted credential name %q", c.Name)
			}
			hosts = append(hosts, c.Hosts...)
		}
		for _, h := range hosts {
			if q, err := ParseHostPattern(h.String()); err != nil || q.String() != h.String() || h.Any {
				t.Fatalf("host pattern %+v does not round-trip: %v", h, err)
			}
		}
		l := m.Limits
		if l.MaxTokens < 0 || l.MaxDuration < 0 || l.MaxMemoryMB < 0 || l.MaxRequests < 0 || l.MaxToolCalls < 0 || l.MaxMemoryBytes() < 0 {
			t.Fatalf("negative limit %+v", l)
		}
	})
}
