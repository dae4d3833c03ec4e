package policy

import (
	"errors"
	"fmt"
	"strings"
)

// isCredentialName reports whether name has the syntax of credential (vault
// entry) names, [A-Z_][A-Z0-9_]*: they become environment variable names
// inside the sandbox.
func isCredentialName(name string) bool {
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !('A' <= c && c <= 'Z' || c == '_' || i > 0 && '0' <= c && c <= '9') {
			return false
		}
	}
	return name != ""
}

// maxCredentialNameLen bounds credential names.
const maxCredentialNameLen = 128

// reservedName is an environment variable name, or a prefix ending in "*",
// that a credential may not take, with the reason.
type reservedName struct {
	name string
	why  string
}

// Reasons for reservedNames.
const (
	whyLoad   = "it changes where programs and libraries are found or loaded from"
	whyShell  = "the shell reads it at start-up and may run code from it"
	whyLang   = "a language runtime or build tool reads it to load code or change its behaviour"
	whyGit    = "git reads GIT_* variables (GIT_SSH_COMMAND, GIT_EXEC_PATH, GIT_CONFIG_*) and may run programs from them"
	whyNet    = "it redirects network traffic or changes which TLS certificates are trusted; agentbox sets it itself"
	whySet    = "agentbox sets it in every sandbox"
	whyRun    = "programs run the command it names (pager, editor, askpass)"
	whyConfig = "it points a tool at another configuration or daemon"
	whyOwn    = "AGENTBOX_* variables configure agentbox itself"
)

// reservedNames are the environment variables a credential placeholder must
// never occupy, because their value changes how programs load or behave.
// GIT_* is reserved as a whole: git keeps adding variables that run programs,
// and git credentials are named after their service (GITHUB_TOKEN,
// GITLAB_TOKEN) anyway.
var reservedNames = []reservedName{
	{"PATH", whyLoad}, {"LD_*", whyLoad}, {"DYLD_*", whyLoad}, {"GCONV_PATH", whyLoad},
	{"GLIBC_TUNABLES", whyLoad}, {"MALLOC_*", whyLoad}, {"LOCPATH", whyLoad}, {"NLSPATH", whyLoad},
	{"HOSTALIASES", whyLoad}, {"RES_OPTIONS", whyLoad}, {"LOCALDOMAIN", whyLoad}, {"TZDIR", whyLoad},

	{"HOME", whySet}, {"SHELL", whySet}, {"USER", whySet}, {"LOGNAME", whySet}, {"LANG", whySet},
	{"LANGUAGE", whySet}, {"LC_*", whySet}, {"TERM", whySet}, {"TZ", whySet}, {"TMPDIR", whySet},
	{"PWD", whySet}, {"OLDPWD", whySet}, {"SHLVL", whySet}, {"XDG_*", whySet},

	{"IFS", whyShell}, {"ENV", whyShell}, {"BASH_*", whyShell}, {"BASHOPTS", whyShell},
	{"SHELLOPTS", whyShell}, {"PS1", whyShell}, {"PS2", whyShell}, {"PS4", whyShell},
	{"PROMPT_COMMAND", whyShell}, {"CDPATH", whyShell}, {"GLOBIGNORE", whyShell},
	{"HISTFILE", whyShell}, {"ZDOTDIR", whyShell}, {"FPATH", whyShell},

	{"PYTHON*", whyLang}, {"NODE_OPTIONS", whyLang}, {"NODE_PATH", whyLang},
	{"NODE_REPL_EXTERNAL_MODULE", whyLang}, {"NODE_TLS_REJECT_UNAUTHORIZED", whyNet},
	{"NODE_EXTRA_CA_CERTS", whyNet}, {"PERL5LIB", whyLang}, {"PERL5OPT", whyLang},
	{"PERLLIB", whyLang}, {"PERL5DB", whyLang}, {"RUBYOPT", whyLang}, {"RUBYLIB", whyLang},
	{"GEM_HOME", whyLang}, {"GEM_PATH", whyLang}, {"JAVA_TOOL_OPTIONS", whyLang},
	{"_JAVA_OPTIONS", whyLang}, {"JDK_JAVA_OPTIONS", whyLang}, {"CLASSPATH", whyLang},
	{"GOFLAGS", whyLang}, {"GOPROXY", whyLang}, {"GOPATH", whyLang}, {"GOROOT", whyLang},
	{"GOTOOLCHAIN", whyLang}, {"GOENV", whyLang}, {"GODEBUG", whyLang}, {"CGO_*", whyLang},
	{"CC", whyLang}, {"CXX", whyLang}, {"CFLAGS", whyLang}, {"CXXFLAGS", whyLang},
	{"CPPFLAGS", whyLang}, {"LDFLAGS", whyLang}, {"MAKEFLAGS", whyLang},
	{"NPM_CONFIG_*", whyLang}, {"PIP_*", whyLang},

	{"GIT_*", whyGit},

	{"HTTP_PROXY", whyNet}, {"HTTPS_PROXY", whyNet}, {"ALL_PROXY", whyNet}, {"NO_PROXY", whyNet},
	{"FTP_PROXY", whyNet}, {"SSL_CERT_FILE", whyNet}, {"SSL_CERT_DIR", whyNet},
	{"CURL_CA_BUNDLE", whyNet}, {"REQUESTS_CA_BUNDLE", whyNet}, {"SSLKEYLOGFILE", whyNet},
	{"OPENSSL_CONF", whyNet}, {"OPENSSL_MODULES", whyNet}, {"OPENSSL_ENGINES", whyNet},
	{"CURL_HOME", whyNet}, {"WGETRC", whyNet},

	{"EDITOR", whyRun}, {"VISUAL", whyRun}, {"PAGER", whyRun}, {"MANPAGER", whyRun},
	{"LESSOPEN", whyRun}, {"LESSCLOSE", whyRun}, {"BROWSER", whyRun},
	{"SSH_ASKPASS", whyRun}, {"SSH_ASKPASS_REQUIRE", whyRun}, {"SUDO_ASKPASS", whyRun},

	{"SSH_AUTH_SOCK", whyConfig}, {"DBUS_SESSION_BUS_ADDRESS", whyConfig}, {"DOCKER_HOST", whyConfig},
	{"DOCKER_CONFIG", whyConfig}, {"KUBECONFIG", whyConfig}, {"AWS_CONFIG_FILE", whyConfig},
	{"AWS_SHARED_CREDENTIALS_FILE", whyConfig},

	{"AGENTBOX_*", whyOwn},
}

