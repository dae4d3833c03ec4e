//go:build linux

package agentbox_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRedteam60UnlistedMovedCredentialFiles: environment variables that
// name a credential file (or the directory of one) to a tool the way
// GOOGLE_APPLICATION_CREDENTIALS, DOCKER_CONFIG and BOTO_CONFIG do, which
// the default deny list's moved stores (internal/credpaths.Moved, read by
// config.go:movedStores) do not name, so a sandboxed `cat` under
// DefaultConfig reads the file wherever the user's environment puts it:
//
//   - CLOUDSDK_AUTH_ACCESS_TOKEN_FILE: gcloud (and gsutil, bq through it)
//     authenticates with the OAuth access token in that file (CI jobs
//     write one there), as it does with GOOGLE_APPLICATION_CREDENTIALS'
//     key, which is denied;
//   - DOCKER_CERT_PATH: the docker client reads its TLS client key
//     (key.pem, with cert.pem and ca.pem) for a remote daemon from that
//     directory instead of ~/.docker (denied); the key is root on the
//     daemon's host;
//   - BOTO_PATH: gsutil and boto read their configuration, with
//     [Credentials] (the AWS and Google Storage secret keys, OAuth refresh
//     tokens), from the files it lists, as from BOTO_CONFIG (denied).
//
// The premise runs each real tool on the host with the variable set and a
// marker in the file: gcloud prints the marker as its access token, docker
// reports reading its CA from the named directory, gsutil lists the file
// as its configuration. DefaultConfig is then made with the variables set
// (the user's shell exports them), and a sandbox of it cats the files.
// Controls: ~/.profile is read; ~/.aws/credentials and a key that
// GOOGLE_APPLICATION_CREDENTIALS names in the same directory are refused.
//
// Severity: high (a secret read under the default policy).
//
// Found by red-team round 60. Fixed: CLOUDSDK_AUTH_ACCESS_TOKEN_FILE, DOCKER_CERT_PATH (key.pem)
// and BOTO_PATH (a list) are in credpaths.Moved.
// The premise needs gcloud and gsutil (the
// Google Cloud CLI) and the docker client; the test skips without them.
func TestRedteam60UnlistedMovedCredentialFiles(t *testing.T) {
	home := rt46bHome(t)
	for _, v := range []string{"CLOUDSDK_AUTH_ACCESS_TOKEN_FILE", "CLOUDSDK_CONFIG", "DOCKER_CERT_PATH", "DOCKER_TLS_VERIFY",
		"DOCKER_HOST", "BOTO_PATH", "BOTO_CONFIG", "GOOGLE_APPLICATION_CREDENTIALS"} {
		t.Setenv(v, "")
		os.Unsetenv(v)
	}
	h := func(rel string) string { return filepath.Join(home, filepath.FromSlash(rel)) }
	// The tools' own state stays in the test's home, and nothing leaves the
	// machine: gcloud's cached answer to "is this a GCE machine?" (else it
	// looks up metadata.google.internal), no usage reports or update checks.
	toolEnv := []string{"HOME=" + home, "CLOUDSDK_CONFIG=" + h("tools/gcloud"), "DOCKER_CONFIG=" + h("tools/docker"),
		"CLOUDSDK_CORE_DISABLE_USAGE_REPORTING=true", "CLOUDSDK_COMPONENT_MANAGER_DISABLE_UPDATE_CHECK=true", "NO_GCE_CHECK=True"}
	rt46bWrite(t, home, "tools/gcloud/gce", "False")

	// Premise 1: gcloud takes its access token from the file.
	tokenMarker := rt46bMarker(70)
	tokenFile := rt46bWrite(t, home, "ci/gcloud-token", "ya29."+tokenMarker+"\n")
	if out := rt46bHostRun(t, append(toolEnv, "CLOUDSDK_AUTH_ACCESS_TOKEN_FILE="+tokenFile), "", "gcloud", "auth", "print-access-token"); !strings.Contains(out, tokenMarker) {
		t.Fatalf("premise: gcloud did not take its access token from $CLOUDSDK_AUTH_ACCESS_TOKEN_FILE: %q", out)
	}

	// Premise 2: docker reads its TLS files from the directory (it stops at
	// the missing CA, before any connection).
	certDir := h("certs/docker")
	keyMarker := rt46bMarker(71)
	keyFile := rt46bWrite(t, home, "certs/docker/key.pem", "-----BEGIN EC PRIVATE KEY-----\n"+keyMarker+"\n-----END EC PRIVATE KEY-----\n")
	out := rt46bHostRun(t, append(toolEnv, "DOCKER_CERT_PATH="+certDir, "DOCKER_TLS_VERIFY=1", "DOCKER_HOST=tcp://127.0.0.1:9"), "", "docker", "version")
	if !strings.Contains(out, filepath.Join(certDir, "ca.pem")) {
		t.Fatalf("premise: the docker client did not look for its TLS files in $DOCKER_CERT_PATH: %q", out)
	}

	// Premise 3: gsutil reads its boto configuration from the file.
	botoMarker := rt46bMarker(72)
	botoFile := rt46bWrite(t, home, "cfg/boto.cfg", "[Credentials]\naws_access_key_id = AKIAEXAMPLE\naws_secret_access_key = "+botoMarker+"\n[GSUtil]\nsoftware_update_check_period = 0\n")
	if out := rt46bHostRun(t, append(toolEnv, "BOTO_PATH="+botoFile), "", "gsutil", "version", "-l"); !strings.Contains(out, "config path(s): "+botoFile) {
		t.Fatalf("premise: gsutil did not read its configuration from $BOTO_PATH: %q", out)
	}

	// Control: a key GOOGLE_APPLICATION_CREDENTIALS names (a listed moved
	// store) beside them.
	adcMarker := rt46bMarker(73)
	adcFile := rt46bWrite(t, home, "ci/sa.json", `{"type":"service_account","private_key":"`+adcMarker+`"}`)

	// The user's environment, in which agentbox runs and makes DefaultConfig.
	t.Setenv("CLOUDSDK_AUTH_ACCESS_TOKEN_FILE", tokenFile)
	t.Setenv("DOCKER_CERT_PATH", certDir)
	t.Setenv("BOTO_PATH", botoFile)
	t.Setenv("GOOGLE_APPLICATION_CREDENTIALS", adcFile)

	m := rt46bManager(t, true)
	profile := h(".profile")
	denied := h(rt46bDeniedRel)
	got := rt46bCatAll(t, m, []string{profile, denied, adcFile, tokenFile, keyFile, botoFile})
	if !strings.Contains(got[profile], "readable-control") {
		t.Fatalf("control: an ordinary file of the home was not read: %q", got[profile])
	}
	for _, c := range []struct{ path, marker string }{{denied, "RT46B-DENIED-CONTROL"}, {adcFile, adcMarker}} {
		if strings.Contains(got[c.path], c.marker) || !strings.Contains(got[c.path], "Permission denied") {
			t.Fatalf("control: the denied %s was not refused: %q", c.path, got[c.path])
		}
	}
	for _, c := range []struct{ path, marker, what string }{
		{tokenFile, tokenMarker, "$CLOUDSDK_AUTH_ACCESS_TOKEN_FILE: gcloud's access token"},
		{keyFile, keyMarker, "$DOCKER_CERT_PATH/key.pem: the docker client's TLS key for a remote daemon"},
		{botoFile, botoMarker, "$BOTO_PATH: gsutil's and boto's secret keys"},
	} {
		if strings.Contains(got[c.path], c.marker) {
			t.Errorf("LEAK: a sandboxed command under DefaultConfig reads %s (%s): %q", c.path, c.what, strings.TrimSpace(got[c.path]))
		} else {
			t.Logf("held: %s: %q", c.path, strings.TrimSpace(got[c.path]))
		}
	}
}

