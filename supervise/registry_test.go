//go:build linux

package supervise

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

func TestParseStatStart(t *testing.T) {
	tests := []struct {
		in   string
		want uint64
		ok   bool
	}{
		{"1 (init) S 0 1 1 0 -1 4194560 1 2 3 4 5 6 7 8 20 0 1 0 42 100 200", 42, true},
		// A command name with spaces and parentheses.
		{"7 (a) b) (c) R 1 7 7 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 99887766 1 2", 99887766, true},
		{"7 (short) R 1 2", 0, false},
		{"no parenthesis", 0, false},
	}
	for _, tt := range tests {
		got, err := parseStatStart([]byte(tt.in))
		if (err == nil) != tt.ok || got != tt.want {
			t.Errorf("parseStatStart(%q) = %d, %v; want %d ok=%v", tt.in, got, err, tt.want, tt.ok)
		}
	}
	own, err := procStartTime(os.Getpid())
	if err != nil || own == 0 {
		t.Fatalf("own start time: %d, %v", own, err)
	}
	if !alive(os.Getpid(), own) || alive(os.Getpid(), own+1) {
		t.Error("alive does not tell this process from a recycled pid")
	}
}

func TestRegistryStaleEntries(t *testing.T) {
	f := newFixture(t)
	own, err := procStartTime(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	// A process that has exited (and was reaped): its pid is free.
	c := exec.Command("true")
	if err := c.Run(); err != nil {
		t.Fatal(err)
	}
	dead := c.Process.Pid
	bystander := exec.Command("sleep", "30")
	if err := bystander.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { bystander.Process.Kill(); bystander.Wait() })
	recs := []Record{
		{ID: "0000000a", Name: "live", Pid: os.Getpid(), PidStart: own, InitPid: os.Getpid(), InitStart: own, Started: time.Now()},
		// A record that does not say when its init started may name any
		// process by now: it is not listed, found or killed.
		{ID: "0000000d", Name: "unsure", Pid: os.Getpid(), PidStart: own, InitPid: bystander.Process.Pid, Started: time.Now()},
		{ID: "0000000b", Name: "dead", Pid: dead, PidStart: 1, InitPid: dead, InitStart: 1, Started: time.Now()},
		// The pid is alive, but it is another process than the one recorded.
		{ID: "0000000c", Name: "reused", Pid: os.Getpid(), PidStart: own + 1, InitPid: os.Getpid(), InitStart: own + 1, Started: time.Now()},
	}
	for _, r := range recs {
		if err := f.reg.Register(r); err != nil {
			t.Fatal(err)
		}
	}
	// An orphaned kill marker goes with its stale record.
	if err := os.WriteFile(f.reg.markerPath("0000000b"), []byte("{}"), 0o600); err != nil {
		t.Fatal(err)
	}
	list, err := f.reg.List()
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 1 || list[0].ID != "0000000a" {
		t.Fatalf("List = %+v, want only the live record", list)
	}
	for _, id := range []string{"0000000b", "0000000c"} {
		for _, p := range []string{f.reg.recordPath(id), f.reg.markerPath(id)} {
			if _, err := os.Stat(p); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("stale %s still there (%v)", filepath.Base(p), err)
			}
		}
	}
	if _, err := f.reg.Kill("0000000d", "test"); !errors.Is(err, ErrNotFound) {
		t.Errorf("Kill of a record without the init's start time: %v; want ErrNotFound", err)
	}
	if err := bystander.Process.Signal(syscall.Signal(0)); err != nil {
		t.Errorf("the process a record named without its start time was killed: %v", err)
	}
	if err := f.reg.Register(Record{ID: "../x", Pid: 1}); err == nil {
		t.Error("Register accepted an ID that is not 8 hex digits")
	}
}

func TestRegistryFind(t *testing.T) {
	f := newFixture(t)
	own, _ := procStartTime(os.Getpid())
	for _, r := range []Record{
		{ID: "000000a1", Name: "twin", Pid: os.Getpid(), PidStart: own, InitPid: os.Getpid(), InitStart: own, Started: time.Now()},
		{ID: "000000a2", Name: "twin", Pid: os.Getpid(), PidStart: own, InitPid: os.Getpid(), InitStart: own, Started: time.Now().Add(time.Second)},
		{ID: "000000a3", Name: "single", Pid: os.Getpid(), PidStart: own, InitPid: os.Getpid(), InitStart: own, Started: time.Now()},
	} {
		if err := f.reg.Register(r); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		key    string
		wantID string
		want   error
	}{
		{"single", "000000a3", nil},
		{"000000a2", "000000a2", nil},
		{"twin", "", ErrAmbiguous},
		{"nobody", "", ErrNotFound},
		{"", "", ErrNotFound},
	}
	for _, tt := range tests {
		rec, err := f.reg.Find(tt.key)
		if !errors.Is(err, tt.want) || rec.ID != tt.wantID {
			t.Errorf("Find(%q) = %s, %v; want %q, %v", tt.key, rec.ID, err, tt.wantID, tt.want)
		}
	}
	_, err := f.reg.Kill("twin", "test")
	var amb *AmbiguousError
	if !errors.As(err, &amb) || len(amb.Matches) != 2 || amb.Matches[0].ID != "000000a1" {
		t.Fatalf("Kill of an ambiguous name: %v", err)
	}
	if _, err := os.Stat(f.reg.markerPath("000000a1")); !errors.Is(err, os.ErrNotExist) {
		t.Error("a refused kill left a kill marker")
	}
}
