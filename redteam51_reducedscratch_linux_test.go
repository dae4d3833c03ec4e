//go:build linux

package agentbox_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentbox-dev/agentbox"
	"github.com/agentbox-dev/agentbox/internal/nomount"
)

// rt51bScratchEnv makes the test binary, started again by
// TestRedteam51ReducedTierScratchWritesHost, stand for a machine whose user
// namespaces grant nothing (mount refused, as tests/attack's
// "no-capabilities"), run the script in it under DefaultConfig (whose home
// tool caches are scratch directories) through the warn fallback's reduced
// tier, and print the ExecResult as JSON. rt51bScratchDirEnv names the
// writable root.
const (
	rt51bScratchEnv    = "AGENTBOX_RT51B_SCRATCH"
	rt51bScratchDirEnv = "AGENTBOX_RT51B_SCRATCH_DIR"
)

func init() {
	if script := os.Getenv(rt51bScratchEnv); script != "" {
		os.Exit(rt51bScratchChild(script, os.Getenv(rt51bScratchDirEnv)))
	}
}

func rt51bScratchChild(script, dir string) int {
	if err := nomount.Install(); err != nil {
		fmt.Fprintln(os.Stderr, "nomount:", err)
		return 1
	}
	cfg := agentbox.DefaultConfig()
	cfg.FallbackPolicy = agentbox.FallbackWarn
	cfg.Classifier = rt9Sandboxed{}
	m, err := agentbox.NewManager(cfg)
	if err != nil {
		fmt.Println("REFUSED", err)
		return 0
	}
	defer m.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, err := m.ExecArgs(ctx, "/bin/sh", []string{"-c", script},
		agentbox.WithWorkingDir(dir), agentbox.WithWritableRoots(dir))
	if err != nil {
		fmt.Println("REFUSED", err)
		return 0
	}
	if err := json.NewEncoder(os.Stdout).Encode(res); err != nil {
		return 1
	}
	return 0
}