// TestRedteam60JavaDefaultKeystore: Java's default keystore, ~/.keystore,
// where keytool keeps the private keys it makes and imports when no
// -keystore is given (and jarsigner looks for them), is not on the default
// deny list (internal/credpaths.Home), so a sandboxed `cat` under
// DefaultConfig copies it whole: the private keys (code-signing and TLS
// keys), under the store's password, which is often keytool's example
// "changeit" or the key's own. The list denies the other private-key
// stores of the home (~/.ssh, ~/.gnupg, ~/.pki's NSS database, adb's key).
//
// The premise runs the real keytool with the test's home as Java's
// user.home (Java takes the home from the password database, not $HOME):
// keytool -genkeypair without -keystore writes ~/.keystore, and
// keytool -list shows the private key entry. A sandbox of DefaultConfig
// then cats the file; the bytes it prints must not be the keystore's.
// Controls: ~/.profile is read; ~/.aws/credentials is refused.
//
// Severity: high (a secret read under the default policy; the keys are
// encrypted under the store's password, as an SSH key under its
// passphrase is, and ~/.ssh is denied all the same).
//
// Found by red-team round 60. Fixed: .keystore is in credpaths.Home.
// The premise needs keytool (Debian's
// default-jre-headless); the test skips without it.
func TestRedteam60JavaDefaultKeystore(t *testing.T) {
	home := rt46bHome(t)
	jhome := "-J-Duser.home=" + home
	alias := "rt60" + strings.ToLower(rt46bMarker(74))
	rt46bHostRun(t, nil, "", "keytool", jhome, "-genkeypair", "-alias", alias, "-keyalg", "EC",
		"-dname", "CN=rt60", "-storepass", "changeit", "-keypass", "changeit")
	ks := filepath.Join(home, ".keystore")
	store, err := os.ReadFile(ks)
	if err != nil || len(store) < 64 {
		t.Fatalf("premise: keytool did not write ~/.keystore (%v)", err)
	}
	if out := rt46bHostRun(t, nil, "", "keytool", jhome, "-list", "-storepass", "changeit"); !strings.Contains(out, "PrivateKeyEntry") || !strings.Contains(out, alias) {
		t.Fatalf("premise: ~/.keystore holds no private key entry %s: %q", alias, out)
	}

	m := rt46bManager(t, true)
	profile := filepath.Join(home, ".profile")
	denied := filepath.Join(home, filepath.FromSlash(rt46bDeniedRel))
	got := rt46bCatAll(t, m, []string{profile, denied, ks})
	if !strings.Contains(got[profile], "readable-control") {
		t.Fatalf("control: an ordinary file of the home was not read: %q", got[profile])
	}
	if strings.Contains(got[denied], "RT46B-DENIED-CONTROL") || !strings.Contains(got[denied], "Permission denied") {
		t.Fatalf("control: the denied ~/%s was not refused: %q", rt46bDeniedRel, got[denied])
	}
	// The PKCS#12 store's second half: its encrypted keys and MAC.
	if tail := string(store[len(store)/2:]); strings.Contains(got[ks], tail) {
		t.Errorf("LEAK: a sandboxed command under DefaultConfig copies ~/.keystore whole (%d bytes: Java's default keystore with the private key %s)", len(store), alias)
	} else {
		t.Logf("held: ~/.keystore: %q", strings.TrimSpace(got[ks]))
	}
}
