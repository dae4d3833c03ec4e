package supervise

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/agentbox-dev/agentbox/internal/paths"
)

// Errors of the registry that callers branch on.
var (
	// ErrNotFound: no running agent has the ID or name asked for.
	ErrNotFound = errors.New("no such running agent")
	// ErrAmbiguous is matched by *AmbiguousError.
	ErrAmbiguous = errors.New("agent name is ambiguous")
	// ErrGone: the process is no longer the one that was recorded.
	ErrGone = errors.New("process gone")
)

// AmbiguousError refuses a name that several running agents share.
type AmbiguousError struct {
	Name    string
	Matches []Record
}

func (e *AmbiguousError) Error() string {
	ids := make([]string, len(e.Matches))
	for i, r := range e.Matches {
		ids[i] = fmt.Sprintf("%s (pid %d, started %s)", r.ID, r.Pid, r.Started.Local().Format(time.TimeOnly))
	}
	return fmt.Sprintf("%d running agents are named %q: %s; name one by its ID", len(e.Matches), e.Name, strings.Join(ids, ", "))
}

// Unwrap returns ErrAmbiguous.
func (e *AmbiguousError) Unwrap() error { return ErrAmbiguous }

// Record is one running agent as the registry keeps it: a JSON file per
// agent in the registry directory, written atomically.
type Record struct {
	ID       string `json:"id"`
	Name     string `json:"name"`
	Manifest string `json:"manifest"`
	// Pid is the `agentbox run` process (or whatever process called Start);
	// PidStart its start time in clock ticks since boot (/proc/PID/stat
	// field 22), which tells it apart from a later process with the same pid.
	Pid      int    `json:"pid"`
	PidStart uint64 `json:"pid_start"`
	// InitPid is the host pid of the sandbox's init (pid 1 inside): killing
	// it ends the whole process tree.
	InitPid   int       `json:"init_pid"`
	InitStart uint64    `json:"init_start"`
	Started   time.Time `json:"started"`
	Runtime   string    `json:"runtime"`
	Memory    string    `json:"memory"` // MemoryCgroup or MemoryMonitor
	AuditLog  string    `json:"audit_log,omitempty"`
	// Limits are the manifest's limits, carried into the run (also those not
	// enforced yet).
	Limits Limits `json:"limits"`
}

// Limits are an agent's declared limits; zero means none.
type Limits struct {
	MaxDuration  time.Duration `json:"max_duration,omitempty"`
	MaxMemoryMB  int64         `json:"max_memory_mb,omitempty"`
	MaxTokens    int64         `json:"max_tokens,omitempty"`
	MaxRequests  int64         `json:"max_requests,omitempty"`
	MaxToolCalls int64         `json:"max_tool_calls,omitempty"`
}

// KillMarker records who asked for a kill. `agentbox kill` writes it before
// it kills, and the run that supervises the agent reads it to log who did.
type KillMarker struct {
	ByPid  int       `json:"by_pid"`
	ByUID  int       `json:"by_uid"`
	Time   time.Time `json:"time"`
	Reason string    `json:"reason"`
}

// Registry is the directory of running agents, shared by every agentbox
// process of one user.
type Registry struct {
	// StateDir is agentbox's state directory (the audit key lives there).
	StateDir string
	// Dir is StateDir/agents, one ID.json file per running agent and an
	// ID.kill marker when a kill was requested.
	Dir string
}

// OpenRegistry opens the registry in stateDir, or in agentbox's state
// directory (paths.StateDir) when stateDir is empty, creating it with mode
// 0700 if needed.
func OpenRegistry(stateDir string) (*Registry, error) {
	if stateDir == "" {
		d, err := paths.StateDir()
		if err != nil {
			return nil, err
		}
		stateDir = d
	}
	r := &Registry{StateDir: stateDir, Dir: filepath.Join(stateDir, "agents")}
	if err := paths.Ensure(stateDir); err != nil {
		return nil, err
	}
	if err := paths.Ensure(r.Dir); err != nil {
		return nil, err
	}
	return r, nil
}

// newID returns a short random hex ID.
func newID() (string, error) {
	var b [4]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	return hex.EncodeToString(b[:]), nil
}

func validID(id string) bool {
	if len(id) != 8 {
		return false
	}
	_, err := hex.DecodeString(id)
	return err == nil && strings.ToLower(id) == id
}

func (r *Registry) recordPath(id string) string { return filepath.Join(r.Dir, id+".json") }
func (r *Registry) markerPath(id string) string { return filepath.Join(r.Dir, id+".kill") }

// reserveID picks an ID no record uses yet.
func (r *Registry) reserveID() (string, error) {
	for range 16 {
		id, err := newID()
		if err != nil {
			return "", err
		}
		if !paths.Exists(r.recordPath(id)) {
			return id, nil
		}
	}
	return "", errors.New("supervise: could not pick a free agent ID")
}

