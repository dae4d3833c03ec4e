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
	"syscall"
	"testing"
	"time"

	"github.com/agentbox-dev/agentbox"
	"github.com/agentbox-dev/agentbox/internal/nomount"
)

// rt51bCallsEnv makes the test binary, started again by rt51bRunCalls,
// stand for a machine whose user namespaces grant nothing (mount refused,
// as tests/attack's "no-capabilities"), run the calls it holds (JSON) one
// after another through one CIConfig Manager in the warn fallback's
// reduced tier, and print their results as JSON.
const rt51bCallsEnv = "AGENTBOX_RT51B_CALLS"

func init() {
	if calls := os.Getenv(rt51bCallsEnv); calls != "" {
		os.Exit(rt51bCallsChild(calls))
	}
}

// rt51bCall is one sandboxed /bin/sh -c Script.
type rt51bCall struct {
	Script   string
	Writable []string `json:",omitempty"`
	Workdir  string
	DenyRead string `json:",omitempty"`
}

// rt51bCallResult is what one call gave.
type rt51bCallResult struct {
	Refused          string `json:",omitempty"`
	Code             int
	Stdout, Stderr   string
	Degraded, Layers []string
}

func rt51bCallsChild(js string) int {
	var calls []rt51bCall
	if err := json.Unmarshal([]byte(js), &calls); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if err := nomount.Install(); err != nil {
		fmt.Fprintln(os.Stderr, "nomount:", err)
		return 1
	}
	cfg := agentbox.CIConfig()
	cfg.FallbackPolicy = agentbox.FallbackWarn
	cfg.Classifier = rt9Sandboxed{}
	var out []rt51bCallResult
	m, err := agentbox.NewManager(cfg)
	if err != nil {
		out = append(out, rt51bCallResult{Refused: err.Error()})
	} else {
		defer m.Close()
		for _, c := range calls {
			opts := []agentbox.Option{agentbox.WithWorkingDir(c.Workdir)}
			if len(c.Writable) > 0 {
				opts = append(opts, agentbox.WithWritableRoots(c.Writable...))
			}
			if c.DenyRead != "" {
				opts = append(opts, agentbox.WithDenyRead(c.DenyRead))
			}
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			res, err := m.ExecArgs(ctx, "/bin/sh", []string{"-c", c.Script}, opts...)
			cancel()
			if err != nil {
				out = append(out, rt51bCallResult{Refused: err.Error()})
				break
			}
			out = append(out, rt51bCallResult{Code: res.ExitCode, Stdout: res.Stdout, Stderr: res.Stderr, Degraded: res.Degraded, Layers: res.Layers})
		}
	}
	if err := json.NewEncoder(os.Stdout).Encode(out); err != nil {
		return 1
	}
	return 0
}

// rt51bRunCalls runs calls in the reduced tier (see rt51bCallsChild).
func rt51bRunCalls(t *testing.T, calls []rt51bCall) []rt51bCallResult {
	t.Helper()
	b, _ := json.Marshal(calls)
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), rt51bCallsEnv+"="+string(b))
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("the child failed: %v\n%s", err, stderr.String())
	}
	var res []rt51bCallResult
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("%v: %q\n%s", err, out, stderr.String())
	}
	if len(res) > 0 && res[0].Refused != "" {
		t.Skipf("agentbox refused the reduced tier: %s", res[0].Refused)
	}
	if len(res) != len(calls) {
		t.Fatalf("a call was refused: %+v", res)
	}
	for i, r := range res {
		t.Logf("call %d: exit %d stdout %q stderr %q", i+1, r.Code, r.Stdout, r.Stderr)
		if len(r.Degraded) == 0 || !strings.Contains(r.Degraded[0], "reduced tier") {
			t.Fatalf("premise: call %d was not the reduced tier: %q", i+1, r.Degraded)
		}
	}
	return res
}

