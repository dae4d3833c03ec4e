package classify

import (
	"path"
	"slices"
	"strings"
	"sync"

	"github.com/agentbox-dev/agentbox/internal/credpaths"
)

// Where credentials are kept: the path globs the credential-access rule
// (rules_net.go) checks path arguments against, and the checks themselves.

// secretPaths are path globs (after ~ normalisation) that hold credentials:
// every credential store of credpaths.Home in the caller's home and in
// every other home (otherHomes), then the system's. Built on first use, not
// at start: every agentbox process (the in-sandbox init too) would pay for
// it.
var secretPaths = sync.OnceValue(func() [][]string {
	return append(homeSecretPaths(), [][]string{
		{"etc", "shadow"}, {"etc", "gshadow"}, {"etc", "shadow-"}, {"etc", "sudoers"}, {"etc", "sudoers.d"},
		{"etc", "master.passwd"}, {"etc", "security", "opasswd"}, {"var", "run", "secrets"}, {"run", "secrets"},
		{"proc", "*", "environ"}, {"proc", "*", "mem"}, {"etc", "ssl", "private"}, {"etc", "pki", "tls", "private"},
		{"etc", "kubernetes", "*.conf"}, {"etc", "kubernetes", "pki"}, {"var", "lib", "kubelet", "pki"},
		{"etc", "rancher", "k3s", "k3s.yaml"}, {"var", "lib", "rancher", "k3s", "server", "tls"},
		{"etc", "ssh", "ssh_host_*_key"}, {"etc", "wireguard"}, {"etc", "NetworkManager", "system-connections"},
		{"etc", "letsencrypt", "live"}, {"etc", "letsencrypt", "archive"}, {"etc", "letsencrypt", "keys"},
		{"etc", "krb5.keytab"}, {"etc", "mysql", "debian.cnf"},
	}...)
})

// otherHomes are the ways to write a home directory other than "~": each
// credential store is a secret below every one of them.
var otherHomes = [][]string{{"~user"}, {"home", "*"}, {"root"}, {"Users", "*"}, {"var", "root"}}

// homeSecretPaths turns credpaths.Home and credpaths.BuildConfig into
// globs below "~" and below every other home.
func homeSecretPaths() [][]string {
	stores := slices.Concat(credpaths.Home, credpaths.BuildConfig)
	out := make([][]string, 0, len(stores)*(len(otherHomes)+1))
	for _, home := range append([][]string{{"~"}}, otherHomes...) {
		for _, p := range stores {
			out = append(out, append(append([]string(nil), home...), strings.Split(p, "/")...))
		}
	}
	return out
}

// secretPathsByTop indexes secretPaths by their first component.
var secretPathsByTop = sync.OnceValue(func() map[string][][]string {
	m := map[string][][]string{}
	for _, sp := range secretPaths() {
		m[sp[0]] = append(m[sp[0]], sp)
	}
	return m
})

// relativeStores are the credential stores of credpaths.Home that are
// recognised at the start of a relative path when the working directory is
// unknown (it may be the home): the dot-directories (.aws/credentials,
// .config/gh/hosts.yml), and multi-component entries themselves. A bare
// .npmrc or .ssh in a project is left alone. Indexed by first component.
var relativeStores = sync.OnceValue(func() map[string][][]string {
	m := map[string][][]string{}
	for _, p := range credpaths.Home {
		if !strings.HasPrefix(p, ".") {
			continue
		}
		sp := strings.Split(p, "/")
		if files, ok := projectDotDirs[p]; ok {
			// Projects keep such a directory too: only its credential
			// files count.
			for _, f := range files {
				m[sp[0]] = append(m[sp[0]], []string{p, f})
			}
			continue
		}
		m[sp[0]] = append(m[sp[0]], sp)
	}
	return m
})

// projectDotDirs are credential stores whose name projects use for files
// of their own (.docker/Dockerfile, .kube/deployment.yaml, azd's
// .azure/ENV/.env): in a relative path of unknown base only the files that
// hold the credentials count.
var projectDotDirs = map[string][]string{
	".docker": {"config.json"},
	".kube":   {"config"},
	".azure":  {"accessTokens.json", "msal_token_cache.json", "msal_token_cache.bin", "service_principal_entries.json", "azureProfile.json"},
	".aws":    {"credentials", "config", "sso", "cli"},
}

// secretNames are file names that hold private keys or tokens wherever
// they are.
var secretNames = newSet("id_rsa", "id_dsa", "id_ecdsa", "id_ed25519", "id_ecdsa_sk", "id_ed25519_sk", "identity",
	".git-credentials", ".netrc", ".pgpass", "credentials.db", "access_tokens.db", "Login Data", "logins.json", "key4.db",
	".bash_history", ".zsh_history", ".zhistory", ".sh_history", ".python_history", ".psql_history", ".mysql_history",
	".node_repl_history", ".lesshst")

// secretPattern matches search patterns that hunt for secrets.
var secretPattern = lazyRegexp(`(?i)passw|secret|token|api[_-]?key|private[_ ]key|BEGIN [A-Z ]*PRIVATE|aws_access|credential`)

