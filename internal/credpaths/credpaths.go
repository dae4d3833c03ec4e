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
	// Subversion's cached passwords (svn.simple), Talos' client key, CIFS
	// mounts' credentials file.
	".subversion/auth", ".talos/config", ".smbcredentials",
	// Emacs' auth-source (netrc format), plain-text Python keyrings.
	".authinfo", ".authinfo.gpg", ".local/share/python_keyring",
	// git credential-cache's daemon sockets: it hands out the passwords it holds.
	".cache/git/credential", ".git-credential-cache",
	// Erlang's distribution cookie: whoever has it runs code on the user's
	// Erlang nodes (RabbitMQ, Elixir releases).
	".erlang.cookie",

	// Package registries' publishing tokens.
	".npmrc", ".yarnrc.yml", ".pypirc", ".cargo/credentials", ".cargo/credentials.toml", ".gem/credentials",
	// RubyGems 3.2+ keeps the key there when ~/.gem/credentials does not exist.
	".local/share/gem/credentials",
	".config/dart/pub-tokens.json", ".sbt/.credentials", ".ivy2/.credentials", ".jfrog", ".config/tea",
	".config/configstore/snyk.json", ".sentryclirc", ".wakatime.cfg", ".config/code-server/config.yaml",
	// Secrets by convention: a home's .env, dbt's database profiles.
	".env", ".dbt/profiles.yml",

	// Cloud and infrastructure credentials.
	".aws", ".azure", ".config/gcloud", ".oci", ".config/doctl", ".vault-token",
	".terraform.d/credentials.tfrc.json", ".terraformrc", ".s3cfg", ".boto", ".config/rclone/rclone.conf",
	".tsh", ".step", ".aliyun", ".config/openstack/clouds.yaml", ".config/openstack/secure.yaml",
	".cloudflared", ".config/helm/registry", ".config/scw", ".bluemix", ".ovh.conf",
	// helm's chart repositories' passwords, the MinIO client's keys, Argo
	// CD's session, Poetry's repository passwords (plain text without a
	// keyring), the Ansible Galaxy token.
	".config/helm/repositories.yaml", ".mc/config.json", ".config/argocd", ".config/pypoetry/auth.toml",
	".ansible/galaxy_token",

	// Deployment, CI and platform command-line tools' login tokens.
	".config/stripe", ".fly/config.yml", ".config/netlify", ".netlify/config.json",
	".doppler", ".railway/config.json", ".cf/config.json",
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
	".pgpass", ".pg_service.conf", ".my.cnf", ".mylogin.cnf", ".snowsql/config", ".msmtprc", ".fetchmailrc", ".mbsyncrc",
	".purple", ".local/share/DBeaverData",
	".config/filezilla", ".vnc/passwd", ".config/remmina", ".local/share/remmina",
	// JetBrains IDEs' password store (c.pwd, c.kdbx) beside their settings.
	".config/JetBrains",
	// The Snowflake connectors' token caches (browser-SSO ID and MFA
	// tokens; dbt turns them on), beside an OCSP cache left readable.
	".cache/snowflake/credential_cache_v1.json", ".cache/snowflake/temporary_credential.json",
	"Library/Caches/Snowflake/credential_cache_v1.json", "Library/Caches/Snowflake/temporary_credential.json",

	// AI coding agents' own login tokens.
	".claude/.credentials.json", ".codex/auth.json", ".gemini/oauth_creds.json",
	".config/github-copilot", ".local/share/opencode/auth.json", ".qwen/oauth_creds.json",
	".config/io.datasette.llm/keys.json", ".continue/config.yaml", ".continue/config.json",
	// aider's settings hold its API keys (openai-api-key, anthropic-api-key).
	".aider.conf.yml",

	// Browsers' and mail and chat clients' cookies, sessions and saved
	// passwords; the desktop keyrings and the macOS keychains.
	".mozilla", ".config/google-chrome", ".config/google-chrome-beta", ".config/google-chrome-unstable",
	".config/chromium", ".config/BraveSoftware", ".config/vivaldi", ".config/opera",
	".config/microsoft-edge", ".thunderbird", ".config/Slack", ".config/discord", ".config/Signal",
	// The same apps' profiles outside snap (deb, AppImage, tarball).
	".config/Element", ".config/teams-for-linux", ".config/Bitwarden", ".config/1Password", ".zoom",
	// Syncthing's device key and API key.
	".config/syncthing", ".local/state/syncthing",
	".local/share/TelegramDesktop", ".local/share/kwalletd", "Library/Keychains",
	// NSS's databases (client certificates' private keys); Java's default
	// keystore (keytool -genkeypair without -keystore, jarsigner).
	".pki", ".keystore",
	// Snap and Flatpak apps keep their whole profiles (Ubuntu's Firefox,
	// Thunderbird and Chromium are snaps) under ~/snap/NAME and
	// ~/.var/app; their programs do not run in a sandbox anyway
	// (snap-confine needs privileges).
	"snap/firefox", "snap/chromium", "snap/thunderbird", "snap/brave", "snap/opera", "snap/vivaldi",
	"snap/slack", "snap/discord", "snap/signal-desktop", "snap/telegram-desktop", "snap/bitwarden",
	"snap/keepassxc", "snap/1password", "snap/element-desktop", "snap/teams-for-linux", "snap/zoom-client",
	".var/app",

	// Cryptocurrency wallets and keys.
	".bitcoin", ".ethereum/keystore", ".electrum", ".config/solana", ".config/Exodus",

	// Shell and interpreter histories: commands typed with a token in them.
	".bash_history", ".zsh_history", ".local/share/atuin", ".local/share/fish/fish_history",
	".python_history", ".node_repl_history", ".psql_history", ".mysql_history",
	".rediscli_history", ".sqlite_history", ".zhistory", ".histfile", ".sh_history", ".mksh_history",
	".viminfo", ".local/state/nvim/shada", ".local/share/nvim/shada", ".lesshst",
	".ipython/profile_default/history.sqlite", ".mongodb/mongosh", ".dbshell", ".mongorc.js",
	".clickhouse-client-history", ".duckdb_history", ".irb_history", ".pry_history",
	".julia/logs/repl_history.jl", ".local/share/ipython",
}

