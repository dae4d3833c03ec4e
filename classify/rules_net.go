package classify

import (
	"path"
	"slices"
	"strings"
)

// Matchers for remote access, transfers, downloads, databases, scanners,
// credentials and global installs.

var sshCmds = newSet("ssh", "mosh", "autossh", "rsh", "rlogin", "ssh-copy-id", "telnet", "slogin", "dbclient", "plink", "putty", "kitty")

func matchSSH(u *unit, _ *Classifier) bool {
	if u.is(sshCmds) {
		return !u.hasExactFlag("V", "--version", "--help")
	}
	if u.kind == kCall && u.name == "gcloud" {
		v := u.vals()
		return len(v) > 2 && v[0] == "compute" && v[1] == "ssh"
	}
	return false
}

var transferCmds = newSet("scp", "sftp", "ftp", "tftp", "lftp", "ncftp", "ncftpput", "ncftpget", "croc", "wormhole",
	"smbclient", "azcopy", "pscp", "psftp", "rcp", "uucp", "sz", "rz", "kermit")

// httpClients read files named inside their arguments (embeddedFiles).
var httpClients = newSet("curl", "wget", "http", "https", "xh", "httpie", "aria2c")

// embeddedFiles returns the file paths an HTTP client reads from inside one
// argument: curl's @FILE in any data, header or query option (-H @F,
// --data-ascii @F, --data-urlencode name@F, --url-query name@F, attached
// as --opt=@F), and a file:// URL.
func embeddedFiles(v string) []string {
	var out []string
	if p, ok := strings.CutPrefix(v, "file://"); ok {
		out = append(out, p)
	}
	if _, after, ok := strings.Cut(v, "="); ok && strings.HasPrefix(v, "--") {
		v = after // --data-ascii=@F, --url-query=k@F
	} else if len(v) > 2 && v[0] == '-' && v[1] != '-' && v[2] == '@' {
		v = v[2:] // -d@F, -H@F
	}
	if i := strings.IndexByte(v, '@'); i >= 0 && !strings.ContainsAny(v[:i], "/:") {
		out = append(out, v[i+1:]) // @F, name@F, name=@F
	}
	return out
}

func matchFileTransfer(u *unit, _ *Classifier) bool {
	if u.kind != kCall || u.dynName {
		return false
	}
	switch {
	case transferCmds.has(u.name):
		return !u.hasExactFlag("V", "--version", "--help")
	case u.name == "rsync":
		if u.hasFlag("e", "--rsh", "--rsync-path") {
			return true
		}
		for _, f := range u.operands() {
			if remotePath(f.val) {
				return true
			}
		}
	case u.name == "rclone":
		s, _ := u.sub()
		switch s {
		case "copy", "sync", "move", "copyto", "moveto", "bisync", "copyurl", "rcat", "serve", "mount":
			return true
		}
	case netShellTools.has(u.name) || u.name == "socat":
		return !u.hasExactFlag("zhV", "--version", "--help")
	case u.name == "curl":
		if u.hasFlag("TF", "--upload-file", "--form", "--form-string") {
			return true
		}
		for i, f := range u.args {
			v := f.val
			if (v == "-d" || v == "--data" || v == "--data-binary" || v == "--data-raw" || v == "--data-urlencode" || v == "--json") && i+1 < len(u.args) && strings.Contains(u.args[i+1].val, "@") && !strings.HasPrefix(u.args[i+1].val, "{") {
				return strings.HasPrefix(u.args[i+1].val, "@") || strings.Contains(u.args[i+1].val, "=@")
			}
			if strings.HasPrefix(v, "-d@") || strings.HasPrefix(v, "--data-binary=@") || strings.HasPrefix(v, "--data=@") {
				return true
			}
		}
	case u.name == "wget":
		return u.hasFlag("", "--post-file", "--body-file", "--method")
	case u.name == "aws":
		v := u.vals()
		return len(v) > 1 && v[0] == "s3" && (v[1] == "cp" || v[1] == "sync" || v[1] == "mv")
	case u.name == "gsutil" || u.name == "gcloud":
		v := strings.Join(u.vals(), " ")
		return strings.Contains(v, "cp ") || strings.HasPrefix(v, "rsync") || strings.HasPrefix(v, "mv ") || strings.Contains(v, "storage cp")
	case u.name == "git":
		sub, _ := gitSub(u)
		return sub == "send-email"
	}
	return false
}

