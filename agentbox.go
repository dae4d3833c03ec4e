// Package agentbox runs the commands an AI agent generates inside
// kernel-enforced sandboxes.
//
// Every command goes through a classifier (forbidden, escalated, allow or
// sandboxed) and then the operating system's native sandbox: on Linux, user,
// mount, pid, net, ipc, uts and cgroup namespaces, a new read-only root,
// Landlock, seccomp, no capabilities, no new privileges and resource limits.
// The default policy reads everywhere but the user's credential stores,
// writes nowhere but a private /tmp, and reaches no network but a filtering
// egress proxy.
//
//	res, err := agentbox.Exec(ctx, "go test ./...", agentbox.WithWritableRoots(dir))
//
// Programs that embed agentbox re-execute themselves as the sandbox's init
// and should call MaybeSandboxInit first thing in main.
package agentbox

import (
	"context"
	"os/exec"
	"sync"
)

var (
	defaultOnce sync.Once
	defaultMgr  *Manager
	defaultErr  error
)

// defaultManager is the Manager behind the package-level functions, with
// DefaultConfig.
func defaultManager() (*Manager, error) {
	defaultOnce.Do(func() { defaultMgr, defaultErr = NewManager(DefaultConfig()) })
	return defaultMgr, defaultErr
}

// Exec runs command through the default Manager (DefaultConfig).
func Exec(ctx context.Context, command string, opts ...Option) (*ExecResult, error) {
	m, err := defaultManager()
	if err != nil {
		return nil, err
	}
	return m.Exec(ctx, command, opts...)
}

// ExecArgs runs name with args through the default Manager (DefaultConfig).
func ExecArgs(ctx context.Context, name string, args []string, opts ...Option) (*ExecResult, error) {
	m, err := defaultManager()
	if err != nil {
		return nil, err
	}
	return m.ExecArgs(ctx, name, args, opts...)
}

// Wrap sandboxes cmd through the default Manager (DefaultConfig).
func Wrap(ctx context.Context, cmd *exec.Cmd, opts ...Option) (cleanup func(), err error) {
	m, err := defaultManager()
	if err != nil {
		return nil, err
	}
	return m.Wrap(ctx, cmd, opts...)
}