// Register writes rec's file atomically.
func (r *Registry) Register(rec Record) error {
	if !validID(rec.ID) {
		return fmt.Errorf("supervise: invalid agent ID %q", rec.ID)
	}
	b, err := json.MarshalIndent(rec, "", "  ")
	if err != nil {
		return err
	}
	return writeAtomic(r.recordPath(rec.ID), append(b, '\n'))
}

// Remove deletes the record of id and its kill marker.
func (r *Registry) Remove(id string) error {
	if !validID(id) {
		return fmt.Errorf("supervise: invalid agent ID %q", id)
	}
	err := os.Remove(r.recordPath(id))
	if errors.Is(err, fs.ErrNotExist) {
		err = nil
	}
	_ = os.Remove(r.markerPath(id))
	return err
}

// List returns the running agents, oldest first. Records whose process is
// gone (or whose pid now names another process) are removed.
func (r *Registry) List() ([]Record, error) {
	names, err := os.ReadDir(r.Dir)
	if err != nil {
		return nil, fmt.Errorf("supervise: read registry: %w", err)
	}
	var out []Record
	for _, de := range names {
		id, ok := strings.CutSuffix(de.Name(), ".json")
		if !ok || !validID(id) {
			continue
		}
		rec, err := r.read(id)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				continue // removed meanwhile
			}
			// An unreadable record cannot be killed through the registry
			// either; leave the file for a person to look at.
			continue
		}
		if !alive(rec.Pid, rec.PidStart) && !alive(rec.InitPid, rec.InitStart) {
			_ = r.Remove(id)
			continue
		}
		out = append(out, rec)
	}
	// Orphaned markers (their run is gone) go too.
	for _, de := range names {
		if id, ok := strings.CutSuffix(de.Name(), ".kill"); ok && validID(id) && !paths.Exists(r.recordPath(id)) {
			_ = os.Remove(r.markerPath(id))
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if !out[i].Started.Equal(out[j].Started) {
			return out[i].Started.Before(out[j].Started)
		}
		return out[i].ID < out[j].ID
	})
	return out, nil
}

func (r *Registry) read(id string) (Record, error) {
	var rec Record
	b, err := os.ReadFile(r.recordPath(id))
	if err != nil {
		return rec, err
	}
	if err := json.Unmarshal(b, &rec); err != nil {
		return rec, fmt.Errorf("supervise: registry entry %s: %w", id, err)
	}
	if rec.ID != id {
		return rec, fmt.Errorf("supervise: registry entry %s names ID %q", id, rec.ID)
	}
	if rec.Pid <= 0 || rec.PidStart == 0 || rec.InitPid <= 0 || rec.InitStart == 0 {
		// Without both start times the pids may name any process now.
		return rec, fmt.Errorf("supervise: registry entry %s does not name its processes with their start times", id)
	}
	return rec, nil
}

// Find returns the running agent whose ID or name is key. An ID wins over a
// name; a name several agents share is an *AmbiguousError.
func (r *Registry) Find(key string) (Record, error) {
	if validID(key) {
		// The kill switch's fast path: one file, no directory scan.
		if rec, err := r.read(key); err == nil && (alive(rec.Pid, rec.PidStart) || alive(rec.InitPid, rec.InitStart)) {
			return rec, nil
		}
	}
	list, err := r.List()
	if err != nil {
		return Record{}, err
	}
	var byName []Record
	for _, rec := range list {
		if rec.ID == key {
			return rec, nil
		}
		if rec.Name == key {
			byName = append(byName, rec)
		}
	}
	switch len(byName) {
	case 0:
		return Record{}, fmt.Errorf("%w: %q", ErrNotFound, key)
	case 1:
		return byName[0], nil
	}
	return Record{}, &AmbiguousError{Name: key, Matches: byName}
}

// Marker returns the kill marker of id, or nil when no kill was requested.
func (r *Registry) Marker(id string) (*KillMarker, error) {
	if !validID(id) {
		return nil, fmt.Errorf("supervise: invalid agent ID %q", id)
	}
	b, err := os.ReadFile(r.markerPath(id))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var m KillMarker
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("supervise: kill marker %s: %w", id, err)
	}
	return &m, nil
}

// writeAtomic writes data to path through a temporary file in the same
// directory and a rename, so that readers see the old or the new content,
// never a part.
func writeAtomic(path string, data []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return fmt.Errorf("supervise: %w", err)
	}
	tmp := f.Name()
	_, werr := f.Write(data)
	cerr := f.Close()
	if err := errors.Join(werr, cerr); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("supervise: write %s: %w", path, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("supervise: %w", err)
	}
	return nil
}