// TestRedteam51ReducedTierScratchWritesHost: in the reduced tier (no user
// namespaces; warn fallback) the home's tool caches, which DefaultConfig
// makes scratch directories (~/.cache, ~/.npm, ~/go/pkg/mod, …), are
// granted to Landlock as writable roots of the host: the command writes the
// host's ~/.cache directly, and what it writes stays there for the user's
// own builds and the next command (Go's build cache ~/.cache/go-build,
// pip's and uv's wheels, …: cache poisoning). And the deny paths inside
// them (~/.cache/huggingface/token, git credential-cache's socket
// ~/.cache/git/credential, the Snowflake token caches) are left out of
// Landlock's deny list as if inside a writable root, so the command reads
// them. The README says of scratch directories: "The reduced tier cannot
// mount, so they stay read-only there", and of the policy: "every change
// discarded when the command ends, so ... no command can poison a cache
// for the next one or for the user's own builds". Degraded counts the
// cache's deny paths among paths "in writable roots", but the caller gave
// no such writable root, and nothing says the cache itself is written.
//
// Why: sandbox/linux/plan.go planner's Landlock spec puts the scratch
// directories in WriteRoots (the full tier needs that for the overlay, and
// overlays.fail takes them out again when an overlay cannot be made), and
// leaves deny paths inside them out of Landlock's DenyRead (they are
// masked on the overlay); sandbox/linux/plan_reduced.go buildReducedPlan,
// which makes no overlay (no mount), keeps every WriteRoot but /tmp and
// /dev/shm, and rebuilds DenyRead without those inside them. Severity:
// high (a write the policy denies, persisting on the host; a denied secret
// read).
//
// Controls: the writable root is written; a write into the home outside
// the caches is refused (Landlock is on); a file the test put in ~/.cache
// is read (the cache is readable, as it should be).
//
// Found by red-team round 51. Fixed: the reduced tier's Landlock rules
// leave the scratch directories out of the writable roots, and deny the
// paths in them (plan_reduced.go).
func TestRedteam51ReducedTierScratchWritesHost(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("the reduced tier refuses callers that are root over the host's files")
	}
	home := privateHome(t)
	cache := filepath.Join(home, ".cache")
	if st, err := os.Stat(cache); err != nil || !st.IsDir() {
		t.Skip("no ~/.cache: the default scratch points the command at /tmp instead")
	}
	tag := fmt.Sprintf("rt51b-%d-%d", os.Getpid(), time.Now().UnixNano())
	mine := filepath.Join(cache, tag)
	if err := os.Mkdir(mine, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(mine) })
	if err := os.WriteFile(filepath.Join(mine, "readable"), []byte("CACHEDATA"), 0o644); err != nil {
		t.Fatal(err)
	}
	hf := filepath.Join(cache, "huggingface")
	token := filepath.Join(hf, "token")
	secret := "RT51BSECRET-" + tag
	if _, err := os.Lstat(token); err == nil {
		secret = "" // a real token: not touched, only checked not to be read
	} else {
		if _, err := os.Stat(hf); err != nil {
			if err := os.Mkdir(hf, 0o755); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { os.RemoveAll(hf) })
		} else {
			t.Cleanup(func() { os.Remove(token) })
		}
		if err := os.WriteFile(token, []byte(secret), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	outside := filepath.Join(home, tag+"-outside")
	t.Cleanup(func() { os.Remove(outside) })

	w := hostDir(t)
	script := strings.Join([]string{
		`echo "R readable $(cat "$C/` + tag + `/readable" 2>&1)"`,
		`echo ok > "$W/ok" && echo "R root ok"`,
		`echo x > "$O" 2>/dev/null && echo "R outside WRITTEN" || echo "R outside refused"`,
		`echo POISON > "$C/` + tag + `/poisoned" 2>/dev/null && echo "R cache WRITTEN" || echo "R cache refused"`,
		`echo "R token $(cat "$C/huggingface/token" 2>&1)"`,
	}, "\n")
	script = "C=" + shq(cache) + " W=" + shq(w) + " O=" + shq(outside) + "\n" + script
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), rt51bScratchEnv+"="+script, rt51bScratchDirEnv+"="+w)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("the child failed: %v\n%s", err, stderr.String())
	}
	if r, ok := strings.CutPrefix(string(out), "REFUSED"); ok {
		t.Skipf("agentbox refused the reduced tier: %s", r)
	}
	var res agentbox.ExecResult
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("%v: %q", err, out)
	}
	t.Logf("exit %d\nstdout:\n%s\nstderr:\n%s\ndegraded: %q", res.ExitCode, res.Stdout, res.Stderr, res.Degraded)
	if len(res.Degraded) == 0 || !strings.Contains(res.Degraded[0], "reduced tier") {
		t.Fatalf("premise: the run was not the reduced tier: %q", res.Degraded)
	}
	// Controls.
	if !strings.Contains(res.Stdout, "R readable CACHEDATA") {
		t.Fatalf("control: the host's cache was not readable inside")
	}
	if !strings.Contains(res.Stdout, "R root ok") {
		t.Fatalf("control: the writable root was not writable")
	}
	if !strings.Contains(res.Stdout, "R outside refused") {
		t.Fatalf("control: a write into the home outside the caches was not refused (Landlock off?)")
	}
	if _, err := os.Stat(outside); err == nil {
		t.Fatalf("control: %s was written", outside)
	}
	// The attacks.
	if b, err := os.ReadFile(filepath.Join(mine, "poisoned")); err == nil {
		t.Errorf("ESCAPE: the command wrote the host's ~/.cache, and the file outlived it: %s/poisoned holds %q", mine, b)
	}
	if secret != "" && strings.Contains(res.Stdout, secret) {
		t.Errorf("ESCAPE: the command read the denied %s", token)
	}
	if secret == "" && strings.Contains(res.Stdout, "R token ") && !strings.Contains(res.Stdout, "denied") && !strings.Contains(res.Stdout, "No such") {
		t.Errorf("ESCAPE: the command read the denied %s (a real token; its content is not logged here)", token)
	}
}

// shq quotes s for sh.
func shq(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }
