package classify

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Helpers of red-team round 61, helper a. They build on round 60's
// (redteam60_helpers_a_test.go: a fake home with ~/.ssh/id_rsa, bash -c
// in a working directory beside it, the marker the removal of that
// ~/.ssh), adding a project prepared before the line runs.

// rt61aPremise is rt60aPremise with setup(work) run in each fresh working
// directory first (the project the line finds there).
func rt61aPremise(t *testing.T, setup func(t *testing.T, work string), line, control string, extra ...string) {
	t.Helper()
	home, work := rt60aHome(t)
	setup(t, work)
	run := strings.ReplaceAll(line, "~/.ssh", filepath.Join(home, ".ssh"))
	if out := rt60aRun(t, home, work, run, extra...); !rt60aGone(home) {
		t.Fatalf("premise: %q did not remove ~/.ssh (output %q)", run, out)
	}
	if control != "" {
		home, work = rt60aHome(t)
		setup(t, work)
		control = strings.ReplaceAll(control, "~/.ssh", filepath.Join(home, ".ssh"))
		if out := rt60aRun(t, home, work, control, extra...); rt60aGone(home) {
			t.Fatalf("premise: harmless %q removed ~/.ssh (output %q)", control, out)
		}
	}
}

// rt61aNodePkg installs, as npm does, a package name in work/node_modules
// whose one bin (name) is bin/name.js with the given JavaScript:
// node_modules/name/package.json, the executable script and the
// node_modules/.bin/name symlink to it; and a package.json of the
// project depending on it.
func rt61aNodePkg(t *testing.T, work, name, js string) {
	t.Helper()
	dir := filepath.Join(work, "node_modules", name)
	if err := os.MkdirAll(filepath.Join(dir, "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(work, "node_modules", ".bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	pkg, _ := json.Marshal(map[string]any{"name": name, "version": "1.0.0", "bin": map[string]string{name: "bin/" + name + ".js"}})
	if err := os.WriteFile(filepath.Join(dir, "package.json"), pkg, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "bin", name+".js"), []byte("#!/usr/bin/env node\n"+js+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../"+name+"/bin/"+name+".js", filepath.Join(work, "node_modules", ".bin", name)); err != nil {
		t.Fatal(err)
	}
	proj := filepath.Join(work, "package.json")
	deps := map[string]any{}
	if b, err := os.ReadFile(proj); err == nil {
		var p map[string]map[string]any
		_ = json.Unmarshal(b, &p)
		for k, v := range p["devDependencies"] {
			deps[k] = v
		}
	}
	deps[name] = "1.0.0"
	b, _ := json.Marshal(map[string]any{"name": "proj", "version": "1.0.0", "devDependencies": deps})
	if err := os.WriteFile(proj, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// rt61aNpmEnv keeps npm offline and its cache in the fake home.
var rt61aNpmEnv = []string{"npm_config_offline=true", "npm_config_update_notifier=false", "npm_config_fund=false", "npm_config_audit=false"}
