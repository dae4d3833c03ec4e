package classify

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestRedteam47CredStores: well-known files that hold credentials in
// plain text are no credential store to the classifier, so reading them
// is allow (common-safe-commands), where `cat ~/.aws/credentials` is
// escalated (credential-access):
//
//	~/.m2/settings-security.xml      Maven's master password
//	~/.m2/settings.xml               Maven's <server> passwords
//	~/.gradle/gradle.properties      Gradle's repository and signing passwords
//	~/.subversion/auth/svn.simple/*  Subversion's cached passwords
//	~/.nuget/NuGet/NuGet.Config      NuGet's ClearTextPassword
//	~/.bundle/config                 Bundler's BUNDLE_<HOST> credentials
//	~/.smbcredentials                CIFS mount credentials
//	~/.talos/config                  Talos client key
//	/etc/ssh/ssh_host_ed25519_key    the host's private key
//	/etc/wireguard/wg0.conf          WireGuard PrivateKey
//	/etc/NetworkManager/system-connections/*  Wi-Fi and VPN secrets
//	/etc/letsencrypt/live/*/privkey.pem       TLS private keys
//	/etc/kubernetes/pki/ca.key       the cluster CA key (admin.conf is listed)
//	/etc/rancher/k3s/k3s.yaml        k3s' admin kubeconfig
//	/etc/krb5.keytab                 Kerberos host keys
//	/etc/mysql/debian.cnf            Debian's MySQL maintenance password
//
// credpaths.Home (internal/credpaths) and secretPaths (secretpaths.go)
// list none of them (nor does secretNames name their files), so
// isSecretPathIn is false and cat/head/grep of them are allow. An agent
// running as root in a container, as they commonly do, reads the /etc
// ones too.
//
// Severity: high (a credential read judged allow).
// Found by red-team round 47 (high). Fixed: the home stores are on
// credpaths.Home (denied in the sandbox too: TestDefaultDenyClientStores)
// or, where builds read them for other settings, on credpaths.BuildConfig
// (classifier only); the system ones on secretPaths.
func TestRedteam47CredStores(t *testing.T) {
	rtAtLeast(t, rt47bShells(false), `cat ~/.aws/credentials`, Escalated) // control
	home := t.TempDir()
	homeFiles := []string{
		".m2/settings-security.xml", ".m2/settings.xml", ".gradle/gradle.properties",
		".subversion/auth/svn.simple/5671adf2865e267db74f09ba6f872c28", ".nuget/NuGet/NuGet.Config",
		".bundle/config", ".smbcredentials", ".talos/config",
	}
	for _, f := range homeFiles {
		p := filepath.Join(home, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(rt47bSecret+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		line := `cat ~/` + f
		if out := rt47bRun(t, "bash", home, t.TempDir(), line); !strings.Contains(out, rt47bSecret) {
			t.Fatalf("premise: %q did not print the fake secret: %q", line, out)
		}
		rtAtLeast(t, rt47bShells(false), line, Escalated)
	}

	sysFiles := []string{
		"/etc/ssh/ssh_host_ed25519_key", "/etc/wireguard/wg0.conf",
		"/etc/NetworkManager/system-connections/home.nmconnection", "/etc/letsencrypt/live/example.org/privkey.pem",
		"/etc/kubernetes/pki/ca.key", "/etc/rancher/k3s/k3s.yaml", "/etc/krb5.keytab", "/etc/mysql/debian.cnf",
	}
	// Premise: in a user and mount namespace with a fresh /etc holding
	// fake files, cat prints each (the real /etc is never read).
	var script strings.Builder
	script.WriteString("set -e; mount -t tmpfs none /etc\n")
	for _, f := range sysFiles {
		script.WriteString("mkdir -p " + filepath.Dir(f) + "; echo " + rt47bSecret + " > " + f + "\n")
	}
	for _, f := range sysFiles {
		script.WriteString("cat " + f + "\n")
	}
	if rtHave(t, "unshare") {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		out, err := exec.CommandContext(ctx, "unshare", "-rm", "sh", "-c", script.String()).CombinedOutput()
		if err != nil && strings.Contains(string(out), "unshare failed") {
			t.Logf("no user namespaces (%s): premise for /etc not run", out)
		} else if n := strings.Count(string(out), rt47bSecret); n != len(sysFiles) {
			t.Fatalf("premise: cat printed %d of %d fake secrets under /etc: %q (%v)", n, len(sysFiles), out, err)
		}
	}
	for _, f := range sysFiles {
		rtAtLeast(t, rt47bShells(false), `cat `+f, Escalated)
	}
	// Legitimate: ordinary configuration stays readable.
	rtBelow(t, `cat ~/.gitconfig`, Escalated)
	rtBelow(t, `cat /etc/ssh/ssh_config`, Escalated)
	rtBelow(t, `cat /etc/os-release`, Escalated)
}
