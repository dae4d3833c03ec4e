//go:build linux

package agentbox_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRedteam60RubyGemsCredentials: the RubyGems API key (what `gem
// signin` stores, and `gem push` and `gem yank` use) where RubyGems itself
// keeps it, which the default deny list (internal/credpaths.Home, read by
// config.go:DefaultDenyRead) does not name, so a sandboxed `cat` under
// DefaultConfig reads it in full. RubyGems >= 3.2 writes the key to
// Gem.data_home/gem/credentials, that is ~/.local/share/gem/credentials
// ($XDG_DATA_HOME/gem/credentials where that is set), whenever
// ~/.gem/credentials does not already exist (rubygems/config_file.rb:
// Gem::ConfigFile#credentials_path). The deny list names only the older
// ~/.gem/credentials, and the README says RubyGems' publishing token is
// denied ("registries' publishing tokens (~/.cargo/credentials.toml,
// ~/.gem/credentials)"). A fresh machine's `gem signin` (Debian's ruby
// 3.1 with RubyGems 3.3.15, here) leaves the key readable by every
// sandbox.
//
// The premise runs the real RubyGems on the host: Gem::ConfigFile's
// rubygems_api_key= (what `gem signin` calls once the server answered)
// writes a marker key, and ruby names the file it used. A sandbox of
// DefaultConfig then cats it; the same with XDG_DATA_HOME set.
// Controls: ~/.profile is read; ~/.aws/credentials and the old
// ~/.gem/credentials (a marker planted after RubyGems wrote the new one,
// so the premise saw it missing) are refused.
//
// Severity: high (a secret read under the default policy: the key pushes
// and yanks the user's gems).
//
// Found by red-team round 60. Fixed: .local/share/gem/credentials is in credpaths.Home (and so
// under XDG_DATA_HOME too).
// The premise needs the Debian package ruby
// (RubyGems comes with it); the test skips without it.
func TestRedteam60RubyGemsCredentials(t *testing.T) {
	home := rt46bHome(t)
	for _, v := range []string{"GEM_HOME", "GEM_HOST_API_KEY", "GEMRC"} {
		t.Setenv(v, "")
		os.Unsetenv(v)
	}
	h := func(rel string) string { return filepath.Join(home, filepath.FromSlash(rel)) }
	oldCreds := h(".gem/credentials")

	// signin has RubyGems store a key, with env added, and returns the file
	// it names and the marker.
	signin := func(i int, env ...string) (string, string) {
		t.Helper()
		mk := rt46bMarker(i)
		out := rt46bHostRun(t, append([]string{"HOME=" + home}, env...), "", "ruby", "-e",
			`Gem.configuration.rubygems_api_key = "rubygems_`+mk+`"; puts Gem.configuration.credentials_path`)
		path := strings.TrimSpace(out)
		if b, err := os.ReadFile(path); err != nil || !strings.Contains(string(b), mk) {
			t.Fatalf("premise: RubyGems did not keep its API key where it says (%q: %v): %q", out, err, b)
		}
		return path, mk
	}

	// Premise 1: without XDG_DATA_HOME, ~/.local/share/gem/credentials.
	gemCreds, gemMarker := signin(60)
	if want := h(".local/share/gem/credentials"); gemCreds != want {
		t.Fatalf("premise: RubyGems kept its key in %s, not %s", gemCreds, want)
	}
	// Premise 2: with XDG_DATA_HOME, there.
	dataHome := h("xdg-data")
	xdgCreds, xdgMarker := signin(61, "XDG_DATA_HOME="+dataHome)
	if want := filepath.Join(dataHome, "gem", "credentials"); xdgCreds != want {
		t.Fatalf("premise: with XDG_DATA_HOME RubyGems kept its key in %s, not %s", xdgCreds, want)
	}
	if _, err := os.Lstat(oldCreds); err == nil {
		t.Fatal("premise: ~/.gem/credentials exists: RubyGems would have used it")
	}
	// Control: the old place, which the deny list names.
	oldMarker := rt46bMarker(62)
	rt46bWrite(t, home, ".gem/credentials", "---\n:rubygems_api_key: rubygems_"+oldMarker+"\n")

	check := func(creds, marker, what string) {
		t.Helper()
		m := rt46bManager(t, true)
		profile := h(".profile")
		denied := h(rt46bDeniedRel)
		got := rt46bCatAll(t, m, []string{profile, denied, oldCreds, creds})
		if !strings.Contains(got[profile], "readable-control") {
			t.Fatalf("control: an ordinary file of the home was not read: %q", got[profile])
		}
		for _, c := range []struct{ path, marker string }{{denied, "RT46B-DENIED-CONTROL"}, {oldCreds, oldMarker}} {
			if strings.Contains(got[c.path], c.marker) || !strings.Contains(got[c.path], "Permission denied") {
				t.Fatalf("control: the denied %s was not refused: %q", c.path, got[c.path])
			}
		}
		if strings.Contains(got[creds], marker) {
			t.Errorf("LEAK: a sandboxed command under DefaultConfig reads %s (%s): %q", creds, what, strings.TrimSpace(got[creds]))
		} else {
			t.Logf("held: %s: %q", creds, strings.TrimSpace(got[creds]))
		}
	}
	check(gemCreds, gemMarker, "the RubyGems API key `gem signin` stored")
	// The user's environment sets XDG_DATA_HOME (DefaultConfig is made after).
	t.Setenv("XDG_DATA_HOME", dataHome)
	check(xdgCreds, xdgMarker, "the RubyGems API key `gem signin` stored under $XDG_DATA_HOME")
}
