//go:build linux

package linux

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/agentbox-dev/agentbox/sandbox"
)

// BenchmarkBuildPlan plans a sandbox for a common work tree: a git
// repository with its sample hooks and a few protected directories, no
// links. Every command pays for this.
func BenchmarkBuildPlan(b *testing.B) {
	dir, err := os.MkdirTemp("/var/tmp", "agentbox-bench-")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { os.RemoveAll(dir) })
	w := filepath.Join(dir, "work")
	for _, d := range []string{".git/hooks", ".git/objects/ab", ".git/refs/heads", ".git/info", ".husky", ".vscode", ".claude", "src"} {
		if err := os.MkdirAll(filepath.Join(w, d), 0o755); err != nil {
			b.Fatal(err)
		}
	}
	files := []string{".git/config", ".git/HEAD", ".git/description", ".git/info/exclude", ".git/refs/heads/main",
		".husky/pre-commit", ".vscode/settings.json", ".vscode/tasks.json", ".claude/settings.json"}
	for i := range 14 {
		files = append(files, filepath.Join(".git/hooks", "hook"+string(rune('a'+i))+".sample"))
	}
	for i := range 200 {
		files = append(files, filepath.Join(".git/objects/ab", string(rune('a'+i%26))+string(rune('a'+i/26))))
	}
	for _, f := range files {
		if err := os.WriteFile(filepath.Join(w, f), []byte("x"), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	spec := &sandbox.Spec{Filesystem: sandbox.Filesystem{Writable: []string{w},
		Protected:          []string{".git", ".husky", ".vscode", ".claude"},
		ProtectedIfPresent: []string{".idea", ".mcp.json", ".envrc", ".agentbox", ".devcontainer", ".cursor", ".gemini", ".zed"}}}
	b.ResetTimer()
	for range b.N {
		pl, err := buildPlan(spec, false)
		if err != nil {
			b.Fatal(err)
		}
		pl.removePlaceholders()
	}
}