// remotePath reports whether an rsync/scp operand names another machine.
func remotePath(v string) bool {
	if strings.HasPrefix(v, "rsync://") || strings.Contains(v, "::") {
		return true
	}
	i := strings.IndexByte(v, ':')
	if i <= 0 {
		return false
	}
	if i == 1 && len(v) > 2 && (v[2] == '\\' || v[2] == '/') {
		return false // C:\ drive letter
	}
	return !strings.Contains(v[:i], "/")
}

func matchDownloadToFile(u *unit, _ *Classifier) bool {
	if u.kind != kCall || u.dynName {
		return false
	}
	toFile := false
	for _, r := range u.redirs {
		if (r.op.String() == ">" || r.op.String() == ">>" || r.op.String() == ">|" || r.op.String() == "&>") && !harmlessDevice(r.target.val) {
			toFile = true
		}
	}
	switch u.name {
	case "curl", "curlie", "http", "https", "xh", "httpie":
		if u.hasFlag("OJ", "--remote-name", "--remote-name-all", "--download", "--output-dir") {
			return true
		}
		if o := optValue(u, "o", "--output"); o != nil && o.val != "-" && !harmlessDevice(o.val) {
			return true
		}
		return toFile
	case "wget", "wget2":
		if u.hasExactFlag("", "--spider") {
			return false
		}
		o := optValue(u, "O", "--output-document")
		if o != nil && (o.val == "-" || harmlessDevice(o.val)) {
			return toFile
		}
		for _, f := range u.args {
			if strings.HasPrefix(f.val, "-") && !strings.HasPrefix(f.val, "--") && strings.HasSuffix(f.val, "O-") {
				return toFile
			}
		}
		return true
	case "aria2c", "axel", "yt-dlp", "youtube-dl", "gdown", "bitsadmin":
		return true
	case "fetch":
		o := optValue(u, "o", "--output")
		return o == nil || o.val != "-" || toFile
	case "Invoke-WebRequest", "iwr":
		return psFlag(u, "-OutFile", "-o") || toFile
	case "certutil":
		return psFlag(u, "-urlcache")
	case "tee":
		return u.in.traits&trDownload != 0 && len(u.operands()) > 0
	case "lwp-download":
		return true
	}
	if downloaders.has(u.name) {
		return toFile
	}
	return false
}

var dbCmds = newSet("psql", "mysql", "mariadb", "mongo", "mongosh", "redis-cli", "sqlcmd", "cqlsh", "clickhouse-client",
	"pg_dump", "pg_dumpall", "pg_restore", "mysqldump", "mysqladmin", "mysqlimport", "mariadb-dump", "mongodump",
	"mongorestore", "mongoexport", "mongoimport", "dropdb", "createdb", "dropuser", "createuser", "influx", "sqlplus",
	"isql", "usql", "pgcli", "mycli", "etcdctl", "valkey-cli", "keydb-cli", "memtier", "cockroach", "trino", "presto",
	"snowsql", "bq", "duckdb-remote", "neo4j-admin", "cypher-shell", "arangosh", "rethinkdb", "couchbase-cli")

func matchDatabaseClient(u *unit, _ *Classifier) bool {
	if !u.is(dbCmds) {
		if u.kind == kCall && u.name == "clickhouse" {
			s, _ := u.sub()
			return s == "client"
		}
		return false
	}
	if u.name == "cockroach" {
		s, _ := u.sub()
		return s == "sql" || s == "dump"
	}
	return !u.hasExactFlag("V", "--version", "--help") || len(u.args) > 1
}

var scanCmds = newSet("nmap", "masscan", "zmap", "rustscan", "unicornscan", "hping", "hping3", "arp-scan", "netdiscover",
	"nikto", "nping", "gobuster", "dirb", "dirbuster", "ffuf", "wfuzz", "sqlmap", "nuclei", "zgrab", "zgrab2", "amass",
	"naabu", "feroxbuster", "wpscan", "enum4linux", "smbmap", "crackmapexec", "netexec", "responder", "hydra", "medusa",
	"ncrack", "fierce", "dnsrecon", "angryip", "pscan", "portscan")

