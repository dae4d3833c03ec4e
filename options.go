package agentbox

import (
	"fmt"

	"github.com/agentbox-dev/agentbox/classify"
	"strings"
	"time"
)

// Option changes one call of Exec, ExecArgs or Wrap, and only that call.
type Option func(*callOptions) error

// callOptions are the per-call settings, on top of the Manager's Config.
type callOptions struct {
	writable, denyRead, denyWrite, scratch []string
	env                                    []string
	dir                                    string
	timeout                                time.Duration
	shell                                  string
	maxOutput                              int64
	network                                *NetworkMode
	classifier                             Classifier
	classifyOpts                           []classify.Option
	approved                               bool
	terminal                               bool
	terminalSize                           [2]uint16
}

// WithWritableRoots adds writable roots for this call.
func WithWritableRoots(paths ...string) Option {
	return func(o *callOptions) error {
		if err := checkPaths("WithWritableRoots", paths); err != nil {
			return err
		}
		if err := checkWritable("WithWritableRoots", paths); err != nil {
			return err
		}
		o.writable = append(o.writable, paths...)
		return nil
	}
}

// WithDenyRead adds deny-read paths for this call.
func WithDenyRead(paths ...string) Option {
	return func(o *callOptions) error {
		if err := checkPaths("WithDenyRead", paths); err != nil {
			return err
		}
		o.denyRead = append(o.denyRead, paths...)
		return nil
	}
}

// WithScratch adds scratch directories for this call: writable, with
// every change discarded when the command ends (see
// FilesystemConfig.Scratch).
func WithScratch(paths ...string) Option {
	return func(o *callOptions) error {
		if err := checkPaths("WithScratch", paths); err != nil {
			return err
		}
		if err := checkScratch("WithScratch", paths); err != nil {
			return err
		}
		o.scratch = append(o.scratch, paths...)
		return nil
	}
}

// WithDenyWrite adds deny-write paths for this call.
func WithDenyWrite(paths ...string) Option {
	return func(o *callOptions) error {
		if err := checkPaths("WithDenyWrite", paths); err != nil {
			return err
		}
		o.denyWrite = append(o.denyWrite, paths...)
		return nil
	}
}

// WithEnv passes KEY=VALUE variables to the command, on top of the
// allow-listed part of the caller's environment.
func WithEnv(vars ...string) Option {
	return func(o *callOptions) error {
		for _, kv := range vars {
			k, _, ok := strings.Cut(kv, "=")
			if !ok || k == "" || strings.ContainsAny(k, "\x00") {
				return configErr("WithEnv", "%q is not KEY=VALUE", kv)
			}
		}
		o.env = append(o.env, vars...)
		return nil
	}
}

// WithWorkingDir sets the command's working directory (absolute; it must be
// visible inside the sandbox).
func WithWorkingDir(dir string) Option {
	return func(o *callOptions) error {
		if err := checkPaths("WithWorkingDir", []string{dir}); err != nil {
			return err
		}
		o.dir = dir
		return nil
	}
}

// WithTimeout kills the command's whole process tree after d (exit 137,
// ErrTimeout).
func WithTimeout(d time.Duration) Option {
	return func(o *callOptions) error {
		if d <= 0 {
			return configErr("WithTimeout", "must be positive, got %v", d)
		}
		o.timeout = d
		return nil
	}
}

// WithShell sets the shell that runs Exec's command string.
func WithShell(path string) Option {
	return func(o *callOptions) error {
		if err := checkPaths("WithShell", []string{path}); err != nil {
			return err
		}
		o.shell = path
		return nil
	}
}

// WithMaxOutputBytes bounds what Exec captures of stdout and of stderr.
func WithMaxOutputBytes(n int64) Option {
	return func(o *callOptions) error {
		if n <= 0 {
			return configErr("WithMaxOutputBytes", "must be positive, got %d", n)
		}
		o.maxOutput = n
		return nil
	}
}

// WithNetwork sets the network mode for this call.
func WithNetwork(mode NetworkMode) Option {
	return func(o *callOptions) error {
		switch mode {
		case NetworkBlocked, NetworkFiltered, NetworkAllowed:
		default:
			return configErr("WithNetwork", "unknown mode %d", int(mode))
		}
		o.network = &mode
		return nil
	}
}

// WithTerminal gives the program started by Start a new pseudo-terminal
// of the sandbox's own as its standard streams and controlling terminal,
// as a login gives a shell one: /dev/tty, job control and ^C work inside,
// and the program never holds a descriptor of the caller's terminal.
// Process.Terminal returns its master, through which the caller reads the
// program's output and writes its input. The exec.Cmd's Stdin, Stdout and
// Stderr must be nil. Exec, ExecArgs and Wrap refuse it.
func WithTerminal() Option {
	return func(o *callOptions) error {
		o.terminal = true
		return nil
	}
}

// WithTerminalSize is WithTerminal with the terminal's window size when the
// program starts, in rows and columns (the caller's terminal's, typically,
// read with TIOCGWINSZ). Later changes go to the master with TIOCSWINSZ.
func WithTerminalSize(rows, cols uint16) Option {
	return func(o *callOptions) error {
		if rows == 0 || cols == 0 {
			return configErr("WithTerminalSize", "%dx%d: rows and columns must be positive", rows, cols)
		}
		o.terminal, o.terminalSize = true, [2]uint16{rows, cols}
		return nil
	}
}

// refuseTerminal refuses WithTerminal for calls that pass other streams.
func (o *callOptions) refuseTerminal(call string) error {
	if o.terminal {
		return configErr("WithTerminal", "%s does not give a terminal; use Start and Process.Terminal", call)
	}
	return nil
}

func applyOptions(opts []Option) (*callOptions, error) {
	o := &callOptions{}
	for i, opt := range opts {
		if opt == nil {
			return nil, configErr(fmt.Sprintf("option %d", i), "nil option")
		}
		if err := opt(o); err != nil {
			return nil, err
		}
	}
	return o, nil
}
