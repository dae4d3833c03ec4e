package vault

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
)

// checkAll opens the vault afresh and checks that every expected credential
// is there with its value and nothing else is.
func checkAll(t *testing.T, path string, want map[string]string) {
	t.Helper()
	v, err := Open(path, testPass)
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	if got := len(v.List()); got != len(want) {
		t.Errorf("vault holds %d credentials, want %d", got, len(want))
	}
	for n, val := range want {
		s, err := v.Get(n)
		if err != nil {
			t.Errorf("Get(%s): %v", n, err)
			continue
		}
		if string(s.Bytes()) != val {
			t.Errorf("Get(%s) = %q, want %q", n, s.Bytes(), val)
		}
		s.Wipe()
	}
}

func helperName(worker, i int) (name, value string) {
	return fmt.Sprintf("W%d_K%d", worker, i), fmt.Sprintf("value-%d-%d", worker, i)
}

// Several goroutines, each with its own Vault on one path (so each holds its
// own lock file description, as separate processes would), race to create
// the vault and then add credentials. Every credential must survive.
func TestConcurrentAddGoroutines(t *testing.T) {
	path := filepath.Join(t.TempDir(), "data", FileName)
	const workers, each = 6, 5
	want := map[string]string{}
	for w := range workers {
		for i := range each {
			n, val := helperName(w, i)
			want[n] = val
		}
	}
	var wg sync.WaitGroup
	errs := make(chan error, (workers+1)*each+workers)
	for w := range workers {
		wg.Go(func() {
			v, err := OpenOrCreate(path, testPass, testOpts()...)
			if err != nil {
				errs <- err
				return
			}
			defer v.Close()
			for i := range each {
				n, val := helperName(w, i)
				errs <- v.Put(n, []byte(val))
			}
		})
	}
	// Goroutines sharing one Vault as well.
	shared, err := OpenOrCreate(path, testPass, testOpts()...)
	if err != nil {
		t.Fatal(err)
	}
	defer shared.Close()
	for i := range each {
		n, val := helperName(99, i)
		want[n] = val
		wg.Go(func() { errs <- shared.Put(n, []byte(val)) })
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	checkAll(t, path, want)
}

// Several processes (this test binary, re-executed) race to create the vault
// and add credentials. Every credential must survive.
func TestConcurrentAddProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns processes")
	}
	path := filepath.Join(t.TempDir(), "data", FileName)
	const procs, each = 4, 8
	want := map[string]string{}
	cmds := make([]*exec.Cmd, procs)
	for p := range procs {
		for i := range each {
			n, val := helperName(p, i)
			want[n] = val
		}
		cmd := exec.Command(os.Args[0], "-test.run=^TestVaultHelperProcess$", "-test.count=1")
		cmd.Env = append(os.Environ(),
			"VAULT_HELPER_PATH="+path,
			"VAULT_HELPER_WORKER="+strconv.Itoa(p),
			"VAULT_HELPER_COUNT="+strconv.Itoa(each))
		cmds[p] = cmd
	}
	outs := make([][]byte, procs)
	errs := make([]error, procs)
	var wg sync.WaitGroup
	for p, cmd := range cmds {
		wg.Go(func() { outs[p], errs[p] = cmd.CombinedOutput() })
	}
	wg.Wait()
	for p := range procs {
		if errs[p] != nil {
			t.Errorf("helper %d: %v\n%s", p, errs[p], outs[p])
		}
	}
	checkAll(t, path, want)
}

// TestVaultHelperProcess is the body of TestConcurrentAddProcesses's child
// processes; it does nothing in a normal run.
func TestVaultHelperProcess(t *testing.T) {
	path := os.Getenv("VAULT_HELPER_PATH")
	if path == "" {
		t.Skip("helper process for TestConcurrentAddProcesses")
	}
	worker, _ := strconv.Atoi(os.Getenv("VAULT_HELPER_WORKER"))
	count, _ := strconv.Atoi(os.Getenv("VAULT_HELPER_COUNT"))
	v, err := OpenOrCreate(path, testPass, testOpts()...)
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	for i := range count {
		n, val := helperName(worker, i)
		if err := v.Put(n, []byte(val)); err != nil {
			t.Fatal(err)
		}
	}
}
