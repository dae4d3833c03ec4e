//go:build linux

package agentbox_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRedteam46RelocatedCredentialStores: the deny list is a list of the
// tools' default places under the home. Every one of these tools takes its
// place from an environment variable, and moving them out of the home's top
// level into the XDG directories is what the Arch wiki's "XDG Base
// Directory" page and xdg-ninja tell users to do: KUBECONFIG=
// ~/.config/kube/config, CARGO_HOME=~/.local/share/cargo, GNUPGHOME=
// ~/.local/share/gnupg, HISTFILE=~/.local/state/bash/history,
// AWS_SHARED_CREDENTIALS_FILE=~/.config/aws/credentials, DOCKER_CONFIG=
// ~/.config/docker, NPM_CONFIG_USERCONFIG=~/.config/npm/npmrc,
// PASSWORD_STORE_DIR=~/.local/share/pass, AZURE_CONFIG_DIR=
// ~/.local/share/azure, ANDROID_USER_HOME=~/.local/share/android. The
// caller's environment names them, yet DefaultDenyRead ignores it, so a
// sandboxed `cat` reads the kubeconfig's token, the crates.io token,
// the GnuPG secret keys, the bash history, the AWS keys, … (and
// `find ~ -name credentials.toml` finds them: the home is readable).
//
// Premise, checked for real with the host's tools and the variable set:
// kubectl takes its token from $KUBECONFIG, gpg keeps the secret key in
// $GNUPGHOME/private-keys-v1.d, and an interactive bash writes its history
// into $HISTFILE.
//
// Why: config.go:DefaultDenyRead joins internal/credpaths.Home to the home
// and reads none of the variables (KUBECONFIG, CARGO_HOME, GNUPGHOME,
// HISTFILE, AWS_SHARED_CREDENTIALS_FILE, DOCKER_CONFIG, …, nor
// XDG_CONFIG_HOME/XDG_DATA_HOME) that move the stores it lists.
//
// Controls: ~/.profile is read; ~/.aws/credentials is refused.
//
// Severity: high (secrets read under the default policy).
// Found by red-team round 46 (high). Fixed: DefaultDenyRead denies the
// stores the environment moves (credpaths.Moved, credpaths.XDG; movedStores).
func TestRedteam46RelocatedCredentialStores(t *testing.T) {
	home := rt46bHome(t)
	h := func(rel string) string { return filepath.Join(home, filepath.FromSlash(rel)) }

	// What the user's environment says (set before DefaultConfig, as the
	// agent host would have it).
	kubeconfig := h(".config/kube/config")
	gnupgHome := h(".local/share/gnupg")
	histfile := h(".local/state/bash/history")
	env := map[string]string{
		"KUBECONFIG": kubeconfig, "CARGO_HOME": h(".local/share/cargo"), "GNUPGHOME": gnupgHome, "HISTFILE": histfile,
		"AWS_SHARED_CREDENTIALS_FILE": h(".config/aws/credentials"), "DOCKER_CONFIG": h(".config/docker"),
		"NPM_CONFIG_USERCONFIG": h(".config/npm/npmrc"), "PASSWORD_STORE_DIR": h(".local/share/pass"),
		"AZURE_CONFIG_DIR": h(".local/share/azure"), "ANDROID_USER_HOME": h(".local/share/android"),
	}
	var hostEnv []string
	for k, v := range env {
		t.Setenv(k, v)
		hostEnv = append(hostEnv, k+"="+v)
	}

	// Premise 1: kubectl's credentials come from $KUBECONFIG.
	kubeMarker := rt46bMarker(1)
	rt46bWrite(t, home, ".config/kube/config", "apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster:\n    server: https://192.0.2.1\nusers:\n- name: u\n  user:\n    token: "+kubeMarker+"\ncontexts:\n- name: x\n  context:\n    cluster: c\n    user: u\ncurrent-context: x\n")
	if out := rt46bHostRun(t, hostEnv, "", "kubectl", "config", "view", "--raw", "-o", "jsonpath={.users[0].user.token}"); !strings.Contains(out, kubeMarker) {
		t.Fatalf("premise: kubectl did not take its token from $KUBECONFIG: %q", out)
	}
	// Premise 2: an interactive bash writes its history into $HISTFILE.
	histMarker := rt46bMarker(3)
	if err := os.MkdirAll(filepath.Dir(histfile), 0o700); err != nil {
		t.Fatal(err)
	}
	rt46bHostRun(t, hostEnv, "export GITHUB_TOKEN=ghp_"+histMarker+"\nexit\n", "bash", "--norc", "--noprofile", "-i")
	if b, err := os.ReadFile(histfile); err != nil || !strings.Contains(string(b), histMarker) {
		t.Fatalf("premise: bash did not write its history into $HISTFILE (%v): %q", err, b)
	}
	// Premise 3: gpg keeps the secret key under $GNUPGHOME.
	if err := os.MkdirAll(gnupgHome, 0o700); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rt46bHostRun(t, hostEnv, "", "gpgconf", "--kill", "all") })
	rt46bHostRun(t, hostEnv, "", "gpg", "--batch", "--pinentry-mode", "loopback", "--passphrase", "",
		"--quick-gen-key", "rt46b <rt46b@example.invalid>", "ed25519", "sign", "never")
	keys, _ := filepath.Glob(filepath.Join(gnupgHome, "private-keys-v1.d", "*.key"))
	if len(keys) == 0 {
		t.Fatalf("premise: gpg kept no secret key in $GNUPGHOME/private-keys-v1.d")
	}
	gpgKey, err := os.ReadFile(keys[0])
	if err != nil || len(gpgKey) < 32 {
		t.Fatalf("premise: the secret key file: %v", err)
	}

	m := rt46bManager(t, true)
	profile := h(".profile")
	denied := h(rt46bDeniedRel)
	got := rt46bCatAll(t, m, []string{profile, denied, kubeconfig, histfile, keys[0]})
	if !strings.Contains(got[profile], "readable-control") {
		t.Fatalf("control: an ordinary file of the home was not read: %q", got[profile])
	}
	if strings.Contains(got[denied], "RT46B-DENIED-CONTROL") || !strings.Contains(got[denied], "Permission denied") {
		t.Fatalf("control: the denied ~/%s was not refused: %q", rt46bDeniedRel, got[denied])
	}
	for _, c := range []struct{ path, marker, what string }{
		{kubeconfig, kubeMarker, "$KUBECONFIG: the cluster token"},
		{histfile, histMarker, "$HISTFILE: a token typed in bash"},
		{keys[0], string(gpgKey[len(gpgKey)/2:]), "$GNUPGHOME/private-keys-v1.d: the GnuPG secret key"},
	} {
		if strings.Contains(got[c.path], c.marker) {
			t.Errorf("LEAK: a sandboxed command under DefaultConfig reads %s (%s)", c.path, c.what)
		} else {
			t.Logf("held: %s: %q", c.path, got[c.path])
		}
	}

	// The others, planted where their variables point.
	rt46bProbe(t, home, []rt46bSecret{
		{".local/share/cargo/credentials.toml", "[registry]\ntoken = \"cio%s\"\n", "$CARGO_HOME/credentials.toml: the crates.io token"},
		{".config/aws/credentials", "[default]\naws_secret_access_key = %s\n", "$AWS_SHARED_CREDENTIALS_FILE"},
		{".config/docker/config.json", `{"auths":{"ghcr.io":{"auth":"%s"}}}`, "$DOCKER_CONFIG/config.json"},
		{".config/npm/npmrc", "//registry.npmjs.org/:_authToken=npm_%s\n", "$NPM_CONFIG_USERCONFIG"},
		{".local/share/pass/github.gpg", "-----BEGIN PGP MESSAGE----- %s", "$PASSWORD_STORE_DIR"},
		{".local/share/azure/msal_token_cache.json", `{"RefreshToken":{"x":{"secret":"%s"}}}`, "$AZURE_CONFIG_DIR"},
		{".local/share/android/adbkey", "-----BEGIN PRIVATE KEY-----\n%s\n", "$ANDROID_USER_HOME/adbkey"},
	})
}
