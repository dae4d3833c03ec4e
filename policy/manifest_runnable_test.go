package policy

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCheckRunnable(t *testing.T) {
	dir := t.TempDir()
	for _, d := range []string{"out", "state", "logs"} {
		if err := os.Mkdir(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "file"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(dir, "logs"), filepath.Join(dir, "loglink")); err != nil {
		t.Fatal(err)
	}
	state := filepath.Join(dir, "state")
	tests := []struct {
		name string
		src  string
		want []wantErr // nil: runnable
		is   error
	}{
		{"existing writable root", "name: a\npermissions:\n  filesystem:\n    write: [./out]\n", nil, nil},
		{"missing writable root", "name: a\npermissions:\n  filesystem:\n    write: [./out, ./missing]\n",
			[]wantErr{{4, 20, "permissions.filesystem.write: " + filepath.Join(dir, "missing") + " does not exist; create the directory before the run, or remove the entry"}}, ErrWritableRootMissing},
		{"writable root is a file", "name: a\npermissions:\n  filesystem:\n    write: [./file]\n", nil, nil},
		{"log outside the writable roots", "name: a\npermissions:\n  filesystem:\n    write: [./out]\naudit:\n  log_path: ./logs/a.log\n", nil, nil},
		{"log inside a writable root", "name: a\npermissions:\n  filesystem:\n    write: [./out, ./logs]\naudit:\n  log_path: ./logs/a.log\n",
			[]wantErr{{6, 13, "audit.log_path: " + filepath.Join(dir, "logs/a.log") + " is inside the writable root " + filepath.Join(dir, "logs") + " (line 4), where the agent could rewrite its own log; put the log outside every writable root"}}, ErrAuditLogWritable},
		{"log inside a writable root through a link", "name: a\npermissions:\n  filesystem:\n    write: [./logs]\naudit:\n  log_path: ./loglink/a.log\n",
			[]wantErr{{6, 13, "is inside the writable root"}}, ErrAuditLogWritable},
		{"default log inside a writable root", "name: a\npermissions:\n  filesystem:\n    write: [./out, ./state]\n",
			[]wantErr{{4, 20, "permissions.filesystem.write: " + state + " holds the default audit log " + filepath.Join(state, "logs/a.log") + ", where the agent could rewrite it; set audit.log_path outside every writable root"}}, ErrAuditLogWritable},
		{"default log moved away", "name: a\npermissions:\n  filesystem:\n    write: [./state]\naudit: {log_path: ./logs/a.log}\n", nil, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m, err := ParseManifestWith(filepath.Join(dir, "m.yaml"), []byte(tc.src), LoadOptions{})
			if err != nil {
				t.Fatalf("parse: %v", err)
			}
			err = m.CheckRunnable(state)
			if tc.want == nil {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			var me *ManifestErrors
			if !errors.As(err, &me) || !errors.Is(err, ErrInvalidManifest) {
				t.Fatalf("got %v, want *ManifestErrors", err)
			}
			if len(me.List) != len(tc.want) {
				t.Fatalf("got %d errors, want %d:\n%v", len(me.List), len(tc.want), err)
			}
			for i, w := range tc.want {
				g := me.List[i]
				if g.Line != w.line || g.Col != w.col || !strings.Contains(g.Msg, w.msg) {
					t.Errorf("error %d = %d:%d: %s\nwant %s", i, g.Line, g.Col, g.Msg, w)
				}
				if !errors.Is(g, tc.is) {
					t.Errorf("error %d does not match %v", i, tc.is)
				}
			}
		})
	}
}
