//go:build linux

package attack_test

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agentbox-dev/agentbox"
)

// verdict is what a probe's operation did.
type verdict string

const (
	allowed verdict = "allowed"
	blocked verdict = "blocked"
)

// probe is one line of an attack table: an attacker probe and what the
// sandbox must make of it.
type probe struct {
	label string
	spec  string // PROBE[:ARG], see ./attacker
	want  verdict
	// detail, when set, must occur in the probe's detail (an allowed read's
	// content, for instance).
	detail string
	// errnos, when set, lists the acceptable errno names of a blocked probe.
	errnos []string
}

// attack is a probe that must fail.
func attack(label, spec string, errnos ...string) probe {
	return probe{label: label, spec: spec, want: blocked, errnos: errnos}
}

// control is a probe that must succeed (with detail in its output, if set).
func control(label, spec, detail string) probe {
	return probe{label: label, spec: spec, want: allowed, detail: detail}
}

// result is one RESULT line of the attacker.
type result struct {
	verdict verdict
	errno   string
	detail  string
}

// outcome is a parsed attacker run.
type outcome struct {
	results map[string]result
	started bool
	done    bool
	raw     string
}

func parseOutput(stdout string) outcome {
	o := outcome{results: map[string]result{}, raw: stdout}
	for _, line := range strings.Split(stdout, "\n") {
		switch {
		case line == "STARTED":
			o.started = true
		case line == "DONE":
			o.done = true
		case strings.HasPrefix(line, "RESULT "):
			f := strings.SplitN(line, " ", 5)
			if len(f) != 5 {
				continue
			}
			d, err := strconv.Unquote(f[4])
			if err != nil {
				d = f[4]
			}
			o.results[f[1]] = result{verdict: verdict(f[2]), errno: f[3], detail: d}
		}
	}
	return o
}

func probeArgs(ps []probe) []string {
	args := make([]string, 0, len(ps))
	for _, p := range ps {
		args = append(args, p.label+"="+p.spec)
	}
	return args
}

// runProbes runs the attacker with ps in one sandbox of m and checks every
// probe. It returns the parsed output and the ExecResult for extra checks.
func runProbes(t *testing.T, m *agentbox.Manager, ps []probe, opts ...agentbox.Option) (outcome, *agentbox.ExecResult) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	opts = append([]agentbox.Option{agentbox.WithWorkingDir("/")}, opts...)
	res, err := m.ExecArgs(ctx, attackerBin, probeArgs(ps), opts...)
	if err != nil {
		t.Fatalf("the sandbox could not run the attacker: %v", err)
	}
	o := parseOutput(res.Stdout)
	if !o.started || !o.done {
		t.Fatalf("attacker run incomplete (exit %d, started=%v done=%v)\nstdout:\n%s\nstderr:\n%s",
			res.ExitCode, o.started, o.done, res.Stdout, res.Stderr)
	}
	if !res.Sandboxed || len(res.Layers) == 0 {
		t.Errorf("result claims Sandboxed=%v Layers=%q", res.Sandboxed, res.Layers)
	}
	t.Logf("attacker output (exit %d):\n%s", res.ExitCode, res.Stdout)
	checkProbes(t, o, ps)
	return o, res
}

// checkProbes compares each probe's result with what the table wants.
func checkProbes(t *testing.T, o outcome, ps []probe) {
	t.Helper()
	for _, p := range ps {
		r, ok := o.results[p.label]
		if !ok {
			t.Errorf("%s (%s): no result line\n%s", p.label, p.spec, o.raw)
			continue
		}
		checkOne(t, p, r)
	}
}

func checkOne(t *testing.T, p probe, r result) {
	t.Helper()
	switch {
	case r.errno == "BADPROBE":
		t.Errorf("%s: malformed probe %s: %s", p.label, p.spec, r.detail)
	case r.verdict != p.want && p.want == blocked:
		t.Errorf("ESCAPE %s: %s was allowed inside the sandbox (detail %q)", p.label, p.spec, r.detail)
	case r.verdict != p.want:
		t.Errorf("CONTROL BROKEN %s: legitimate %s failed with %s (%q)", p.label, p.spec, r.errno, r.detail)
	case p.detail != "" && !strings.Contains(r.detail, p.detail):
		t.Errorf("%s: %s gave %q, want it to contain %q", p.label, p.spec, r.detail, p.detail)
	case len(p.errnos) > 0 && !slices.Contains(p.errnos, r.errno):
		t.Errorf("%s: %s failed with %s (%q), want one of %v", p.label, p.spec, r.errno, r.detail, p.errnos)
	}
}

// newManager returns a Manager for cfg, closed when the test ends.
func newManager(t *testing.T, cfg agentbox.Config) *agentbox.Manager {
	t.Helper()
	m, err := agentbox.NewManager(cfg)
	if err != nil {
		t.Fatalf("NewManager: %v", err)
	}
	t.Cleanup(func() { m.Close() })
	return m
}

// newDir creates a fresh directory under baseDir with mode perm.
func newDir(t *testing.T, perm os.FileMode) string {
	t.Helper()
	return newDirIn(t, baseDir, perm)
}

