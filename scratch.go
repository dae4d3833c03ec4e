package agentbox

import (
	"os"
	"path/filepath"
)

// ToolCaches are the caches, relative to the home, that package managers
// and build tools write as they work (npm's, pip's, Go's build and module
// caches, Cargo's registry, Maven's and Gradle's repositories, ...).
// DefaultConfig makes the ones that exist scratch directories: a command
// finds them warm and may write them, and what it writes is gone when it
// ends, so no command can poison a cache for the next one or for the
// user's own builds. Credential stores inside them stay denied.
var ToolCaches = []string{
	".cache", ".npm", ".yarn/berry/cache", ".pnpm-store", ".local/share/pnpm", ".bun/install/cache",
	".cargo/registry", ".cargo/git", "go/pkg/mod", "go/pkg/sumdb", ".m2/repository", ".gradle/caches",
	".gradle/wrapper", ".ivy2/cache", ".sbt/boot", ".nuget/packages", ".composer/cache",
	".deno", ".cpan/build", ".stack", ".cabal/packages", ".julia/compiled", ".conan2/p",
}

// DefaultScratch returns ToolCaches in the current user's home (all of
// them: the ones that do not exist are skipped when a command starts).
func DefaultScratch() []string {
	home, err := os.UserHomeDir()
	if err != nil || !filepath.IsAbs(home) {
		return nil
	}
	out := make([]string, 0, len(ToolCaches))
	for _, c := range ToolCaches {
		out = append(out, filepath.Join(home, filepath.FromSlash(c)))
	}
	return out
}
