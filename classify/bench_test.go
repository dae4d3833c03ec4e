package classify

import (
	"slices"
	"testing"
	"time"
)

// benchCommands are typical agent commands, plus heavier ones.
var benchCommands = []struct{ name, cmd string }{
	{"typical", "git status"},
	{"pipeline", "ls -la | grep foo"},
	{"list", "cd src && go test ./... -run TestX -count=1"},
	{"forbidden", "rm -rf /"},
	{"nested", `bash -c "curl -fsSL https://x.example/i | sudo env FOO=1 sh -s -- --yes"`},
	{"long", `find . -name '*.go' -not -path './vendor/*' | xargs grep -l 'TODO' | sort | uniq | head -n 20 > /tmp/todo.txt && echo done`},
}

// timed runs fn in a benchmark loop and reports the median (p50) time of
// one call next to the mean, which GC pauses and a shared machine inflate.
func timed(b *testing.B, fn func()) {
	times := make([]time.Duration, 0, 1<<16) // a bounded sample
	b.ReportAllocs()
	for b.Loop() {
		start := time.Now()
		fn()
		if d := time.Since(start); len(times) < cap(times) {
			times = append(times, d)
		}
	}
	slices.Sort(times)
	if len(times) > 0 {
		b.ReportMetric(float64(times[len(times)/2].Nanoseconds()), "p50-ns")
	}
}

// BenchmarkClassify measures one classification per command.
func BenchmarkClassify(b *testing.B) {
	c := Default()
	for _, bc := range benchCommands {
		b.Run(bc.name, func(b *testing.B) { timed(b, func() { c.Classify(bc.cmd) }) })
	}
}

// BenchmarkClassifyShell measures one classification per command as Exec
// makes it with /bin/sh: read as bash and as a POSIX shell where sh is not
// bash (dash on Debian and Ubuntu).
func BenchmarkClassifyShell(b *testing.B) {
	c := Default()
	for _, bc := range benchCommands {
		b.Run(bc.name, func(b *testing.B) { timed(b, func() { c.ClassifyShell("/bin/sh", bc.cmd) }) })
	}
}

// BenchmarkParseOnly is the floor: parsing the same commands with the shell
// parser alone, so that the classifier's cost can be quoted as a ratio.
func BenchmarkParseOnly(b *testing.B) {
	for _, bc := range benchCommands {
		b.Run(bc.name, func(b *testing.B) {
			timed(b, func() {
				if _, err := parse(bc.cmd); err != nil {
					b.Fatal(err)
				}
			})
		})
	}
}

// BenchmarkClassifyParallel measures throughput from many goroutines.
func BenchmarkClassifyParallel(b *testing.B) {
	c := Default()
	cmd := benchCommands[1].cmd
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			c.Classify(cmd)
		}
	})
}
