//go:build linux

package attack_test

import (
	"path/filepath"
	"testing"
)

// TestPolicyEdgeConfigAliasing: Manager.Config says it returns a copy,
// and NewManager validates the Config it is given; neither must let a
// later change to the caller's Config value (one derived for another
// Manager, say) change what the Manager enforces without validation.
func TestPolicyEdgeConfigAliasing(t *testing.T) {
	t.Parallel()
	dir := newDir(t, 0o755)
	secretA, secretB := filepath.Join(dir, "a.txt"), filepath.Join(dir, "b.txt")
	writeFile(t, secretA, uniqueSecret("alias-a"), 0o644)
	writeFile(t, secretB, uniqueSecret("alias-b"), 0o644)
	writeFile(t, filepath.Join(dir, "public.txt"), publicContent, 0o644)
	cfg := ciConfig()
	cfg.Filesystem.DenyRead = append(cfg.Filesystem.DenyRead, secretA, secretB)
	m := newManager(t, cfg)
	// The caller goes on using its own value...
	cfg.Filesystem.DenyRead[len(cfg.Filesystem.DenyRead)-2] = filepath.Join(dir, "nothing-a")
	// ...and derives another policy from the Manager's copy.
	other := m.Config()
	other.Filesystem.DenyRead[len(other.Filesystem.DenyRead)-1] = filepath.Join(dir, "nothing-b")
	ps := []probe{
		control("public", "read:"+filepath.Join(dir, "public.txt"), publicContent),
		attack("denied_a", "read:"+secretA, "EACCES"),
		attack("denied_b", "read:"+secretB, "EACCES"),
	}
	runProbes(t, m, ps)
}
