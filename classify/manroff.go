package classify

import "strings"

// man -l formats a roff file the line may have written or piped: its
// requests read files (.so, .nx, .mso, .cf, .trf: printed into the page) and,
// with groff's -U (MANROFFOPT=-U), run commands (.sy, .pso, .pi). Each is
// judged as the cat or the shell code it is. Found by red-team round 48.

// roffReads and roffRuns are the requests that read a file and run a
// command.
var (
	roffReads = newSet(".so", ".nx", ".mso", ".cf", ".trf")
	roffRuns  = newSet(".sy", ".pso", ".pi")
)

// manRoff judges the requests of the roff text man -l formats, where the
// line knows it.
func (a *analyzer) manRoff(u *unit) {
	if !u.hasFlag("l", "--local-file") {
		return
	}
	for _, f := range u.operands() {
		if s, ok := a.operandStream(u, f, true); ok && s.textKnown {
			a.roffRequests(u, s.text)
		}
	}
}

// roffRequests judges each request line of text.
func (a *analyzer) roffRequests(u *unit, text string) {
	for _, line := range strings.Split(text, "\n") {
		req, arg, _ := strings.Cut(strings.TrimSpace(line), " ")
		arg = strings.TrimSpace(arg)
		if arg == "" {
			continue
		}
		switch {
		case roffReads.has(req):
			read := u.inner("man", []field{{val: "cat"}, {val: "--"}, {val: arg, home: strings.HasPrefix(arg, "~")}})
			read.in = stream{}
			a.run(read)
		case roffRuns.has(req):
			a.shellString(u, field{val: arg})
		}
	}
}
