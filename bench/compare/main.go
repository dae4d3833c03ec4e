// Command compare measures agentbox beside bubblewrap and a bare exec, in one
// run, interleaving the variants so that the noise of a shared machine falls
// on all of them alike, and prints medians and ratios.
//
//	go run ./bench/compare -n 200 -agentbox ./agentbox
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"text/tabwriter"
	"time"

	"github.com/agentbox-dev/agentbox"
)

// variant is one way of running /bin/echo hello.
type variant struct {
	name string
	run  func() error
	d    []time.Duration
}

func main() {
	n := flag.Int("n", 200, "runs of each variant")
	bin := flag.String("agentbox", "", "path of the agentbox binary (the cold CLI variant is skipped without it)")
	bwrap := flag.String("bwrap", "bwrap", "path of bubblewrap")
	pause := flag.Duration("pause", 50*time.Millisecond, "idle time after every run, so that no run pays for the background work of the one before")
	flag.Parse()

	m, err := agentbox.NewManager(agentbox.DefaultConfig())
	if err != nil {
		fmt.Fprintln(os.Stderr, "compare:", err)
		os.Exit(1)
	}
	defer m.Close()
	ctx := context.Background()
	command := func(name string, args ...string) func() error {
		return func() error {
			out, err := exec.Command(name, args...).CombinedOutput()
			if err != nil {
				return fmt.Errorf("%s: %w: %s", name, err, out)
			}
			return nil
		}
	}
	vs := []*variant{
		{name: "bare exec /bin/echo", run: command("/bin/echo", "hello")},
		{name: "bwrap --unshare-all", run: command(*bwrap, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc",
			"--unshare-all", "--die-with-parent", "/bin/echo", "hello")},
		{name: "Manager.ExecArgs", run: func() error {
			res, err := m.ExecArgs(ctx, "/bin/echo", []string{"hello"})
			if err == nil && res.ExitCode != 0 {
				err = fmt.Errorf("exit %d: %s", res.ExitCode, res.Stderr)
			}
			return err
		}},
	}
	if *bin != "" {
		vs = append(vs, &variant{name: "agentbox exec (cold CLI)", run: command(*bin, "exec", "--", "/bin/echo", "hello")})
	}
	for _, v := range vs { // warm up: page cache, first-use costs
		if err := v.run(); err != nil {
			fmt.Fprintln(os.Stderr, "compare:", v.name, err)
			os.Exit(1)
		}
	}
	for i := 0; i < *n; i++ {
		for _, v := range vs {
			t := time.Now()
			if err := v.run(); err != nil {
				fmt.Fprintln(os.Stderr, "compare:", v.name, err)
				os.Exit(1)
			}
			v.d = append(v.d, time.Since(t))
			// A Manager starts its next warm init once a command is done,
			// and every variant leaves reaping and teardown behind: let it
			// settle, as the pause between an agent's commands would.
			time.Sleep(*pause)
		}
	}
	base := median(vs[1].d)
	w := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(w, "variant\tmedian\tp90\tratio to bwrap\t\n")
	for _, v := range vs {
		md := median(v.d)
		fmt.Fprintf(w, "%s\t%v\t%v\t%.2f×\t\n", v.name, md.Round(10*time.Microsecond),
			pct(v.d, 90).Round(10*time.Microsecond), float64(md)/float64(base))
	}
	w.Flush()
}

func median(d []time.Duration) time.Duration { return pct(d, 50) }

func pct(d []time.Duration, p int) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[(len(s)-1)*p/100]
}
