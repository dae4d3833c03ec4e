package supervise

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"time"
)

// KillTimeout bounds how long Kill waits for the process tree to be gone.
const KillTimeout = 5 * time.Second

// KillResult reports a kill through the registry.
type KillResult struct {
	Record Record
	// Elapsed runs from the SIGKILL to the moment the sandbox's init had
	// exited, which the kernel allows only once every other process of its
	// pid namespace is gone.
	Elapsed time.Duration
}

// Kill ends the running agent whose ID or name is key, from any process of
// the same user: it writes a kill marker saying who asked and when, then
// sends SIGKILL to the sandbox's init through a pidfd (after checking the
// init's start time, so a recycled pid is never hit), and waits until the
// whole tree is gone. The `agentbox run` supervising the agent then exits
// 137 and logs agent_killed with the marker's facts.
func (r *Registry) Kill(key, reason string) (KillResult, error) {
	rec, err := r.Find(key)
	if err != nil {
		return KillResult{}, err
	}
	return r.KillRecord(rec, reason)
}

// KillRecord is Kill for a record already looked up.
func (r *Registry) KillRecord(rec Record, reason string) (KillResult, error) {
	res := KillResult{Record: rec}
	m := KillMarker{ByPid: os.Getpid(), ByUID: os.Getuid(), Time: time.Now().UTC(), Reason: reason}
	b, err := json.Marshal(m)
	if err != nil {
		return res, err
	}
	// One write(2) of a small file: the run reads it only after the kill
	// below has landed, so it never sees a part of it.
	if err := os.WriteFile(r.markerPath(rec.ID), append(b, '\n'), 0o600); err != nil {
		return res, fmt.Errorf("supervise: kill marker: %w", err)
	}
	fd, err := openPidfd(rec.InitPid, rec.InitStart)
	if errors.Is(err, ErrGone) {
		return res, fmt.Errorf("%w: agent %s (%s) ended before it could be killed", ErrNotFound, rec.Name, rec.ID)
	}
	if err != nil {
		return res, err
	}
	defer fd.close()
	start := time.Now()
	if err := fd.kill(); err != nil {
		return res, fmt.Errorf("supervise: kill agent %s: %w", rec.ID, err)
	}
	if err := fd.wait(KillTimeout); err != nil {
		return res, fmt.Errorf("supervise: agent %s: %w", rec.ID, err)
	}
	res.Elapsed = time.Since(start)
	return res, nil
}
