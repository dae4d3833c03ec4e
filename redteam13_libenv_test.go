//go:build linux

package agentbox_test

// Red-team session 13: a program embedding agentbox, with secrets in its
// own environment, runs commands through every entry point of the library
// (Exec, ExecArgs, Start and Wrap with a nil cmd.Env) in every network
// mode; and a working directory inside /tmp, which is shown to the sandbox,
// holding a denied file.

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentbox-dev/agentbox"
)

// rt13eSecrets are what a developer's or CI runner's environment holds.
var rt13eSecrets = map[string]string{
	"AWS_SECRET_ACCESS_KEY": "rt13e-aws-secret",
	"AWS_SESSION_TOKEN":     "rt13e-aws-session",
	"GITHUB_TOKEN":          "rt13e-github-token",
	"SSH_AUTH_SOCK":         "/run/rt13e-ssh-agent.sock",
	"HTTP_PROXY":            "http://user:rt13e-proxy-pw@127.0.0.1:9",
	"https_proxy":           "http://user:rt13e-proxy-pw2@127.0.0.1:9",
	"ALL_PROXY":             "socks5://user:rt13e-proxy-pw3@127.0.0.1:9",
	"LD_PRELOAD":            "/rt13e-preload.so",
	"ANTHROPIC_API_KEY":     "rt13e-anthropic",
}

// TestRedteam13CallerSecretsStayOut: none of the caller's secrets reaches
// the command's environment, whatever the entry point and network mode;
// an allow-listed variable (LANG) and one passed with WithEnv do.
func TestRedteam13CallerSecretsStayOut(t *testing.T) {
	for k, v := range rt13eSecrets {
		t.Setenv(k, v)
	}
	t.Setenv("LANG", "C.UTF-8")
	m := newManager(t, agentbox.CIConfig())
	ctx := context.Background()
	type entry func(t *testing.T, opts ...agentbox.Option) string
	entries := map[string]entry{
		"Exec": func(t *testing.T, opts ...agentbox.Option) string {
			res, err := m.Exec(ctx, "env", opts...)
			if err != nil || res.ExitCode != 0 {
				t.Fatalf("Exec: %v %+v", err, res)
			}
			return res.Stdout
		},
		"ExecArgs": func(t *testing.T, opts ...agentbox.Option) string {
			res, err := m.ExecArgs(ctx, "env", nil, opts...)
			if err != nil || res.ExitCode != 0 {
				t.Fatalf("ExecArgs: %v %+v", err, res)
			}
			return res.Stdout
		},
		"Start": func(t *testing.T, opts ...agentbox.Option) string {
			var out bytes.Buffer
			cmd := exec.Command("/usr/bin/env")
			cmd.Stdout = &out
			p, err := m.Start(ctx, cmd, opts...)
			if err != nil {
				t.Fatalf("Start: %v", err)
			}
			if res, err := p.Wait(); err != nil || res.ExitCode != 0 {
				t.Fatalf("Start: %v %+v", err, res)
			}
			return out.String()
		},
		"Wrap": func(t *testing.T, opts ...agentbox.Option) string {
			var out bytes.Buffer
			cmd := exec.Command("/usr/bin/env")
			cmd.Stdout = &out
			cleanup, err := m.Wrap(ctx, cmd, opts...)
			if err != nil {
				t.Fatalf("Wrap: %v", err)
			}
			defer cleanup()
			if err := cmd.Run(); err != nil {
				t.Fatalf("Wrap run: %v", err)
			}
			return out.String()
		},
	}
	modes := map[string]agentbox.NetworkMode{
		"blocked": agentbox.NetworkBlocked, "filtered": agentbox.NetworkFiltered, "allowed": agentbox.NetworkAllowed,
	}
	for ename, e := range entries {
		for mname, mode := range modes {
			t.Run(ename+"/"+mname, func(t *testing.T) {
				env := e(t, agentbox.WithNetwork(mode), agentbox.WithEnv("RT13E_PASSED=yes"))
				for k, v := range rt13eSecrets {
					if strings.Contains(env, v) {
						t.Errorf("the caller's %s reached the command: %s", k, v)
					}
				}
				for _, want := range []string{"LANG=C.UTF-8", "RT13E_PASSED=yes"} {
					if !strings.Contains(env, want+"\n") {
						t.Errorf("control: %s missing from the command's environment:\n%s", want, env)
					}
				}
			})
		}
	}
}

// TestRedteam13WorkdirInTmpKeepsDenyMasks: a working directory inside the
// host's /tmp is shown to the sandbox read-only; a file denied inside it
// (by the Config or by the call) stays unreadable, its neighbour readable.
func TestRedteam13WorkdirInTmpKeepsDenyMasks(t *testing.T) {
	dir, err := os.MkdirTemp("/tmp", "r13e-wd-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"ok", "cfgsecret", "callsecret"} {
		if err := os.WriteFile(filepath.Join(dir, f), []byte("rt13e-"+f+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "sub", "k"), []byte("rt13e-subsecret\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := agentbox.CIConfig()
	cfg.Filesystem.DenyRead = append(cfg.Filesystem.DenyRead, filepath.Join(dir, "cfgsecret"), filepath.Join(dir, "sub"))
	m := newManager(t, cfg)
	for _, tc := range []struct {
		name string
		opts []agentbox.Option
	}{
		{"WithWorkingDir", []agentbox.Option{agentbox.WithWorkingDir(dir), agentbox.WithDenyRead(filepath.Join(dir, "callsecret"))}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := m.Exec(context.Background(), "cat ok; cat cfgsecret; cat callsecret; cat sub/k; cat "+dir+"/cfgsecret; true", tc.opts...)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(res.Stdout, "rt13e-ok") {
				t.Fatalf("control: the working directory's file was not readable: %+v", res)
			}
			for _, s := range []string{"rt13e-cfgsecret", "rt13e-callsecret", "rt13e-subsecret"} {
				if strings.Contains(res.Stdout, s) {
					t.Errorf("denied %s read through the shown working directory", s)
				}
			}
		})
	}
	// Wrap with cmd.Dir in /tmp.
	var out bytes.Buffer
	cmd := exec.Command("/bin/sh", "-c", "cat ok; cat cfgsecret; cat sub/k; true")
	cmd.Dir, cmd.Stdout = dir, &out
	cleanup, err := m.Wrap(context.Background(), cmd)
	if err != nil {
		t.Fatal(err)
	}
	defer cleanup()
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "rt13e-ok") || strings.Contains(out.String(), "secret") {
		t.Errorf("Wrap in /tmp: %q", out.String())
	}
}
