package agentbox_test

import (
	"context"
	"os/exec"
	"testing"

	"github.com/agentbox-dev/agentbox"
)

// The sandbox benchmarks. bench/compare.sh puts the same operations beside
// bubblewrap and a bare exec in one run and prints ratios; quote those, not
// these absolute times, from a shared machine.

func benchManager(b *testing.B, cfg agentbox.Config) *agentbox.Manager {
	b.Helper()
	m, err := agentbox.NewManager(cfg)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { m.Close() })
	return m
}

// BenchmarkManagerExecArgs is Manager.ExecArgs("/bin/echo") with every
// layer of the default policy.
func BenchmarkManagerExecArgs(b *testing.B) {
	m := benchManager(b, agentbox.DefaultConfig())
	ctx := context.Background()
	for b.Loop() {
		res, err := m.ExecArgs(ctx, "/bin/echo", []string{"hello"})
		if err != nil || res.ExitCode != 0 {
			b.Fatal(err, res)
		}
	}
}

// BenchmarkManagerExecArgsNoScratch is BenchmarkManagerExecArgs without
// the scratch overlays of the tool caches: their cost is the difference.
func BenchmarkManagerExecArgsNoScratch(b *testing.B) {
	cfg := agentbox.DefaultConfig()
	cfg.Filesystem.Scratch = nil
	m := benchManager(b, cfg)
	ctx := context.Background()
	for b.Loop() {
		res, err := m.ExecArgs(ctx, "/bin/echo", []string{"hello"})
		if err != nil || res.ExitCode != 0 {
			b.Fatal(err, res)
		}
	}
}

// BenchmarkManagerExecArgsWritable adds a writable root (a project, as an
// agent has one): its protected names are held, and released again, on
// every call.
func BenchmarkManagerExecArgsWritable(b *testing.B) {
	m := benchManager(b, agentbox.DefaultConfig())
	ctx := context.Background()
	dir := b.TempDir()
	for b.Loop() {
		res, err := m.ExecArgs(ctx, "/bin/echo", []string{"hello"}, agentbox.WithWritableRoots(dir))
		if err != nil || res.ExitCode != 0 {
			b.Fatal(err, res)
		}
	}
}

// BenchmarkManagerExec adds the classifier and the shell.
func BenchmarkManagerExec(b *testing.B) {
	m := benchManager(b, agentbox.DefaultConfig())
	ctx := context.Background()
	for b.Loop() {
		res, err := m.Exec(ctx, "echo hello")
		if err != nil || res.ExitCode != 0 {
			b.Fatal(err, res)
		}
	}
}

// BenchmarkManagerExecArgsCold starts every sandbox from scratch, as the
// CLI does.
func BenchmarkManagerExecArgsCold(b *testing.B) {
	cfg := agentbox.DefaultConfig()
	cfg.ColdStart = true
	m := benchManager(b, cfg)
	ctx := context.Background()
	for b.Loop() {
		if res, err := m.ExecArgs(ctx, "/bin/echo", []string{"hello"}); err != nil || res.ExitCode != 0 {
			b.Fatal(err, res)
		}
	}
}

// BenchmarkBareExec is the baseline: /bin/echo without a sandbox.
func BenchmarkBareExec(b *testing.B) {
	for b.Loop() {
		if err := exec.Command("/bin/echo", "hello").Run(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkClassify is the classifier alone on a typical command.
func BenchmarkClassify(b *testing.B) {
	cfg := agentbox.DefaultConfig()
	cfg.ColdStart = true
	m := benchManager(b, cfg)
	ctx := context.Background()
	for b.Loop() {
		if _, err := m.Check(ctx, "go test ./... && git status --short | head -20"); err != nil {
			b.Fatal(err)
		}
	}
}
