package supervise

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentbox-dev/agentbox"
	"github.com/agentbox-dev/agentbox/audit"
	"github.com/agentbox-dev/agentbox/internal/paths"
	"github.com/agentbox-dev/agentbox/policy"
)

// startEvent is the agent_start entry.
func (a *Agent) startEvent(ok bool, reason string) audit.Event {
	d := map[string]any{
		"manifest": manifestPath(a.m),
		"digest":   a.m.Digest,
		"runtime":  string(policy.RuntimeNative),
		"program":  a.opts.Program,
		"argc":     len(a.opts.Args), // arguments may carry secrets: only their number
		"pid":      os.Getpid(),
	}
	if a.m.Version != "" {
		d["version"] = a.m.Version
	}
	if ok {
		d["init_pid"] = a.proc.Pid()
		d["layers"] = a.proc.Layers()
		d["memory"] = a.record.Memory
		d["memory_limit_bytes"] = a.mgr.Config().ResourceLimits.MaxMemoryBytes
	}
	if l := a.m.Limits; l.MaxDuration > 0 {
		d["max_duration"] = policy.FormatDuration(l.MaxDuration)
	}
	if un := Unenforced(a.m); len(un) > 0 {
		d["not_enforced"] = un
	}
	return audit.Event{EventType: audit.AgentStart, Allowed: ok, Resource: manifestPath(a.m), Rule: "manifest", Reason: reason, Details: d}
}

// refusal is the event of a start that failed: command_refused when the
// classifier refused the program, else agent_start with allowed false.
func (a *Agent) refusal(err error) audit.Event {
	var fe *agentbox.ForbiddenCommandError
	var ee *agentbox.EscalatedCommandError
	switch {
	case errors.As(err, &fe):
		return audit.Event{EventType: audit.CommandRefused, Resource: fe.Command, Rule: fe.Rule, Reason: "forbidden: " + fe.Reason}
	case errors.As(err, &ee):
		return audit.Event{EventType: audit.CommandRefused, Resource: ee.Command, Rule: ee.Rule, Reason: "needs approval: " + ee.Reason}
	}
	return a.startEvent(false, err.Error())
}

// auditLogPath is the manifest's audit.log_path, else STATE/logs/NAME.log.
func auditLogPath(m *policy.Manifest, reg *Registry) (string, error) {
	if m.Audit.LogPath != "" {
		return m.Audit.LogPath, nil
	}
	dir := filepath.Join(reg.StateDir, "logs")
	if err := paths.Ensure(dir); err != nil {
		return "", err
	}
	return filepath.Join(dir, m.Name+".log"), nil
}

// protectAuditLog keeps the agent away from its own audit log: the log,
// its checkpoints and the logs rotated beside it (auditLogFiles) are
// denied, and so is their directory when nothing the agent needs lives in
// it; agentbox's state directory is denied too. A log inside a writable
// root is refused.
func (a *Agent) protectAuditLog(cfg *agentbox.Config, resolved policy.ResolvedPaths) error {
	logPath, err := policy.ResolvePath(a.logPath)
	if err != nil {
		return fmt.Errorf("audit log: %w", err)
	}
	for _, w := range resolved.Write {
		if paths.Within(logPath, w) {
			return fmt.Errorf("%w: audit.log_path %s is inside the writable root %s, where the agent could rewrite it; put the log elsewhere", ErrAuditLogPlacement, a.logPath, w)
		}
	}
	// The directory exists before the deny list is made, so that the list
	// can name it rather than the files in it.
	if a.m.Audit.LogLevel != policy.LogOff {
		made, err := paths.MkdirAll(filepath.Dir(logPath), 0o700)
		if err != nil {
			return fmt.Errorf("audit log: %w", err)
		}
		a.madeDirs = made
	}
	deny := append(auditLogFiles(a.logPath), a.reg.StateDir)
	if logPath != a.logPath {
		deny = append(deny, auditLogFiles(logPath)...)
	}
	dir := filepath.Dir(logPath)
	needed := append(append([]string(nil), resolved.Read...), resolved.Write...)
	if wd := a.opts.Dir; wd != "" {
		needed = append(needed, wd)
	} else if wd, err := os.Getwd(); err == nil {
		needed = append(needed, wd)
	}
	if strings.Contains(a.opts.Program, "/") {
		if p, err := filepath.Abs(a.opts.Program); err == nil {
			needed = append(needed, p)
		}
	}
	dedicated := true
	for _, p := range needed {
		if rp, err := policy.ResolvePath(p); err == nil && paths.Within(rp, dir) {
			dedicated = false
		}
		if abs, err := filepath.Abs(p); err == nil && paths.Within(abs, dir) {
			dedicated = false
		}
	}
	if dedicated && dir != "/" {
		deny = append(deny, dir)
	}
	cfg.Filesystem.DenyRead = pruneNested(appendUnique(cfg.Filesystem.DenyRead, deny...))
	return nil
}

// auditLogFiles names the files of the log at p that the agent may not
// read: the log, its checkpoints, its writers' lock (an agent holding it
// would keep every later writer from opening the log), and every other
// name in its directory that starts with the log's name and a dot as the
// run starts: the logs of earlier runs that `agentbox audit rotate` moved
// to FILE.YYYYMMDDTHHMMSSZ (its default) and their checkpoints. A mask
// covers a path, not a pattern: prepare lists them again once the run
// holds the log open (from then on its writer's lock makes a rotation
// refuse until the run ends), so one rotated while the run starts is
// masked too.
func auditLogFiles(p string) []string {
	files := []string{p, p + audit.CheckpointSuffix, p + audit.WritersLockSuffix}
	dir, prefix := filepath.Dir(p), filepath.Base(p)+"."
	ents, _ := os.ReadDir(dir) // a directory not made yet holds nothing
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), prefix) {
			files = append(files, filepath.Join(dir, e.Name()))
		}
	}
	return files
}

func manifestPath(m *policy.Manifest) string {
	if p, err := filepath.Abs(m.File); err == nil {
		return p
	}
	return m.File
}