func matchNetworkScan(u *unit, _ *Classifier) bool {
	if u.is(scanCmds) {
		return !u.hasExactFlag("V", "--version", "--help") || len(u.args) > 1
	}
	if u.kind == kCall && (netShellTools.has(u.name) || u.name == "ncat") {
		return u.hasFlag("z")
	}
	return false
}

// secretCommands print credentials: program plus leading words.
var secretCommands = [][]string{
	{"gh", "auth", "token"}, {"git", "credential", "fill"}, {"git", "credential-store"}, {"git", "credential-cache"},
	{"security", "find-generic-password"}, {"security", "find-internet-password"}, {"security", "dump-keychain"},
	{"aws", "configure", "get"}, {"aws", "configure", "export-credentials"}, {"aws", "sts", "get-session-token"},
	{"gcloud", "auth", "print-access-token"}, {"gcloud", "auth", "print-identity-token"}, {"az", "account", "get-access-token"},
	{"secret-tool", "lookup"}, {"pass", "show"}, {"op", "read"}, {"op", "item", "get"}, {"vault", "read"}, {"vault", "kv", "get"},
	{"kubectl", "get", "secret"}, {"kubectl", "get", "secrets"}, {"kubectl", "config", "view", "--raw"}, {"keyring", "get"},
	{"docker-credential-desktop", "get"}, {"docker-credential-pass", "get"}, {"docker-credential-secretservice", "get"},
	{"gpg", "--export-secret-keys"}, {"gpg", "--export-secret-subkeys"}, {"bw", "get"}, {"lpass", "show"},
	{"cmdkey", "/list"}, {"mimikatz"}, {"lazagne"}, {"doppler", "secrets"}, {"heroku", "auth:token"}, {"npm", "token"},
	{"getent", "shadow"}, {"getent", "gshadow"},
}

func matchCredentialAccess(u *unit, _ *Classifier) bool {
	if u.kind != kCall {
		return false
	}
	for _, r := range u.redirs {
		if r.isFileRead() && u.secretPathIn(u.cwd, r.target) {
			return true
		}
	}
	if u.dynName {
		return false
	}
	// The words of shells, eval and interpreters that carry code are
	// analysed as code, not as paths.
	if huntsSecrets(u) || readsStoreTree(u) || u.code != nil && u.code.secretRead {
		return true
	}
	for _, f := range u.envReads {
		if u.secretPathIn(u.cwd, f) {
			return true // MAGIC=~/.ssh/id_rsa file x, GIT_CONFIG=~/.pypirc git config -l
		}
	}
	// Only the code word itself: the operands after it are files the code
	// is handed (awk 1 ~/.netrc, sh -c 'cat $0' ~/.aws/credentials).
	for i, f := range u.args {
		if !u.isCodeArg(i) && u.name != "eval" && u.secretPathIn(u.dirAt(i), f) {
			return true
		}
		if httpClients.has(u.name) {
			for _, p := range embeddedFiles(f.val) {
				g := f
				g.val = p
				if u.secretPathIn(u.dirAt(i), g) {
					return true // curl -H @~/.config/gh/hosts.yml, --url-query k@FILE, file://
				}
			}
		}
	}
	vals := u.vals()
	for _, sc := range secretCommands {
		if sc[0] != u.name || len(vals) < len(sc)-1 {
			continue
		}
		ok := true
		for i, w := range sc[1:] {
			if !contains(vals, w) || i >= len(vals) {
				ok = false
				break
			}
		}
		if ok {
			return true
		}
	}
	if u.name == "gh" && len(vals) > 1 && vals[0] == "auth" && vals[1] == "status" && (contains(vals, "-t") || contains(vals, "--show-token")) {
		return true
	}
	// gpg takes any unambiguous prefix of a long option: --export-secret-ke.
	if (u.name == "gpg" || u.name == "gpg2") && slices.ContainsFunc(u.args, func(f field) bool {
		return len(f.val) >= len("--export-secret-k") && strings.HasPrefix("--export-secret-keys", f.val) ||
			len(f.val) >= len("--export-secret-s") && strings.HasPrefix("--export-secret-subkeys", f.val)
	}) {
		return true
	}
	if (u.name == "printenv" || u.name == "echo") && len(vals) > 0 {
		for _, v := range vals {
			if secretEnvName(v) {
				return true
			}
		}
	}
	return false
}

