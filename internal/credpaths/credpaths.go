// Package credpaths names the places under a home directory where programs
// keep credentials. The default policy denies every sandbox these paths and
// the classifier treats a command that names one as reading secrets: one
// list, so that the two layers cannot drift apart.
package credpaths

// Home lists credential stores relative to a home directory, with slashes.
// An entry is a file or a directory; a directory is denied whole. Only
// stores that ordinary builds and tools do not read are listed: denying
// ~/.m2/settings.xml or ~/.gradle/gradle.properties, say, would break every
// build that uses them.
var Home = []string{
	// Keys and login tokens of the tools agents drive most.
	".ssh", ".gnupg", ".git-credentials", ".config/git/credentials", ".netrc",
	".config/gh", ".config/hub", ".docker", ".config/containers/auth.json",
	".kube", ".password-store", ".local/share/keyrings", ".config/op", ".config/Bitwarden CLI",
	// git credential-cache's daemon sockets: it hands out the passwords it holds.
	".cache/git/credential", ".git-credential-cache",
	// Erlang's distribution cookie: whoever has it runs code on the user's
	// Erlang nodes (RabbitMQ, Elixir releases).
	".erlang.cookie",

	// Package registries' publishing tokens.
	".npmrc", ".pypirc", ".cargo/credentials", ".cargo/credentials.toml", ".gem/credentials",

	// Cloud and infrastructure credentials.
	".aws", ".azure", ".config/gcloud", ".oci", ".config/doctl", ".vault-token",
	".terraform.d/credentials.tfrc.json", ".s3cfg", ".boto", ".config/rclone/rclone.conf",

	// Deployment, CI and platform command-line tools' login tokens.
	".config/stripe", ".fly/config.yml", ".config/netlify", ".netlify/config.json",
	".local/share/com.vercel.cli", ".vercel/auth.json", ".config/configstore/firebase-tools.json",
	".pulumi/credentials.json", ".wrangler/config", ".config/.wrangler", ".supabase/access-token",
	".config/glab-cli", ".circleci/cli.yml", ".travis/config.yml", ".config/hcloud", ".config/linode-cli",
	".config/ngrok", ".ngrok2", ".databrickscfg", ".passwd-s3fs", ".gitcookies", ".minikube",
	".kaggle/kaggle.json", ".huggingface/token", ".cache/huggingface/token", ".cache/huggingface/stored_tokens",
	".composer/auth.json", ".config/composer/auth.json", ".config/sops/age/keys.txt", ".android/adbkey",

	// What acts for the user to whoever reaches it: password managers' SSH
	// agents (their sockets), and the virtual machines that run container
	// engines for the user, whose SSH keys and engine sockets give root in
	// a machine with the user's home mounted.
	".1password", ".bitwarden-ssh-agent.sock", "Library/Group Containers/2BUA8C4S2C.com.1password",
	"Library/Containers/com.bitwarden.desktop", "Library/Containers/com.maxgoedjen.Secretive.SecretAgent",
	".lima", ".colima", ".orbstack", ".rd/docker.sock",

	// Database, mail, file-transfer and remote-desktop clients' stored passwords.
	".pgpass", ".my.cnf", ".mylogin.cnf", ".snowsql/config", ".msmtprc", ".fetchmailrc",
	".config/filezilla", ".vnc/passwd",
	// The Snowflake connectors' token caches (browser-SSO ID and MFA
	// tokens; dbt turns them on), beside an OCSP cache left readable.
	".cache/snowflake/credential_cache_v1.json", ".cache/snowflake/temporary_credential.json",
	"Library/Caches/Snowflake/credential_cache_v1.json", "Library/Caches/Snowflake/temporary_credential.json",

	// AI coding agents' own login tokens.
	".claude/.credentials.json", ".codex/auth.json", ".gemini/oauth_creds.json",
	".config/github-copilot",

	// Browsers' and mail and chat clients' cookies, sessions and saved
	// passwords; the desktop keyrings and the macOS keychains.
	".mozilla", ".config/google-chrome", ".config/chromium", ".config/BraveSoftware",
	".config/microsoft-edge", ".thunderbird", ".config/Slack", ".config/discord",
	".local/share/TelegramDesktop", ".local/share/kwalletd", "Library/Keychains",

	// Cryptocurrency wallets and keys.
	".bitcoin", ".ethereum/keystore", ".electrum", ".config/solana", ".config/Exodus",

	// Shell and interpreter histories: commands typed with a token in them.
	".bash_history", ".zsh_history", ".local/share/atuin", ".local/share/fish/fish_history",
	".python_history", ".node_repl_history", ".psql_history", ".mysql_history",
	".rediscli_history", ".sqlite_history",
}
