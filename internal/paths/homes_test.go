package paths

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestAccountHome: the account's home is the one the user database holds
// (getent, the system's own reader, is the premise), whatever HOME says.
func TestAccountHome(t *testing.T) {
	out, err := exec.Command("getent", "passwd", strconv.Itoa(os.Getuid())).Output()
	if err != nil {
		t.Skipf("getent passwd: %v", err)
	}
	fields := strings.Split(strings.TrimSpace(string(out)), ":")
	if len(fields) < 6 {
		t.Fatalf("getent passwd: %q", out)
	}
	want := filepath.Clean(fields[5])
	t.Setenv("HOME", t.TempDir())
	if got := AccountHome(); got != want {
		t.Fatalf("AccountHome() = %q, want %q (the user database's)", got, want)
	}
}

func TestHomes(t *testing.T) {
	account := t.TempDir()
	defer SetAccountHome(account)()
	other := t.TempDir()
	cases := []struct {
		name string
		home *string // nil: unset
		want []string
	}{
		{"HOME is the account's", &account, []string{account}},
		{"HOME elsewhere", &other, []string{other, account}},
		{"HOME unset", nil, []string{account}},
		{"HOME relative", ptr("rel/home"), []string{account}},
		{"HOME unclean", ptr(other + "/./"), []string{other, account}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if tc.home == nil {
				t.Setenv("HOME", "")
				os.Unsetenv("HOME")
			} else {
				t.Setenv("HOME", *tc.home)
			}
			if got := Homes(); !slices.Equal(got, tc.want) {
				t.Errorf("Homes() = %q, want %q", got, tc.want)
			}
		})
	}
}

func ptr(s string) *string { return &s }

// TestStateDirWithoutHome: with HOME unset, agentbox's directories are in
// the account's home (a non-root caller's; root's are fixed).
func TestStateDirWithoutHome(t *testing.T) {
	if isHostRoot() {
		t.Skip("root's directories do not depend on the home")
	}
	account := t.TempDir()
	defer SetAccountHome(account)()
	for _, v := range []string{"HOME", EnvStateDir, EnvDataDir, "XDG_STATE_HOME", "XDG_DATA_HOME"} {
		t.Setenv(v, "")
		os.Unsetenv(v)
	}
	for _, c := range []struct {
		dir  func() (string, error)
		want string
	}{{StateDir, ".local/state/agentbox"}, {DataDir, ".local/share/agentbox"}} {
		if got, err := c.dir(); err != nil || got != filepath.Join(account, c.want) {
			t.Errorf("got %q, %v; want %s in the account's home", got, err, c.want)
		}
	}
}