// newDirIn creates a fresh directory in parent with mode perm, removed
// when the test ends.
func newDirIn(t *testing.T, parent string, perm os.FileMode) string {
	t.Helper()
	name := strings.NewReplacer("/", "-", " ", "_").Replace(t.Name())
	d, err := os.MkdirTemp(parent, name+"-")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(d, perm); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(d) })
	return d
}

// writeFile creates path (and its parents, mode 0755) with content and mode.
func writeFile(t *testing.T, path, content string, mode os.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, mode); err != nil {
		t.Fatal(err)
	}
}

// uniqueSecret returns a marker string that occurs nowhere else.
func uniqueSecret(kind string) string {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return "SECRET-" + kind + "-" + hex.EncodeToString(b)
}

// giveToSandboxUser makes path owned by the host user a root-started
// sandbox runs as (nobody), so that only the sandbox, not file
// permissions, stands between it and the file. No-op for other callers,
// whose sandboxes run as themselves.
func giveToSandboxUser(t *testing.T, paths ...string) {
	t.Helper()
	if !isRoot {
		return
	}
	for _, p := range paths {
		if err := os.Lchown(p, 65534, 65534); err != nil {
			t.Fatal(err)
		}
	}
}

// running is an attacker started with Manager.Start, read line by line.
type running struct {
	p     *agentbox.Process
	lines chan string
	all   *strings.Builder
}

// startProbes starts the attacker with ps and returns as soon as it runs.
// stdin, if not nil, becomes the attacker's standard input.
func startProbes(t *testing.T, m *agentbox.Manager, ps []probe, stdin *os.File, opts ...agentbox.Option) *running {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd := &exec.Cmd{Path: attackerBin, Args: append([]string{attackerBin}, probeArgs(ps)...), Stdout: w, Stderr: os.Stderr}
	if stdin != nil {
		cmd.Stdin = stdin
	}
	opts = append([]agentbox.Option{agentbox.WithWorkingDir("/")}, opts...)
	p, err := m.Start(context.Background(), cmd, opts...)
	w.Close()
	if err != nil {
		r.Close()
		t.Fatalf("Start: %v", err)
	}
	run := &running{p: p, lines: make(chan string, 256), all: &strings.Builder{}}
	go func() {
		defer r.Close()
		defer close(run.lines)
		sc := bufio.NewScanner(r)
		for sc.Scan() {
			run.lines <- sc.Text()
		}
	}()
	t.Cleanup(func() { _ = p.Kill(); _, _ = p.Wait() })
	return run
}

// waitLine reads lines until one starts with prefix (within 30 s).
func (r *running) waitLine(t *testing.T, prefix string) string {
	t.Helper()
	timeout := time.After(30 * time.Second)
	for {
		select {
		case l, ok := <-r.lines:
			if !ok {
				t.Fatalf("attacker ended before printing %q; output so far:\n%s", prefix, r.all)
			}
			fmt.Fprintln(r.all, l)
			if strings.HasPrefix(l, prefix) {
				return l
			}
		case <-timeout:
			t.Fatalf("no %q from the attacker within 30 s; output so far:\n%s", prefix, r.all)
		}
	}
}

// finish waits for the attacker to end and parses everything it printed.
func (r *running) finish(t *testing.T) (outcome, *agentbox.ExecResult, error) {
	t.Helper()
	res, err := r.p.Wait()
	for l := range r.lines {
		fmt.Fprintln(r.all, l)
	}
	t.Logf("attacker output:\n%s", r.all)
	return parseOutput(r.all.String()), res, err
}

// check finishes the run, which must have got through every probe, and
// checks each probe's verdict.
func (r *running) check(t *testing.T, ps []probe) *agentbox.ExecResult {
	t.Helper()
	o, res, err := r.finish(t)
	if err != nil || !o.done {
		t.Fatalf("attacker run: %v, exit %d, output:\n%s", err, res.ExitCode, o.raw)
	}
	checkProbes(t, o, ps)
	return res
}

// sandboxEverything is a classifier that sends every command to the
// sandbox. The suite attacks the sandbox itself, as a command that the
// classifier did not recognise (a script, a compiled program) would.
type sandboxEverything struct{}

func (sandboxEverything) Classify(string) agentbox.ClassifyResult {
	return agentbox.ClassifyResult{Decision: agentbox.DecisionSandboxed, Rule: "red-team"}
}

func (sandboxEverything) ClassifyArgs(string, []string) agentbox.ClassifyResult {
	return agentbox.ClassifyResult{Decision: agentbox.DecisionSandboxed, Rule: "red-team"}
}

// ciConfig is CIConfig with every command sent to the sandbox.
func ciConfig() agentbox.Config {
	c := agentbox.CIConfig()
	c.Classifier = sandboxEverything{}
	return c
}

// defaultConfig is DefaultConfig with every command sent to the sandbox.
func defaultConfig() agentbox.Config {
	c := agentbox.DefaultConfig()
	c.Classifier = sandboxEverything{}
	return c
}
