package agentbox

import (
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/agentbox-dev/agentbox/egress"
	"github.com/agentbox-dev/agentbox/policy"
	"github.com/agentbox-dev/agentbox/sandbox"
	"github.com/agentbox-dev/agentbox/vault"
)

// Credential is a secret a sandboxed command uses without ever seeing it.
// The command's environment gets NAME=<placeholder>, a string unique to the
// command; the egress proxy replaces the placeholder with the real value in
// the headers of HTTPS requests to Hosts, and only there, and refuses any
// request that carries the placeholder anywhere else it can see.
type Credential struct {
	// Name is the environment variable the command sees ([A-Z_][A-Z0-9_]*).
	Name string `json:"name"`
	// Hosts are the hosts the value may go to (egress patterns). Empty: the
	// allowed domains of its vendor when Name is a well-known one
	// (ANTHROPIC_API_KEY → api.anthropic.com, GITHUB_TOKEN → the GitHub
	// API; see policy.CredentialHosts), otherwise every allowed domain but
	// "*".
	Hosts []string `json:"hosts,omitempty"`
	// Header, when set, is the only request header the value goes into
	// (e.g. "X-Honeycomb-Team"). Empty: Authorization and headers named for
	// a key, token or secret (see egress.Credential).
	Header string `json:"header,omitempty"`
}

// CredentialProvider gives the real values; *vault.Vault is one.
type CredentialProvider = vault.Provider

// checkCredentials validates the credential part of a Config.
func (c *Config) checkCredentials() error {
	if len(c.Credentials) == 0 {
		return nil
	}
	if c.CredentialProvider == nil {
		return configErr("CredentialProvider", "credentials need a provider (a vault) for their values")
	}
	if c.Network.Mode != NetworkFiltered {
		return configErr("Credentials", "credentials need the filtered network (the proxy injects them), not %s", c.Network.Mode)
	}
	seen := make(map[string]bool)
	for i, cr := range c.Credentials {
		field := fmt.Sprintf("Credentials[%d]", i)
		if err := policy.CheckCredentialName(cr.Name); err != nil {
			return configErr(field, "%v", err)
		}
		switch {
		case seen[cr.Name]:
			return configErr(field, "%s is listed twice", cr.Name)
		case envAllowed(cr.Name) || strings.HasPrefix(cr.Name, "LD_") || cr.Name == "TMPDIR":
			return configErr(field, "%s is a variable the sandbox sets itself", cr.Name)
		}
		seen[cr.Name] = true
		if cr.Header != "" {
			if err := policy.CheckCredentialHeader(cr.Header); err != nil {
				return configErr(field+".Header", "%v", err)
			}
		}
		for j, h := range cr.Hosts {
			if h == "*" {
				return configErr(fmt.Sprintf("%s.Hosts[%d]", field, j), `"*" would send the value anywhere; name the hosts`)
			}
			if _, err := egress.ParsePattern(h); err != nil {
				return configErr(fmt.Sprintf("%s.Hosts[%d]", field, j), "%v", err)
			}
		}
	}
	return nil
}

// defaultCredentialHosts is where a credential that names no hosts may go:
// its vendor's allowed hosts when its name is a well-known one
// (ANTHROPIC_API_KEY → api.anthropic.com), every allowed host otherwise
// (see policy.CredentialHosts).
func defaultCredentialHosts(name string, allowed []string) []string {
	var pats []policy.HostPattern
	for _, h := range allowed {
		p, err := policy.ParseHostPattern(h)
		if err != nil { // not expected: Validate checked the pattern
			return slices.DeleteFunc(slices.Clone(allowed), func(h string) bool { return h == "*" })
		}
		pats = append(pats, p)
	}
	chosen, _ := policy.CredentialHosts(name, pats)
	hosts := make([]string, len(chosen))
	for i, p := range chosen {
		hosts[i] = p.String()
	}
	return hosts
}

// trustBundleName is the CA bundle's file in the sandbox's private /run.
const trustBundleName = "ca-bundle.pem"

// proxyCredentials builds the proxy's credentials for one command and the
// environment the command gets for them (placeholders).
func proxyCredentials(cfg Config) ([]egress.Credential, []string, error) {
	var creds []egress.Credential
	var env []string
	for _, c := range cfg.Credentials {
		ph, err := egress.NewPlaceholder(c.Name)
		if err != nil {
			return nil, nil, err
		}
		hosts := c.Hosts
		if len(hosts) == 0 {
			hosts = defaultCredentialHosts(c.Name, cfg.Network.AllowedDomains)
		}
		creds = append(creds, egress.Credential{
			Name: c.Name, Placeholder: ph, Hosts: hosts, Header: c.Header,
			Value: egress.ProviderValue(cfg.CredentialProvider, c.Name),
		})
		env = append(env, c.Name+"="+ph)
	}
	return creds, env, nil
}

// trustEnv points the command's tools at the bundle of the system's roots
// and the proxy's CA.
func trustEnv() []string {
	return egress.TrustEnv(path.Join(sandbox.FilesDir, trustBundleName))
}