// huntsSecrets reports whether a recursive search looks for secrets across
// the home directory, a system directory or the whole disk.
func huntsSecrets(u *unit) bool {
	switch u.name {
	case "grep", "egrep", "fgrep", "rg", "ag", "ack", "git-grep":
	default:
		return false
	}
	recursive := u.name == "rg" || u.name == "ag" || u.name == "ack" || u.hasFlag("rR", "--recursive", "--dereference-recursive")
	if !recursive {
		return false
	}
	ops := u.operands()
	if len(ops) < 2 || !secretPattern().MatchString(ops[0].val) {
		return false
	}
	for _, f := range ops[1:] {
		if criticalTarget(f) || cleanTarget(f.val) == "/etc" {
			return true
		}
	}
	return false
}

// isSecretPath reports whether a path argument points at credentials.
func isSecretPath(v string) bool { return isSecretPathIn("", v) }

// isSecretPathIn reports whether a path argument, relative to the working
// directory cwd ("" = unknown), points at credentials.
func isSecretPathIn(cwd, v string) bool {
	if v == "" || strings.HasSuffix(v, ".pub") || strings.HasSuffix(v, "known_hosts") {
		return false
	}
	if i := strings.IndexByte(v, '='); i > 0 && strings.HasPrefix(v, "-") {
		v = v[i+1:]
	}
	if strings.HasPrefix(v, "-") {
		return secretNames.has(path.Base(v)) // an option (-i~/.ssh/id_rsa)
	}
	if f, ok := strings.CutPrefix(v, "if="); ok {
		v = f // dd if=FILE
	}
	if sub, ok := procCwd(v); ok {
		v = sub // cd ~ && cat /proc/self/cwd/.aws/credentials
	}
	relative := !strings.HasPrefix(v, "/") && !strings.HasPrefix(v, "~")
	cwd = secretBase(cwd)
	if relative && cwd != "" {
		if cwd[0] != '/' && cwd[0] != '~' && cwd[0] != '.' {
			// Below a directory named relative to an unknown one (cd
			// src): not a home, so only secret file names count, unless
			// the path climbs out of it, back to where the home may be.
			if c := path.Clean(v); c != ".." && !strings.HasPrefix(c, "../") {
				return secretNames.has(path.Base(v))
			}
			v = path.Clean(cwd + "/" + v) // relative to the unknown base
		} else {
			v = cwd + "/" + v
		}
	}
	c := v
	if strings.HasPrefix(v, "~") {
		head, rest, _ := strings.Cut(v, "/")
		if head != "~" {
			head = "~user"
		}
		c = head + path.Clean("/"+rest)
	} else if strings.HasPrefix(v, "/") {
		c = stripProcRoot(path.Clean(v))
	} else {
		c = path.Clean(v)
	}
	comps := strings.Split(strings.TrimPrefix(c, "/"), "/")
	if secretNames.has(comps[len(comps)-1]) {
		return true
	}
	if !strings.HasPrefix(c, "/") && !strings.HasPrefix(c, "~") {
		// Relative to a directory that may be the home (or below it).
		for len(comps) > 0 && comps[0] == ".." {
			comps = comps[1:]
		}
		if len(comps) < 2 {
			return false
		}
		cands := relativeStores()[comps[0]]
		if strings.ContainsAny(comps[0], "*?[") {
			for _, l := range relativeStores() {
				cands = append(cands, l...)
			}
		}
		for _, sp := range cands {
			if (len(comps) > len(sp) || len(sp) > 1 && len(comps) == len(sp)) && globComps(sp, comps) {
				return true
			}
		}
		return false
	}
	cands := secretPathsByTop()[comps[0]]
	if strings.ContainsAny(comps[0], "*?[") {
		cands = secretPaths()
	}
	for _, sp := range cands {
		if len(comps) >= len(sp) && globComps(sp, comps) {
			return true
		}
	}
	return false
}

// secretBase returns the working directory a relative path is judged
// against for credentials. After `cd $X` it is unknown ("") and the home
// when X is empty; a directory entered from there ("$PWD/src", see
// resolveIn) is taken relative to it ("./src"), so that climbing back
// out (cd src/.., ../.aws) finds the home's stores again.
func secretBase(cwd string) string {
	switch {
	case cwd == cwdMaybeHome || cwd == "$PWD":
		return ""
	case strings.HasPrefix(cwd, "$PWD/"):
		return "." + cwd[len("$PWD"):]
	}
	return cwd
}

// secretPathIn reports whether the path argument f of u points at
// credentials, relative to dir (the directory an earlier cd or -C set).
func (u *unit) secretPathIn(dir string, f field) bool {
	if f.dynPrefix {
		return isSecretPath(f.val)
	}
	if isSecretPathIn(dir, f.val) || u.dotglob && dotGlobSecret(dir, f) {
		return true
	}
	// shopt -s nocaseglob; cat ~/.NETR[C] (found by red-team round 49).
	return u.nocase && strings.ContainsAny(f.val, "*?[") && isSecretPathIn(dir, strings.ToLower(f.val))
}

// globComps reports whether the leading components of a path match the
// glob components sp. A glob in the path may expand to the secret too, but
// (as in the shell) only an explicit leading dot matches a dot file.
func globComps(sp, comps []string) bool {
	for i, g := range sp {
		if extGlobComp(comps[i]) {
			if !extGlobMatches(comps[i], g) {
				return false
			}
			continue
		}
		// The shells' [!x] is path.Match's [^x] (found by red-team round 49).
		c := strings.ReplaceAll(comps[i], "[!", "[^")
		m1, _ := path.Match(g, c)
		m2, _ := path.Match(c, g)
		m2 = m2 && (!strings.HasPrefix(g, ".") || strings.HasPrefix(comps[i], "."))
		if !m1 && !m2 {
			return false
		}
	}
	return true
}
