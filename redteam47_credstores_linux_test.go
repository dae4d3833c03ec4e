//go:build linux

package agentbox_test

import "testing"

// TestRedteam47UnlistedCredentialStores: stores of login tokens, keys and
// passwords that hold nothing but credentials and that the default deny
// list (internal/credpaths.Home, read by config.go:DefaultDenyRead) does
// not name, so a sandboxed `cat` under DefaultConfig reads each in full:
//
//   - desktop apps whose snap round 46 denied (snap/element-desktop,
//     snap/teams-for-linux, snap/bitwarden, snap/1password,
//     snap/zoom-client) keep the same profile in ~/.config/Element,
//     ~/.config/teams-for-linux, ~/.config/Bitwarden, ~/.config/1Password
//     and ~/.zoom when installed from a .deb, an AppImage or a tarball:
//     the Matrix access token, the Teams session cookies, the Bitwarden
//     vault with its protected key, the 1Password account data, the Zoom
//     session;
//   - tools beside those already denied: Poetry's auth.toml (its
//     credentials in plain text wherever no keyring runs: every headless
//     server and container), the MinIO client's access and secret keys
//     (~/.mc/config.json, as ~/.s3cfg is denied), helm's repository
//     passwords (~/.config/helm/repositories.yaml; helm's registry
//     logins are denied), Emacs's ~/.authinfo (netrc format: ~/.netrc is
//     denied; magit forge's GitHub token), Talos's and Argo CD's cluster
//     credentials (~/.talos/config, ~/.config/argocd/config, as ~/.kube
//     is denied), the Ansible Galaxy token, isync's ~/.mbsyncrc (as
//     ~/.msmtprc and ~/.fetchmailrc are denied), Pidgin's plain-text
//     passwords (~/.purple/accounts.xml), DBeaver's saved database
//     passwords (encrypted with a key published in its source), the
//     Syncthing device key, keyrings.alt's plain-text keyring, the
//     Doppler, Railway and Cloud Foundry command-line logins.
//
// Controls: ~/.profile is read; ~/.aws/credentials is refused.
//
// Severity: high (a secret read under the default policy).
// Found by red-team round 47 (high). Fixed: each is on credpaths.Home
// (helm's repositories.yaml too, though helm reads it for the repositories'
// addresses: its passwords are in plain text beside them).
func TestRedteam47UnlistedCredentialStores(t *testing.T) {
	home := rt46bHome(t)
	rt46bProbe(t, home, []rt46bSecret{
		{".config/Element/Local Storage/leveldb/000003.log", `mx_access_token "syt_%s"`, "Element Desktop (deb/AppImage): the Matrix access token"},
		{".config/teams-for-linux/Cookies", "SQLite format 3 cookies %s", "teams-for-linux (deb): session cookies"},
		{".config/Bitwarden/data.json", `{"global":{"accessToken":"%s"}}`, "Bitwarden desktop (deb/AppImage): the access token and the vault"},
		{".config/1Password/settings/settings.json", `{"account":"%s"}`, "1Password desktop (deb): account data"},
		{".zoom/data/zoomus.enc.db", "SQLite %s", "Zoom (deb): the session database"},
		{".config/pypoetry/auth.toml", "[http-basic.private]\nusername = \"me\"\npassword = \"%s\"\n", "Poetry: repository passwords in plain text without a keyring"},
		{".mc/config.json", `{"aliases":{"s3":{"accessKey":"AKIA","secretKey":"%s"}}}`, "MinIO client: S3 access and secret keys"},
		{".config/helm/repositories.yaml", "repositories:\n- name: private\n  password: %s\n", "helm: chart repository passwords"},
		{".authinfo", "machine api.github.com login me^forge password %s\n", "Emacs auth-source (magit forge): tokens in netrc format"},
		{".talos/config", "contexts:\n  prod:\n    key: %s\n", "Talos: the cluster admin's client key"},
		{".config/argocd/config", "users:\n- auth-token: %s\n", "Argo CD CLI: the session token"},
		{".ansible/galaxy_token", "token: %s\n", "Ansible Galaxy: the API token"},
		{".mbsyncrc", "IMAPAccount work\nPass %s\n", "isync (mbsync): the IMAP password"},
		{".purple/accounts.xml", "<account><password>%s</password></account>", "Pidgin: chat passwords in plain text"},
		{".local/share/DBeaverData/workspace6/General/.dbeaver/credentials-config.json", "%s", "DBeaver: saved database passwords"},
		{".config/syncthing/key.pem", "-----BEGIN EC PRIVATE KEY-----\n%s\n", "Syncthing: the device's private key"},
		{".local/state/syncthing/key.pem", "-----BEGIN EC PRIVATE KEY-----\n%s\n", "Syncthing 1.27+: the device's private key"},
		{".local/share/python_keyring/keyring_pass.cfg", "[service]\nuser = %s\n", "keyrings.alt's plain-text keyring"},
		{".doppler/.doppler.yaml", "scoped:\n  /:\n    token: dp.ct.%s\n", "Doppler CLI: the login token"},
		{".railway/config.json", `{"user":{"token":"%s"}}`, "Railway CLI: the login token"},
		{".cf/config.json", `{"AccessToken":"bearer %s"}`, "Cloud Foundry CLI: access and refresh tokens"},
	})
}
