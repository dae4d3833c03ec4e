//go:build linux

// Package attack_test is agentbox's red-team suite: it attacks the native
// Linux sandbox for real, through the public library API, and checks every
// attack next to a legitimate control that must keep working in the same
// sandbox.
//
// TestMain builds the hostile program (./attacker) into a directory under
// /var/tmp that every sandbox can see (the sandbox's /tmp is private), and
// points HOME at a fake home with credential files, so that the default
// deny list is attacked without touching the real home directory. The suite
// runs as root and as an unprivileged user; the few checks that need root
// say so when they skip.
package attack_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/agentbox-dev/agentbox"
	"github.com/agentbox-dev/agentbox/internal/credpaths"
)

// Fixtures shared by the tests, set up once by TestMain.
var (
	// baseDir holds everything the suite creates on the host (mode 0755).
	baseDir string
	// attackerBin is the hostile program, runnable inside every sandbox.
	attackerBin string
	// realHome is HOME as the run found it, where the go command's caches
	// are (agentboxCLI builds with them).
	realHome string
	// fakeHome is HOME for the whole run: it holds credential files that the
	// default deny list must hide.
	fakeHome string
	// isRoot: the suite runs as root, so sandboxes run as the host's nobody.
	isRoot bool
	// ciMgr is a Manager with CIConfig shared by tests that need nothing else.
	ciMgr *agentbox.Manager
)

// A secret in the caller's environment that must never reach a sandbox.
const (
	secretEnvName  = "AGENTBOX_ATTACK_SECRET_TOKEN"
	secretEnvValue = "sk-attack-env-0f1e2d3c4b5a"
)

func TestMain(m *testing.M) {
	if os.Getenv(holderEnv) != "" {
		os.Exit(runHolder())
	}
	if os.Getenv(placeholderHolderEnv) != "" {
		os.Exit(runPlaceholderHolder())
	}
	if os.Getenv(peerEnv) != "" {
		os.Exit(runPeer())
	}
	if os.Getenv(reducedEnv) != "" {
		os.Exit(runReduced())
	}
	code, err := runSuite(m)
	if err != nil {
		fmt.Fprintln(os.Stderr, "attack suite set-up:", err)
		os.Exit(1)
	}
	os.Exit(code)
}

func runSuite(m *testing.M) (int, error) {
	isRoot = os.Geteuid() == 0
	var err error
	baseDir, err = os.MkdirTemp("/var/tmp", "agentbox-attack-")
	if err != nil {
		return 0, err
	}
	defer os.RemoveAll(baseDir)
	if err := os.Chmod(baseDir, 0o755); err != nil {
		return 0, err
	}
	if err := buildAttacker(); err != nil {
		return 0, err
	}
	if err := makeFakeHome(); err != nil {
		return 0, err
	}
	// From here on the process looks like an agent host with a secret in its
	// environment and credentials in its home.
	realHome = os.Getenv("HOME")
	if err := os.Setenv("HOME", fakeHome); err != nil {
		return 0, err
	}
	if err := os.Setenv(secretEnvName, secretEnvValue); err != nil {
		return 0, err
	}
	// agentbox's own state and data directories (in every deny list) are
	// the suite's too, so that what other agentbox processes on this
	// machine keep there cannot change the outcome.
	if err := makeStateDirs(); err != nil {
		return 0, err
	}
	ciMgr, err = agentbox.NewManager(ciConfig())
	if err != nil {
		return 0, err
	}
	defer ciMgr.Close()
	return m.Run(), nil
}

// buildAttacker builds ./attacker, statically, into baseDir/bin.
func buildAttacker() error {
	gobin, err := exec.LookPath("go")
	if err != nil {
		return fmt.Errorf("the go command is needed to build the attacker: %w", err)
	}
	bin := filepath.Join(baseDir, "bin")
	if err := os.Mkdir(bin, 0o755); err != nil {
		return err
	}
	attackerBin = filepath.Join(bin, "attacker")
	cmd := exec.Command(gobin, "build", "-o", attackerBin, "./attacker")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go build ./attacker: %w\n%s", err, out)
	}
	return os.Chmod(attackerBin, 0o755)
}

// Contents of the fake home's credential files.
const (
	homeSSHKey   = "-----BEGIN OPENSSH PRIVATE KEY----- attack-ssh-secret"
	homeAWSCreds = "aws_secret_access_key = attack-aws-secret"
	homeGHToken  = "oauth_token: attack-gh-secret"
	homeProfile  = "# a harmless profile file\nexport AGENTBOX_TEST_PROFILE=read\n"
)

// stateSecret is in the fake agentbox state directory.
const stateSecret = "agentbox-state-secret-registry"

var stateDir, dataDir string

func makeStateDirs() error {
	stateDir, dataDir = filepath.Join(baseDir, "state"), filepath.Join(baseDir, "data")
	for _, d := range []string{stateDir, dataDir} {
		if err := os.Mkdir(d, 0o700); err != nil {
			return err
		}
	}
	if err := os.WriteFile(filepath.Join(stateDir, "registry.json"), []byte(stateSecret), 0o600); err != nil {
		return err
	}
	if err := os.Setenv("AGENTBOX_STATE_DIR", stateDir); err != nil {
		return err
	}
	return os.Setenv("AGENTBOX_DATA_DIR", dataDir)
}

func makeFakeHome() error {
	fakeHome = filepath.Join(baseDir, "home")
	files := []struct {
		path, content string
		mode          os.FileMode
	}{
		{".ssh/id_ed25519", homeSSHKey, 0o600},
		{".aws/credentials", homeAWSCreds, 0o600},
		{".config/gh/hosts.yml", homeGHToken, 0o600},
		{".profile", homeProfile, 0o644},
	}
	for _, f := range files {
		p := filepath.Join(fakeHome, f.path)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, []byte(f.content), f.mode); err != nil {
			return err
		}
	}
	if err := os.Chmod(filepath.Join(fakeHome, ".ssh"), 0o700); err != nil {
		return err
	}
	// Every other store of the default deny set holds a credential too, and
	// beside some of them sit files that tools must still read.
	for _, p := range credpaths.Home {
		if _, err := os.Stat(filepath.Join(fakeHome, p)); err == nil {
			continue
		}
		if err := writeHomeFile(p, homeCredentialContent(p), 0o600); err != nil {
			return err
		}
	}
	for _, p := range homeNeighbours {
		if err := writeHomeFile(p, homeNeighbourContent, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// homeNeighbours are ordinary files beside denied credential stores.
var homeNeighbours = []string{".cargo/config.toml", ".claude/settings.json", ".config/rclone/README",
	".cache/huggingface/hub/README", ".android/avd/README", ".config/composer/config.json", ".snowsql/README"}

const homeNeighbourContent = "# configuration a tool must still read\n"

func homeCredentialContent(p string) string { return "attack-credential-in " + p }

func writeHomeFile(rel, content string, mode os.FileMode) error {
	p := filepath.Join(fakeHome, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	return os.WriteFile(p, []byte(content), mode)
}
