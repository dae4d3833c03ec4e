//go:build linux

package agentbox_test

import "testing"

// TestRedteam46InfraCredentialStores: credential files of infrastructure,
// cloud and registry tools that no ordinary build reads, missing from the
// default deny list though their siblings are on it (~/.aws, ~/.oci,
// ~/.config/doctl, ~/.config/hcloud, ~/.terraform.d/credentials.tfrc.json,
// ~/.kube, ~/.npmrc, ~/.pypirc, ~/.databrickscfg, ~/.config/ngrok, …):
// Teleport's private keys and certificates (~/.tsh: a login to every server
// and cluster the user reaches through Teleport), smallstep's CA keys,
// Alibaba Cloud's access key, OpenStack's clouds.yaml passwords,
// cloudflared's origin certificate (creates and runs tunnels on the user's
// Cloudflare account), Terraform's CLI config credentials block (the same
// token as the denied credentials.tfrc.json), Helm's OCI registry logins,
// code-server's password, Scaleway's and IBM Cloud's keys, OVH's API
// secrets, Gitea's tea tokens, JFrog's tokens, sbt's and Ivy's publishing
// credentials, Yarn Berry's npmAuthToken (the ~/.npmrc of Yarn 2+), Dart's
// pub tokens, Snyk's token (configstore), sentry-cli's token, WakaTime's key,
// dbt's warehouse passwords, Remmina's saved passwords with the key that
// decrypts them, JetBrains IDEs' KeePass password store with its master
// password. A sandboxed `cat` reads every one in full.
//
// Why: internal/credpaths.Home (read by config.go:DefaultDenyRead) is a
// list of names; none of these is on it.
//
// Controls: ~/.profile is read; ~/.aws/credentials is refused.
//
// Severity: high (secrets read under the default policy).
// Found by red-team round 46 (high). Fixed: the stores are on credpaths.Home.
func TestRedteam46InfraCredentialStores(t *testing.T) {
	home := rt46bHome(t)
	rt46bProbe(t, home, []rt46bSecret{
		{".tsh/keys/teleport.example.com/alice", "-----BEGIN RSA PRIVATE KEY-----\n%s\n-----END RSA PRIVATE KEY-----\n", "Teleport: the user's private key"},
		{".step/secrets/intermediate_ca_key", "-----BEGIN EC PRIVATE KEY-----\n%s\n-----END EC PRIVATE KEY-----\n", "smallstep: the CA's signing key"},
		{".aliyun/config.json", `{"profiles":[{"access_key_id":"LTAI","access_key_secret":"%s"}]}`, "Alibaba Cloud CLI: access key"},
		{".config/openstack/clouds.yaml", "clouds:\n  prod:\n    auth:\n      password: %s\n", "OpenStack: clouds.yaml password"},
		{".cloudflared/cert.pem", "-----BEGIN ARGO TUNNEL TOKEN-----\n%s\n-----END ARGO TUNNEL TOKEN-----\n", "cloudflared: the account's origin certificate"},
		{".terraformrc", "credentials \"app.terraform.io\" {\n  token = \"%s\"\n}\n", "Terraform CLI config: API token"},
		{".config/helm/registry/config.json", `{"auths":{"ghcr.io":{"auth":"%s"}}}`, "Helm: OCI registry logins"},
		{".config/code-server/config.yaml", "bind-addr: 127.0.0.1:8080\nauth: password\npassword: %s\n", "code-server: the IDE's password"},
		{".config/scw/config.yaml", "secret_key: %s\n", "Scaleway CLI: secret key"},
		{".bluemix/config.json", `{"IAMToken":"Bearer %s","IAMRefreshToken":"x"}`, "IBM Cloud CLI: IAM tokens"},
		{".ovh.conf", "[ovh-eu]\napplication_secret=%s\nconsumer_key=x\n", "OVH API: application secret"},
		{".config/tea/config.yml", "logins:\n- name: gitea\n  token: %s\n", "Gitea tea: access token"},
		{".jfrog/jfrog-cli.conf.v6", `{"servers":[{"accessToken":"%s"}]}`, "JFrog CLI: access token"},
		{".sbt/.credentials", "realm=Sonatype Nexus Repository Manager\nhost=oss.sonatype.org\nuser=alice\npassword=%s\n", "sbt: publishing credentials"},
		{".ivy2/.credentials", "host=repo.example.com\nuser=alice\npassword=%s\n", "Ivy: publishing credentials"},
		{".yarnrc.yml", "npmAuthToken: %s\n", "Yarn Berry: the npm publishing token"},
		{".config/dart/pub-tokens.json", `{"hosted":[{"url":"https://pub.dev","token":"%s"}]}`, "Dart pub: registry tokens"},
		{".config/configstore/snyk.json", `{"api":"%s"}`, "Snyk CLI: API token"},
		{".sentryclirc", "[auth]\ntoken=%s\n", "sentry-cli: auth token"},
		{".wakatime.cfg", "[settings]\napi_key = %s\n", "WakaTime: API key"},
		{".dbt/profiles.yml", "prod:\n  outputs:\n    prod:\n      password: %s\n", "dbt: warehouse password"},
		{".config/remmina/remmina.pref", "[remmina_pref]\nsecret=%s\n", "Remmina: the key of its saved passwords"},
		{".local/share/remmina/prod.remmina", "[remmina]\npassword=%s\n", "Remmina: a saved RDP/SSH password"},
		{".config/JetBrains/IntelliJIdea2024.3/c.pwd", "encryption_spec:\n  provider: builtIn\nvalue: %s\n", "JetBrains: master password of the KeePass store"},
		{".config/JetBrains/IntelliJIdea2024.3/c.kdbx", "KDBX %s", "JetBrains: the KeePass password store"},
	})
}
