package policy

import (
	"slices"
	"strings"
)

// vendorHosts are the API hosts of well-known credentials, by the start of
// their names: the hosts that take the credential, not every host of the
// vendor (downloads they redirect to need none). A credential that names no hosts of its own goes only to
// its vendor's hosts, so that in the seed's example (ANTHROPIC_API_KEY and
// GMAIL_TOKEN, with api.anthropic.com and *.googleapis.com allowed) the
// Anthropic key never goes to Google, nor the Gmail token to Anthropic.
var vendorHosts = []struct {
	prefix string
	hosts  []string
}{
	{"ANTHROPIC_", []string{"api.anthropic.com"}},
	{"CLAUDE_", []string{"api.anthropic.com"}},
	{"OPENAI_", []string{"api.openai.com"}},
	{"GEMINI_", []string{"generativelanguage.googleapis.com"}},
	{"GMAIL_", []string{"gmail.googleapis.com", "www.googleapis.com"}},
	{"GOOGLE_", []string{"*.googleapis.com"}},
	{"GITHUB_", []string{"api.github.com", "github.com", "uploads.github.com"}},
	{"GH_", []string{"api.github.com", "github.com", "uploads.github.com"}},
	{"GITLAB_", []string{"gitlab.com"}},
	{"MISTRAL_", []string{"api.mistral.ai"}},
	{"GROQ_", []string{"api.groq.com"}},
	{"DEEPSEEK_", []string{"api.deepseek.com"}},
	{"OPENROUTER_", []string{"openrouter.ai"}},
	{"XAI_", []string{"api.x.ai"}},
	{"HF_", []string{"huggingface.co"}},
	{"HUGGINGFACE_", []string{"huggingface.co"}},
	{"SLACK_", []string{"slack.com"}}, // the API; workspaces' own names sit below it
	{"STRIPE_", []string{"api.stripe.com"}},
}

// CredentialHosts returns the hosts a credential named name, bound to no
// hosts of its own, may go to. When its name belongs to a vendor in
// vendorHosts and allowed reaches one of that vendor's hosts, that is
// where (byName); otherwise it is every allowed host but "*".
func CredentialHosts(name string, allowed []HostPattern) (hosts []HostPattern, byName bool) {
	for _, v := range vendorHosts {
		if !strings.HasPrefix(name, v.prefix) {
			continue
		}
		for _, s := range v.hosts {
			vp, err := ParseHostPattern(s)
			if err != nil {
				panic("policy: vendorHosts: " + err.Error())
			}
			for _, a := range allowed {
				switch {
				case a.Covers(vp): // "*" too: the vendor's host, never "*" itself
					hosts = appendHost(hosts, vp)
				case vp.Covers(a):
					hosts = appendHost(hosts, a)
				}
			}
		}
		if len(hosts) > 0 {
			return hosts, true
		}
		break
	}
	for _, a := range allowed {
		if !a.Any {
			hosts = appendHost(hosts, a)
		}
	}
	return hosts, false
}

func appendHost(list []HostPattern, h HostPattern) []HostPattern {
	if slices.ContainsFunc(list, func(o HostPattern) bool { return o.String() == h.String() }) {
		return list
	}
	return append(list, h)
}
