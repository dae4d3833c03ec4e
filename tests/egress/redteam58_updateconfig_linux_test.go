//go:build linux

package egress_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentbox-dev/agentbox"
)

// rt58cStorePort is where the upstream namespace serves, on allowedAddr,
// an HTTPS service that keeps the last Authorization header it got
// (/rt58c-login) and shows it (/rt58c-last), as round 55's store does.
const rt58cStorePort = 8458

func init() {
	if os.Getenv(envRole) == roleUpstream {
		go serveHeaderStore(os.Getenv(envDir), rt58cStorePort, "/rt58c", "redteam58 store")
	}
}

// TestNetRedteam58StoredEchoForgottenByUpdateConfig: "Echoes of a
// credential are masked, once its value went out, in every response from
// a host it is bound to ... on any connection of any command of the same
// Manager" (README, known limits; round 55's fix of
// TestNetRedteam55StoredEchoNextCommand: egress.Injections, shared by the
// proxies of one Manager). The memory of what went out is kept per
// credential "where their names, hosts and headers are" the same
// (egress/credentials.go:(*Injections).flag keys it by name, the bound
// host patterns as text, and the header). A credential that names no
// hosts goes to "every allowed domain but *" (credentials.go:
// defaultCredentialHosts), so its key is the allow list: a
// Manager.UpdateConfig that allows one more, unrelated domain (an agent
// granted pypi.org for its next step) gives the next command's proxy a
// credential of another key, whose flag was never set. The bound host,
// which stored the value one command earlier, then shows it to the next
// command in the clear. The same happens when UpdateConfig adds a host to
// a credential's Hosts, or sets its Header.
//
// Attack: credential API_TOKEN without Hosts, AllowedDomains [HOST].
// Command 1: curl -H "Authorization: Bearer $API_TOKEN"
// https://HOST/rt58c-login (the value goes out; the host keeps it).
// Command 2 (control): curl https://HOST/rt58c-last: masked.
// m.UpdateConfig(AllowedDomains [HOST, pypi.org]). Command 3: curl
// https://HOST/rt58c-last: the value in the clear. HOST is still bound.
//
// Why it works: egress/credentials.go:newCredSet sets cr.injected =
// in.flag(cr), whose key holds cr.bound (the hosts as text);
// egress/latemask.go:recallInto masks only a credential whose flag
// wasInjected. network.go:newEgressRun → proxyCredentials builds the
// credential's Hosts from the config current at the call
// (defaultCredentialHosts), so the key follows the allow list. What should
// be remembered is that the value went out to this host, whatever the
// credential's other hosts or header are now.
//
// Severity: high (the credential's plaintext reaches the sandbox), in the
// threat model of TestNetRedteam55StoredEchoNextCommand, after an
// UpdateConfig that widens the allow list (or edits the credential); the
// same commands without it are masked (the control).
//
// Found by red-team round 58. Fixed: egress/credentials.go (the memory is
// keyed by the credential's name alone).
func TestNetRedteam58StoredEchoForgottenByUpdateConfig(t *testing.T) {
	inNetns(t)
	t.Setenv("SSL_CERT_FILE", filepath.Join(workDir, caFileName))
	host := fmt.Sprintf("allowed.test:%d", rt58cStorePort)
	s := newStoreSession(t, host, "/rt58c", agentbox.Credential{Name: "API_TOKEN"}) // no Hosts: every allowed domain
	m, run, last := s.m, s.run, s.last

	// Commands 1 and 2: the value goes out and the host keeps it; the
	// next command reads it masked (the control).
	s.keep()

	// The allow list grows by a domain no command contacts.
	cfg2 := m.Config()
	cfg2.Network.AllowedDomains = append(cfg2.Network.AllowedDomains, "pypi.org")
	if err := m.UpdateConfig(cfg2); err != nil {
		t.Fatal(err)
	}

	// Command 3: the same question to the same bound host.
	res := run(last)
	if !strings.Contains(res.Stdout, "last authorization: Bearer ") {
		t.Fatalf("premise: last after UpdateConfig: exit %d\n%s\n%s", res.ExitCode, res.Stdout, res.Stderr)
	}
	if strings.Contains(res.Stdout, testSecret) {
		t.Errorf("after an UpdateConfig that allowed one more domain, the next command read the credential's value from the bound host in the clear: %q", res.Stdout)
	}
}
