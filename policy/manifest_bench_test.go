package policy

import (
	"os"
	"path/filepath"
	"testing"

	"go.yaml.in/yaml/v3"
)

// BenchmarkParseManifest measures a full strict load of testdata/full.yaml;
// BenchmarkYAMLUnmarshalOnly is the bare YAML decode of the same bytes, the
// floor a strict loader cannot go below. Compare the two as a ratio.
func BenchmarkParseManifest(b *testing.B) {
	data := benchData(b)
	for b.Loop() {
		if _, err := ParseManifestWith("full.yaml", data, LoadOptions{Home: "/home/u", BaseDir: "/base"}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkYAMLUnmarshalOnly(b *testing.B) {
	data := benchData(b)
	for b.Loop() {
		var v map[string]any
		if err := yaml.Unmarshal(data, &v); err != nil {
			b.Fatal(err)
		}
	}
}

func benchData(b *testing.B) []byte {
	b.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "full.yaml"))
	if err != nil {
		b.Fatal(err)
	}
	return data
}
