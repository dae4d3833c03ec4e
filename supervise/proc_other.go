//go:build !linux

package supervise

import (
	"errors"
	"time"
)

// errNoProc reports that this platform has no /proc to supervise through.
var errNoProc = errors.New("supervise: process supervision needs Linux")

func procStartTime(int) (uint64, error)           { return 0, errNoProc }
func alive(int, uint64) bool                      { return false }
func pidNamespace(int) (string, error)            { return "", errNoProc }
func namespaceProcs(string, []int) ([]int, error) { return nil, errNoProc }
func sandboxOOMFile(int) string                   { return "" }
func oomKills(string) (uint64, error)             { return 0, errNoProc }
func callerIdentity() (pid, uid int)              { return 0, 0 }
func openPidfd(int, uint64) (pidfd, error)        { return -1, errNoProc }

type pidfd int

func (pidfd) kill() error              { return errNoProc }
func (pidfd) wait(time.Duration) error { return errNoProc }
func (pidfd) close()                   {}

// treeSampler: see sampler_linux.go.
type treeSampler struct{}

func openTreeSampler(int, uint64, int64) (*treeSampler, error) { return nil, errNoProc }
func (*treeSampler) sample(bool) (int64, int, error)           { return 0, 0, errNoProc }
func (*treeSampler) close()                                    {}
