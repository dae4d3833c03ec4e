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

// rt53aCallsEnv makes the test binary, started again by rt53aRunCalls,
// stand for a machine whose user namespaces grant nothing (as
// rt51bCallsEnv), and run its calls through one CIConfig Manager in the
// warn fallback's reduced tier.
const rt53aCallsEnv = "AGENTBOX_RT53A_CALLS"

func init() {
	if calls := os.Getenv(rt53aCallsEnv); calls != "" {
		os.Exit(rt53aCallsChild(calls))
	}
}

// rt53aCall is one sandboxed /bin/sh -c Script.
type rt53aCall struct {
	Script   string
	Writable []string `json:",omitempty"`
	Workdir  string
	DenyRead string `json:",omitempty"`
}

type rt53aCallResult struct {
	Refused        string `json:",omitempty"`
	Code           int
	Stdout, Stderr string
	Degraded       []string
}

func rt53aCallsChild(js string) int {
	var calls []rt53aCall
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
	var out []rt53aCallResult
	m, err := agentbox.NewManager(cfg)
	if err != nil {
		out = append(out, rt53aCallResult{Refused: err.Error()})
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
				out = append(out, rt53aCallResult{Refused: err.Error()})
				break
			}
			out = append(out, rt53aCallResult{Code: res.ExitCode, Stdout: res.Stdout, Stderr: res.Stderr, Degraded: res.Degraded})
		}
	}
	if err := json.NewEncoder(os.Stdout).Encode(out); err != nil {
		return 1
	}
	return 0
}

// rt53aRunCalls runs calls in the reduced tier (see rt53aCallsChild).
func rt53aRunCalls(t *testing.T, calls []rt53aCall) []rt53aCallResult {
	t.Helper()
	b, _ := json.Marshal(calls)
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), rt53aCallsEnv+"="+string(b))
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("the child failed: %v\n%s", err, stderr.String())
	}
	var res []rt53aCallResult
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

// TestRedteam53ReducedCrossRootLink: round 50's hard-link search looks
// through a denied directory for files with other names only where the
// directory lies inside a writable root or a granted one
// (plan_denylinks.go: linkedFiles, `paths.WithinAny(d, areas)`), on the
// ground that a command can only have linked a file where it could write.
// But a denied directory can hold a granted one without lying inside any:
// keys/ denied, keys/work/ once writable. The reduced tier grants
// Landlock's REFER on every writable root and has no mounts, so a command
// links a file of keys/work/ into another writable root of the same call
// (proj/), and a later call that denies keys/ never looks for it.
//
// The attack: call one (reduced tier: no user namespaces, warn fallback),
// with keys/work/ and proj/ writable, no deny, runs
// `ln ../keys/work/id notes.txt` in proj/. The host later writes a new
// secret into keys/work/id. Call two, with keys/ denied (proj/ read-only,
// its working directory), runs `cat notes.txt` and gets it. Call two is
// also the reduced tier here; a full-tier call two is planned by the same
// planner, which never looks for notes.txt (not run here: call one must
// be unprivileged and call two then has no full tier).
//
// Why it works: sandbox/linux/plan_denylinks.go: (*planner).linkedFiles
// walks only the denied directories that lie within an area; keys/
// contains the area keys/work/ but is not within one, so keys/work/id is
// never a file whose other names are looked for, and proj/notes.txt,
// inside a granted area, is neither masked nor Landlock-denied
// (sandbox/linux/landlock.go grants llWrite, REFER included, on every
// writable root, which is what lets call one link across roots).
//
// Severity: high (a denied file read through its other name).
//
// Controls: keys/work/id is unreadable by its own name in call two
// (Landlock holds keys/); a plain file of keys/ stays unreadable; the same
// attack with keys/work/ itself denied is caught (the directory lies in a
// granted area and is walked); notes.txt is keys/work/id's inode on the
// host.
//
// Found by red-team round 53.
// Fixed: a denied directory that holds an area is looked through too
// (linkedFiles).
func TestRedteam53ReducedCrossRootLink(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("the reduced tier refuses callers that are root over the host's files")
	}
	for _, denyWhole := range []bool{false, true} {
		name := "control-deny-granted-dir"
		if denyWhole {
			name = "deny-enclosing-dir"
		}
		t.Run(name, func(t *testing.T) {
			root := hostDir(t)
			keys := filepath.Join(root, "keys")
			work := filepath.Join(keys, "work")
			proj := filepath.Join(root, "proj")
			for _, d := range []string{work, proj} {
				if err := os.MkdirAll(d, 0o755); err != nil {
					t.Fatal(err)
				}
			}
			id := filepath.Join(work, "id")
			if err := os.WriteFile(id, []byte("placeholder\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			const plainSecret = "RT53A-PLAIN-KEY"
			plain := filepath.Join(keys, "plain")
			if err := os.WriteFile(plain, []byte(plainSecret+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			res := rt53aRunCalls(t, []rt53aCall{{Script: "ln ../keys/work/id notes.txt && echo LINKED", Writable: []string{work, proj}, Workdir: proj}})
			if res[0].Code != 0 {
				t.Fatalf("premise: call 1 could not link across roots: %+v", res[0])
			}
			rt53aSameFile(t, id, filepath.Join(proj, "notes.txt"))
			const secret = "RT53A-CROSSROOT-SECRET"
			if err := os.WriteFile(id, []byte(secret+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			deny := work
			if denyWhole {
				deny = keys
			}
			res = rt53aRunCalls(t, []rt53aCall{{
				Script:   "cat " + shq(plain) + "; cat " + shq(id) + "; echo ---; cat notes.txt",
				Workdir:  proj,
				DenyRead: deny,
			}})
			direct, viaLink, ok := strings.Cut(res[0].Stdout, "---")
			if !ok {
				t.Fatalf("premise: the script did not run to its end: %+v", res[0])
			}
			if strings.Contains(direct, secret) || (denyWhole && strings.Contains(direct, plainSecret)) {
				t.Fatalf("control: the deny does not hold by the files' own names: %q", direct)
			}
			if strings.Contains(viaLink, secret) {
				if !denyWhole {
					t.Fatalf("control: round 50's fix does not hold for the granted directory itself: %q", viaLink)
				}
				t.Errorf("the denied file %s was read through its other name proj/notes.txt, linked across writable roots: %q", id, viaLink)
			}
		})
	}
}