// ErrReservedCredentialName is matched (errors.Is) by the error
// CheckCredentialName returns for a name on the reserved list.
var ErrReservedCredentialName = errors.New("reserved credential name")

// CheckCredentialName reports whether name may name a credential: the syntax
// [A-Z_][A-Z0-9_]* and not an environment variable that changes how programs
// load or behave.
func CheckCredentialName(name string) error {
	switch {
	case name == "":
		return errors.New("credential name is empty")
	case len(name) > maxCredentialNameLen:
		return fmt.Errorf("credential name is longer than %d characters", maxCredentialNameLen)
	case !isCredentialName(name):
		hint := ""
		if up := strings.ToUpper(strings.NewReplacer("-", "_", ".", "_", " ", "_").Replace(name)); isCredentialName(up) {
			hint = fmt.Sprintf(" (e.g. %s)", up)
		}
		return fmt.Errorf("credential name %q is not valid: use upper-case letters, digits and _, not starting with a digit%s", name, hint)
	}
	if r, ok := reservedFor(name); ok {
		return &reservedNameError{name: name, rule: r}
	}
	return nil
}

// reservedNameError reports a credential name on the reserved list.
type reservedNameError struct {
	name string
	rule reservedName
}

func (e *reservedNameError) Error() string {
	what := e.rule.name
	if what != e.name {
		what = e.name + " (" + what + ")"
	}
	return fmt.Sprintf("credential name %s is reserved: %s; store the secret under a name of its own, such as MYSERVICE_API_KEY", what, e.rule.why)
}

// Is makes errors.Is(err, ErrReservedCredentialName) true.
func (e *reservedNameError) Is(target error) bool { return target == ErrReservedCredentialName }

func reservedFor(name string) (reservedName, bool) {
	for _, r := range reservedNames {
		if prefix, ok := strings.CutSuffix(r.name, "*"); ok {
			if strings.HasPrefix(name, prefix) {
				return r, true
			}
		} else if name == r.name {
			return r, true
		}
	}
	return reservedName{}, false
}
