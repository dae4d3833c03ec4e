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
	".kube", ".password-store", ".local/share/keyrings", ".config/op",

	// Package registries' publishing tokens.
	".npmrc", ".pypirc", ".cargo/credentials", ".cargo/credentials.toml", ".gem/credentials",

	// Cloud and infrastructure credentials.
	".aws", ".azure", ".config/gcloud", ".oci", ".config/doctl", ".vault-token",
	".terraform.d/credentials.tfrc.json", ".s3cfg", ".boto", ".config/rclone/rclone.conf",

	// Database clients' stored passwords.
	".pgpass", ".my.cnf",

	// AI coding agents' own login tokens.
	".claude/.credentials.json", ".codex/auth.json", ".gemini/oauth_creds.json",
	".config/github-copilot",

	// Browsers' cookies and saved passwords, and the macOS keychains.
	".mozilla", ".config/google-chrome", ".config/chromium", "Library/Keychains",

	// Shell histories: commands typed with a token in them.
	".bash_history", ".zsh_history", ".local/share/atuin",
}
