package agentbox

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/agentbox-dev/agentbox/internal/liveroots"
)

// beforeRun is what the writable roots held before a command that could
// run code on the host later: git repositories and coding agents'
// configuration files. After the command, what it planted is told apart
// from what was there, disabled and reported (sweep).
type beforeRun struct {
	repos    map[string][]string // by writable root, every root a key (see protectRepositories)
	configs  map[string]bool     // the AgentConfigFiles paths that existed
	relHooks []string            // the global core.hooksPath values relative to each repository
	live     *liveroots.Entry    // the sandbox's registration as running
}

// end says that the command's tree is gone: its writable roots are no
// longer a running sandbox's (liveroots). Before the sweep.
func (b *beforeRun) end() {
	if b != nil {
		b.live.Done()
	}
}

// newBeforeRun records the AgentConfigFiles of every writable root beside
// the repositories found, and the global hooks paths relative to each.
func newBeforeRun(repos map[string][]string, relHooks []string) *beforeRun {
	b := &beforeRun{repos: repos, configs: make(map[string]bool), relHooks: relHooks}
	for w := range repos {
		for _, name := range AgentConfigFiles {
			p := filepath.Join(w, name)
			if _, err := os.Lstat(p); err == nil {
				b.configs[p] = true
			}
		}
	}
	return b
}

// fixedNamer is a sandbox that reports the names in writable roots a mount
// covered for the whole run (the native runtime's masks and read-only
// binds): the command could not have made anything there.
type fixedNamer interface{ FixedNames() []string }

// fixedNames returns sb's fixed names, if it reports them.
func fixedNames(sb any) map[string]bool {
	f, ok := sb.(fixedNamer)
	if !ok {
		return nil
	}
	out := make(map[string]bool)
	for _, p := range f.FixedNames() {
		out[p] = true
	}
	return out
}

// sweep disables what the command planted and reports it. fixed are the
// names the sandbox covered with mounts for the run: what stands there was
// not made by the command, but is agentbox's (the placeholder that held a
// missing deny path: moving it away would uncover the path for every
// other sandbox it masks) or the host's.
func (b *beforeRun) sweep(fixed map[string]bool) []Violation {
	if b == nil {
		return nil
	}
	roots := slices.Sorted(func(yield func(string) bool) {
		for w := range b.repos {
			if !yield(w) {
				return
			}
		}
	})
	out := sweepNewRepos(b.repos, roots, b.relHooks)
	for _, w := range roots {
		access := scanAccess{root: w}
		for _, name := range AgentConfigFiles {
			p := filepath.Join(w, name)
			if b.configs[p] || fixed[p] {
				continue // there before, or covered for the run
			}
			_, err := os.Lstat(p)
			if errors.Is(err, fs.ErrPermission) {
				// The command took the search permission off its root, the
				// caller's own: given back for the sweep.
				if gerr := access.grant(w); gerr == nil {
					_, err = os.Lstat(p)
				}
			}
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			if err != nil {
				out = append(out, Violation{Kind: "filesystem", Rule: "planted-agent-config",
					Detail: fmt.Sprintf("%s could not be examined (%v): a coding agent configuration the command made there was not checked", p, err)})
				continue
			}
			v := Violation{Kind: "filesystem", Rule: "planted-agent-config", Path: p,
				Detail: fmt.Sprintf("%s was created by the command: a coding agent run on the project would start the commands it names", p)}
			if to, err := quarantine(w, p); err != nil {
				v.Detail += "; agentbox could not disable it: " + err.Error()
			} else {
				v.Detail += "; agentbox renamed it to " + to
			}
			out = append(out, v)
		}
		access.restore()
	}
	return out
}