// secretEnvName recognises environment variable names that hold secrets.
func secretEnvName(v string) bool {
	v = strings.TrimPrefix(strings.Trim(v, "${}"), "$")
	up := strings.ToUpper(v)
	if up != v || v == "" {
		return false
	}
	return strings.HasSuffix(up, "_TOKEN") || strings.HasSuffix(up, "_SECRET") || strings.HasSuffix(up, "_API_KEY") ||
		strings.HasSuffix(up, "SECRET_ACCESS_KEY") || strings.HasSuffix(up, "_PASSWORD") || up == "GITHUB_TOKEN"
}

func matchGlobalInstall(u *unit, _ *Classifier) bool {
	if u.kind != kCall || u.dynName {
		return false
	}
	s, i := u.sub()
	switch u.name {
	case "npm", "pnpm", "cnpm", "bun":
		if !contains([]string{"install", "i", "add", "isntall", "in", "ins", "inst", "insta", "instal", "update", "up", "upgrade", "link", "ln", "uninstall", "remove", "rm", "un"}, s) {
			return false
		}
		return u.hasFlag("g", "--global", "--location=global") || hasPrefixArg(u, "--location=global")
	case "yarn":
		return s == "global"
	case "pip", "pip3", "pip2", "uv", "pipenv":
		if u.name == "uv" {
			if s == "tool" && i+1 < len(u.args) && u.args[i+1].val == "install" {
				return true
			}
			if s != "pip" {
				return false
			}
		}
		return (s == "install" || s == "uninstall" || s == "pip") && u.hasFlag("", "--user", "--break-system-packages", "--system", "--root", "--prefix")
	case "pipx":
		return s == "install" || s == "inject" || s == "upgrade" || s == "upgrade-all" || s == "reinstall-all" || s == "uninstall"
	case "gem":
		return (s == "install" || s == "uninstall" || s == "update") && !u.hasExactFlag("", "--user-install", "--install-dir")
	case "cargo":
		return s == "install" || s == "uninstall"
	case "go":
		if s != "install" {
			return false
		}
		for _, f := range u.args[i+1:] {
			if strings.Contains(f.val, "@") {
				return true
			}
		}
	case "composer":
		return s == "global"
	case "dotnet":
		return s == "tool" && u.hasFlag("g", "--global")
	case "deno":
		return s == "install" && u.hasFlag("g", "--global")
	case "volta":
		return s == "install"
	case "luarocks":
		return s == "install" && !u.hasExactFlag("", "--local")
	case "cpan", "cpanm":
		return !u.hasExactFlag("l", "--local-lib", "--version", "--help")
	}
	return false
}

// downloadTarget returns the file a download command writes, if it can tell:
// curl -o F, wget -O F, or the last path element of the URL for curl -O and
// plain wget.
func downloadTarget(u *unit) string {
	if u.kind != kCall || u.dynName {
		return ""
	}
	urlBase := func() string {
		for _, f := range u.operands() {
			if strings.Contains(f.val, "://") {
				p := f.val
				if i := strings.IndexAny(p, "?#"); i >= 0 {
					p = p[:i]
				}
				if b := path.Base(p); b != "" && b != "/" && !strings.Contains(b, ":") {
					return b
				}
				return "index.html"
			}
		}
		return ""
	}
	switch u.name {
	case "curl":
		if o := optValue(u, "o", "--output"); o != nil && o.val != "-" && !harmlessDevice(o.val) {
			return o.val
		}
		if u.hasFlag("O", "--remote-name") {
			return urlBase()
		}
	case "wget", "wget2":
		if o := optValue(u, "O", "--output-document"); o != nil {
			if o.val == "-" || harmlessDevice(o.val) {
				return ""
			}
			return o.val
		}
		return urlBase()
	}
	return ""
}
