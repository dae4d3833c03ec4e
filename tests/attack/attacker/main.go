//go:build linux

// Command attacker is the hostile program the red-team suite in tests/attack
// runs inside agentbox sandboxes. Every argument is one probe,
//
//	LABEL=PROBE[:ARG]
//
// run in order. For each it prints exactly one line
//
//	RESULT LABEL allowed|blocked ERRNO DETAIL
//
// where "allowed" means the operation succeeded, ERRNO is the errno name of
// the failure ("-" when allowed) and DETAIL is a Go-quoted string (what was
// read, a count, ...). It prints "STARTED" first and "DONE" last, so a run
// cut short is visible. "attacker child:NAME" is the internal form used for
// probes that may kill the calling process.
package main

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// probeFunc runs one probe. A nil error means the operation succeeded.
type probeFunc func(arg string) (detail string, err error)

// probes maps probe names to their implementation; each file adds its own.
var probes = map[string]probeFunc{}

func register(fs map[string]probeFunc) {
	for name, f := range fs {
		if _, dup := probes[name]; dup {
			panic("duplicate probe " + name)
		}
		probes[name] = f
	}
}

// errNotObtained marks an operation that returned success without giving
// the attacker what it was after (e.g. an fd that is not the secret file).
var errNotObtained = errors.New("ENOTOBTAINED")

var out = bufio.NewWriter(os.Stdout)

func main() {
	if len(os.Args) == 3 && os.Args[1] == "child" {
		os.Exit(runChild(os.Args[2]))
	}
	fmt.Fprintln(out, "STARTED")
	out.Flush()
	for _, a := range os.Args[1:] {
		label, spec, ok := strings.Cut(a, "=")
		if !ok {
			fmt.Fprintf(os.Stderr, "attacker: bad argument %q (want LABEL=PROBE[:ARG])\n", a)
			os.Exit(2)
		}
		name, arg, _ := strings.Cut(spec, ":")
		f, ok := probes[name]
		if !ok {
			fmt.Fprintf(os.Stderr, "attacker: unknown probe %q\n", name)
			os.Exit(2)
		}
		detail, err := f(arg)
		report(label, detail, err)
	}
	fmt.Fprintln(out, "DONE")
	out.Flush()
}

func report(label, detail string, err error) {
	verdict, errno := "allowed", "-"
	if err != nil {
		verdict, errno = "blocked", errnoName(err)
		if detail == "" {
			detail = err.Error()
		}
	}
	if len(detail) > 400 {
		detail = detail[:400]
	}
	fmt.Fprintf(out, "RESULT %s %s %s %s\n", label, verdict, errno, strconv.Quote(detail))
	out.Flush() // a probe that kills the process must not lose earlier lines
}

func errnoName(err error) string {
	var en unix.Errno
	if errors.As(err, &en) {
		if n := unix.ErrnoName(en); n != "" {
			return n
		}
		return "errno" + strconv.Itoa(int(en))
	}
	if errors.Is(err, errNotObtained) {
		return "ENOTOBTAINED"
	}
	var ref refusal
	if errors.As(err, &ref) {
		return string(ref)
	}
	var sig *signalError
	if errors.As(err, &sig) {
		return unix.SignalName(sig.sig)
	}
	var bad badArgs
	if errors.As(err, &bad) {
		return "BADPROBE"
	}
	return "ERROR"
}

// badArgs is a probe argument the probe cannot parse: a mistake in the
// test's table, which the suite fails on rather than count as blocked.
type badArgs string

func (b badArgs) Error() string { return string(b) }

// signalError is a child probe killed by a signal (SIGSYS from seccomp).
type signalError struct{ sig unix.Signal }

func (e *signalError) Error() string { return "killed by " + unix.SignalName(e.sig) }

// splitArgs splits a probe argument on "|".
func splitArgs(arg string, n int) ([]string, error) {
	parts := strings.Split(arg, "|")
	if len(parts) != n {
		return nil, badArgs(fmt.Sprintf("want %d |-separated arguments, got %q", n, arg))
	}
	return parts, nil
}