// TestRedteam51ReducedTierDenyLinkOutsideRoots is
// TestRedteam50DenyReadHardLinkReadOnlyArea in the reduced tier (no user
// namespaces; warn fallback): a first call, with a directory writable,
// links a file of keys/ to another name there (`ln keys/id notes.txt`); the
// second call has the directory read-only (no writable root at all) and
// denies keys/, and reads the denied file through notes.txt. Round 50's
// fix finds that other name (the directory is in the granted record) and
// adds it to the planner's deny list, which the full tier masks and
// Landlock-denies; the reduced tier drops the masks and rebuilds Landlock's
// deny list from the spec's own, without it. The README's reduced-tier
// section admits deny paths readable inside writable roots only; here the
// name lies outside every writable root of the call.
//
// Why: sandbox/linux/plan_denylinks.go (*planner).maskOtherNames appends
// the other names to b.fs.DenyRead (a clipped copy), and
// sandbox/linux/plan_reduced.go buildReducedPlan sets ll.DenyRead from
// spec.Filesystem.DenyRead, the list before them. Severity: high (a denied
// file read).
//
// Landlock's rules belong to inodes, and the carve-out around keys/ grants
// its siblings, notes.txt among them: so keys/id becomes readable by its
// own name too.
//
// Controls: keys/other (one name only) is unreadable in the second call
// (Landlock holds the deny); notes.txt is a real second name of keys/id
// on the host; a plain file beside keys/ is readable.
//
// Found by red-team round 51. Fixed: the reduced tier builds its deny list
// from the plan's, which holds the other names of denied files.
func TestRedteam51ReducedTierDenyLinkOutsideRoots(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("the reduced tier refuses callers that are root over the host's files")
	}
	root := hostDir(t)
	keys := filepath.Join(root, "keys")
	if err := os.Mkdir(keys, 0o755); err != nil {
		t.Fatal(err)
	}
	id := filepath.Join(keys, "id")
	if err := os.WriteFile(id, []byte("placeholder\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "public"), []byte("PUBLIC51\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(keys, "other")
	const otherSecret = "RT51B-OTHER-SECRET"
	if err := os.WriteFile(other, []byte(otherSecret+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// Call 1: the directory writable, nothing denied: a second name.
	res := rt51bRunCalls(t, []rt51bCall{{Script: "ln keys/id notes.txt && echo LINKED", Writable: []string{root}, Workdir: root}})
	if res[0].Code != 0 {
		t.Fatalf("premise: call 1 could not link: %+v", res[0])
	}
	var a, b syscall.Stat_t
	if syscall.Stat(id, &a) != nil || syscall.Stat(filepath.Join(root, "notes.txt"), &b) != nil || a.Ino != b.Ino {
		t.Fatalf("premise: notes.txt is not a second name of keys/id")
	}
	// The host puts the secret in place.
	const secret = "RT51B-KEYS-SECRET"
	if err := os.WriteFile(id, []byte(secret+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// Call 2 (another agentbox process, as the granted record is shared):
	// no writable root, keys/ denied.
	res = rt51bRunCalls(t, []rt51bCall{{
		Script:   "cat " + shq(filepath.Join(root, "public")) + "; cat " + shq(other) + "; echo ---; cat " + shq(filepath.Join(root, "notes.txt")) + "; echo ---; cat " + shq(id),
		Workdir:  "/",
		DenyRead: keys,
	}})
	out := res[0].Stdout
	if !strings.Contains(out, "PUBLIC51") {
		t.Fatalf("control: the plain file beside keys/ is not readable: %+v", res[0])
	}
	parts := strings.SplitN(out, "---", 3)
	if len(parts) != 3 {
		t.Fatalf("premise: the script did not run to its end: %+v", res[0])
	}
	if strings.Contains(parts[0], otherSecret) {
		t.Fatalf("control: the deny on keys/ does not hold for keys/other (Landlock off?): %q", out)
	}
	if strings.Contains(parts[1], secret) {
		t.Errorf("ESCAPE: the denied file %s was read through its other name notes.txt, outside every writable root, in the reduced tier: %q", id, parts[1])
	}
	if strings.Contains(parts[2], secret) {
		// Landlock's rules are the inode's: granting notes.txt (a sibling
		// of keys/, in the carve-out around it) grants keys/id too.
		t.Errorf("ESCAPE: the denied file %s was read by its own name: the Landlock grant of its other name covers the inode: %q", id, parts[2])
	}
}
