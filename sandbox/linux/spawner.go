//go:build linux

package linux

import (
	"os/exec"
	"runtime"
	"sync"
)

// An init's parent-death signal is tied to the OS thread that started it,
// not to the process (golang.org/issue/27505): if that thread later ends,
// the init is killed although agentbox lives on. Go ends a thread when a
// goroutine exits while locked to it, which any code in the process may do.
// So inits are started from one thread kept for that purpose, locked and
// never released, that lives as long as the process.

type spawnRequest struct {
	cmd  *exec.Cmd
	done chan error
}

var (
	spawnOnce sync.Once
	spawns    chan spawnRequest
)

// startOnSpawner starts cmd from the dedicated spawner thread.
func startOnSpawner(cmd *exec.Cmd) error {
	spawnOnce.Do(func() {
		spawns = make(chan spawnRequest)
		go func() {
			runtime.LockOSThread() // never unlocked: the thread must outlive every init
			for req := range spawns {
				req.done <- req.cmd.Start()
			}
		}()
	})
	done := make(chan error, 1)
	spawns <- spawnRequest{cmd: cmd, done: done}
	return <-done
}
