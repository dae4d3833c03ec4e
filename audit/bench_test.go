package audit

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"runtime"
	"testing"
)

// BenchmarkAppend measures events/s of concurrent appenders, each waiting
// for its event: "group" shares fsyncs (the default), "each" fsyncs every
// event on its own (no grouping), "none" does not wait for fsync. "async"
// queues with AppendAsync and makes everything durable with one Flush per
// 1000 events. Compare the events/s metrics of one run (the ratios), not
// absolute times: the machine is shared and fsync latency varies.
func BenchmarkAppend(b *testing.B) {
	for _, bc := range []struct {
		mode      SyncMode
		appenders int
	}{{SyncGroup, 64}, {SyncGroup, 256}, {SyncEach, 64}, {SyncNone, 64}} {
		b.Run(fmt.Sprintf("sync=%s/appenders=%d", bc.mode, bc.appenders), func(b *testing.B) {
			env := newEnv(b)
			l := env.open(b, Options{Sync: bc.mode, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
			e := sampleEvent(1)
			b.SetParallelism(max(1, bc.appenders/runtime.GOMAXPROCS(0)))
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					if err := l.Append(context.Background(), e); err != nil {
						b.Error(err)
						return
					}
				}
			})
			b.StopTimer()
			reportAppend(b, l)
		})
	}
	b.Run("sync=group/async+flush", func(b *testing.B) {
		env := newEnv(b)
		l := env.open(b, Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
		e := sampleEvent(1)
		b.ResetTimer()
		for i := range b.N {
			if err := l.AppendAsync(e); err != nil {
				b.Fatal(err)
			}
			if i%1000 == 999 || i == b.N-1 {
				if err := l.Flush(context.Background()); err != nil {
					b.Fatal(err)
				}
			}
		}
		b.StopTimer()
		reportAppend(b, l)
	})
}

func reportAppend(b *testing.B, l *Log) {
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "events/s")
	st := l.Stats()
	b.ReportMetric(float64(st.Events)/float64(max(1, st.Syncs)), "events/fsync")
	if err := l.Close(); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkVerify measures Verify of a log of 10^6 entries (with the default
// checkpoint interval), on one worker and on all.
func BenchmarkVerify(b *testing.B) {
	const n = 1_000_000
	env := newEnv(b)
	l := env.open(b, Options{Sync: SyncNone})
	for i := range n {
		if err := l.AppendAsync(sampleEvent(i)); err != nil {
			b.Fatal(err)
		}
	}
	if err := l.Close(); err != nil {
		b.Fatal(err)
	}
	for _, workers := range []int{1, runtime.GOMAXPROCS(0)} {
		b.Run(fmt.Sprintf("entries=1e6/workers=%d", workers), func(b *testing.B) {
			cpu0 := cpuSeconds()
			for b.Loop() {
				rep, err := Verify(env.path, VerifyOptions{StateDir: env.state, Workers: workers})
				if err != nil || !rep.OK || rep.Entries != n {
					b.Fatalf("%+v %v", rep, err)
				}
			}
			b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "entries/s")
			// CPU time is steadier than wall time on a shared machine.
			b.ReportMetric((cpuSeconds()-cpu0)/float64(b.N), "cpu-s/op")
		})
	}
}

// BenchmarkCheckLine measures parsing and hashing one typical line, the
// per-entry work of Verify.
func BenchmarkCheckLine(b *testing.B) {
	e := sampleEvent(3)
	e.Timestamp = fixedTime
	e.ID, e.PrevHash = 5, Genesis
	ms, _ := e.members()
	h, _ := entryHash(ms, nil)
	ms[1].val = strValue(h)
	line := appendJSON(nil, objValue(ms))
	var sc lineScratch
	b.ReportAllocs()
	for b.Loop() {
		lr := sc.check(line)
		if !lr.hashOK {
			b.Fatal("bad")
		}
	}
}