// BuildConfig lists files under a home that often hold passwords or tokens
// but that builds read for their other settings (mirrors, JVM options,
// package sources): the classifier judges a command that names one as
// reading secrets, but the sandbox does not deny them (see Home).
var BuildConfig = []string{
	".m2/settings.xml", ".m2/settings-security.xml", ".gradle/gradle.properties",
	".nuget/NuGet/NuGet.Config", ".bundle/config",
}

// Moved lists the environment variables that move a credential store out
// of its place in Home: the variable's value is the store itself (Sub ""),
// or a directory the store Sub is in; List values are colon-separated
// (KUBECONFIG).
var Moved = []struct {
	Var, Sub string
	List     bool
}{
	{Var: "KUBECONFIG", List: true}, {Var: "HISTFILE"}, {Var: "GNUPGHOME"}, {Var: "PASSWORD_STORE_DIR"},
	{Var: "CARGO_HOME", Sub: "credentials"}, {Var: "CARGO_HOME", Sub: "credentials.toml"},
	{Var: "AWS_SHARED_CREDENTIALS_FILE"}, {Var: "AWS_CONFIG_FILE"}, {Var: "DOCKER_CONFIG"},
	{Var: "NPM_CONFIG_USERCONFIG"}, {Var: "npm_config_userconfig"}, {Var: "AZURE_CONFIG_DIR"},
	{Var: "ANDROID_USER_HOME", Sub: "adbkey"}, {Var: "GOOGLE_APPLICATION_CREDENTIALS"}, {Var: "CLOUDSDK_CONFIG"},
	{Var: "GH_CONFIG_DIR"}, {Var: "PGPASSFILE"}, {Var: "PSQL_HISTORY"}, {Var: "MYSQL_HISTFILE"},
	{Var: "NODE_REPL_HISTORY"}, {Var: "PYTHON_HISTORY"}, {Var: "LESSHISTFILE"}, {Var: "SQLITE_HISTORY"},
	{Var: "REDISCLI_HISTFILE"}, {Var: "TF_CLI_CONFIG_FILE"}, {Var: "RCLONE_CONFIG"}, {Var: "BOTO_CONFIG"},
	{Var: "NETRC"}, {Var: "KAGGLE_CONFIG_DIR"}, {Var: "HF_TOKEN_PATH"}, {Var: "HF_HOME", Sub: "token"},
	{Var: "SOPS_AGE_KEY_FILE"}, {Var: "MINIKUBE_HOME"}, {Var: "PULUMI_HOME", Sub: "credentials.json"},
	{Var: "VAULT_TOKEN_FILE"}, {Var: "DBT_PROFILES_DIR", Sub: "profiles.yml"},
	{Var: "TELEPORT_HOME"}, {Var: "STEPPATH"}, {Var: "CLOUDFLARED_HOME"},
	// gcloud's access token file, the docker client's TLS key for a remote
	// daemon, boto's configuration path list, libpq's service file.
	{Var: "CLOUDSDK_AUTH_ACCESS_TOKEN_FILE"}, {Var: "DOCKER_CERT_PATH", Sub: "key.pem"},
	{Var: "BOTO_PATH", List: true}, {Var: "PGSERVICEFILE"},
	// Lima's and Colima's homes moved (their VMs' SSH keys; see .lima).
	{Var: "LIMA_HOME"}, {Var: "COLIMA_HOME"},
}

// XDG lists the base-directory variables and the part of a Home entry each
// replaces when set (XDG_CONFIG_HOME=/h/cfg moves .config/gh to /h/cfg/gh).
var XDG = []struct{ Var, Prefix string }{
	{"XDG_CONFIG_HOME", ".config/"}, {"XDG_DATA_HOME", ".local/share/"},
	{"XDG_STATE_HOME", ".local/state/"}, {"XDG_CACHE_HOME", ".cache/"},
}
