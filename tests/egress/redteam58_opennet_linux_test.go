//go:build linux

package egress_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentbox-dev/agentbox"
)

// rt58cOpenStorePort is where the upstream namespace serves, on
// allowedAddr, an HTTPS service that keeps the last Authorization header
// it got (/rt58c-open-login) and shows it (/rt58c-open-last), as round
// 55's store does: a store of its own, so that
// TestNetRedteam58StoredEchoForgottenByUpdateConfig's is left alone.
const rt58cOpenStorePort = 8459

func init() {
	if os.Getenv(envRole) == roleUpstream {
		go serveHeaderStore(os.Getenv(envDir), rt58cOpenStorePort, "/rt58c-open", "redteam58 open-network store")
	}
}

// TestNetRedteam58StoredEchoOpenNetworkCommand: "Echoes of a credential
// are masked, once its value went out, in every response from a host it
// is bound to ... on any connection of any command of the same Manager"
// (README, known limits; round 55's egress.Injections). The masking lives
// in the egress proxy, and a call may leave the proxy out:
// WithNetwork(NetworkAllowed) gives the command "the host's network
// without the proxy" (options.go), and the Manager lets it do so on a
// Config with credentials, one of whose values went out a command
// earlier. That command reaches the bound host directly, where the value
// is stored, and reads it in the clear. The Manager already refuses the
// same call when the Config denies domains, "that only the filtered mode
// enforces" (manager.go); credentials' echoes are only masked in the
// filtered mode too.
//
// Attack: credential API_TOKEN bound to HOST. Command 1 (filtered): curl
// -H "Authorization: Bearer $API_TOKEN" https://HOST/rt58c-open-login (the
// value goes out; the host keeps it). Command 2 (filtered, control): curl
// https://HOST/rt58c-open-last: masked. Command 3, WithNetwork(
// NetworkAllowed) (a step the caller runs with the open network: a package
// install, a build that downloads): curl -k --resolve HOST:ADDR
// https://HOST/rt58c-open-last: the value in the clear.
//
// Why it works: manager.go (the call's spec): `if o.network != nil {
// spec.Network = *o.network; if spec.Network == NetworkAllowed &&
// len(cfg.Network.DeniedDomains) > 0 { refuse } }`: nothing looks at
// cfg.Credentials, so a command of the Manager runs without the proxy, and
// so without the mask, after the Manager's proxies injected a value.
//
// Severity: high (the credential's plaintext reaches the sandbox), in the
// threat model of TestNetRedteam55StoredEchoNextCommand, for a Manager
// whose caller runs one command with the open network (the code that
// command runs, a package's install script, need not be the caller's).
// A fix: refuse WithNetwork(NetworkAllowed) on a Config with credentials,
// as with denied domains (or once a value went out).
//
// Found by red-team round 58. Fixed: manager.go (Manager.spec refuses
// WithNetwork(NetworkAllowed) where the config has credentials).
func TestNetRedteam58StoredEchoOpenNetworkCommand(t *testing.T) {
	inNetns(t)
	t.Setenv("SSL_CERT_FILE", filepath.Join(workDir, caFileName))
	host := fmt.Sprintf("allowed.test:%d", rt58cOpenStorePort)
	s := newStoreSession(t, host, "/rt58c-open", boundToken(host))
	m := s.m

	// Commands 1 and 2: the value goes out and the host keeps it; the
	// next command reads it masked (the control).
	s.keep()

	// Command 3: the open network, straight to the bound host.
	direct := fmt.Sprintf(`curl -sS -k --noproxy '*' --max-time 20 --resolve %s:%s https://%s/rt58c-open-last`, host, allowedAddr, host)
	res, err := m.ExecArgs(ctxT(t, 90e9), "/bin/sh", []string{"-c", direct}, agentbox.WithApproved(), agentbox.WithNetwork(agentbox.NetworkAllowed))
	if err != nil {
		// The fix: the call is refused, naming the option.
		if !errors.Is(err, agentbox.ErrConfigInvalid) || !strings.Contains(err.Error(), "WithNetwork") {
			t.Fatalf("the open-network call failed otherwise than by the refusal: %v", err)
		}
		return
	}
	if !strings.Contains(res.Stdout, "last authorization: Bearer ") {
		t.Fatalf("premise: the open-network command did not reach the bound host: exit %d\n%s\n%s", res.ExitCode, res.Stdout, res.Stderr)
	}
	if strings.Contains(res.Stdout, testSecret) {
		t.Errorf("a command of the same Manager with the open network read the credential's value from the bound host in the clear: %q", res.Stdout)
	}
}
