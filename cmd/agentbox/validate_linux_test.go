//go:build linux

package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestValidateWhatRunRefuses: what run refuses before the agent starts,
// validate reports too, at the same FILE:LINE:COL.
func TestValidateWhatRunRefuses(t *testing.T) {
	state := runEnv(t)
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "logs"), 0o755); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, src, want string
	}{
		{"/ writable", "name: a\npermissions:\n  filesystem:\n    write: [/etc, /]\naudit:\n  log_path: /var/log/a.log\n",
			":4:19: permissions.filesystem.write: / cannot be a writable root"},
		{"missing writable root", "name: a\npermissions:\n  filesystem:\n    write: [./out]\n",
			":4:13: permissions.filesystem.write: " + filepath.Join(dir, "out") + " does not exist"},
		{"log in a writable root", "name: a\npermissions:\n  filesystem:\n    write: [./logs]\naudit:\n  log_path: logs/a.log\n",
			":6:13: audit.log_path: " + filepath.Join(dir, "logs", "a.log") + " is inside the writable root"},
		{"default log in a writable root", "name: a\npermissions:\n  filesystem:\n    write: [" + filepath.Dir(state) + "]\n",
			":4:13: permissions.filesystem.write: " + filepath.Dir(state) + " holds the default audit log"},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(dir, fmt.Sprintf("m%d.yaml", i))
			if err := os.WriteFile(path, []byte(tc.src), 0o644); err != nil {
				t.Fatal(err)
			}
			code, out, errOut := runCLI(t, "validate", path)
			if code != exitFailure || out != "" || !strings.HasPrefix(errOut, path+tc.want) {
				t.Errorf("validate: exit %d, stdout %q, stderr:\n%s\nwant %s%s", code, out, errOut, path, tc.want)
			}
			code, out, errOut = runCLI(t, "run", "--manifest", path, "--", "/bin/true")
			if code != exitInternal || out != "" || !strings.HasPrefix(errOut, path+tc.want) {
				t.Errorf("run: exit %d, stdout %q, stderr:\n%s\nwant %s%s", code, out, errOut, path, tc.want)
			}
		})
	}
}
