//go:build linux

package agentbox_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"sync"
	"testing"

	"github.com/agentbox-dev/agentbox"
)

// TestUpdateConfigLoggerWhileCalling: UpdateConfig may replace the logger
// while calls log through it (a refused command logs "command refused");
// under the race detector this fails if the logger is shared unguarded.
func TestUpdateConfigLoggerWhileCalling(t *testing.T) {
	cfg := agentbox.CIConfig()
	m, err := agentbox.NewManager(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		for range 50 {
			c := cfg
			c.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
			if err := m.UpdateConfig(c); err != nil {
				t.Error(err)
				return
			}
		}
	}()
	go func() {
		defer wg.Done()
		for range 50 {
			if _, err := m.Exec(context.Background(), "rm -rf /"); !errors.Is(err, agentbox.ErrForbiddenCommand) {
				t.Errorf("rm -rf /: %v, want ErrForbiddenCommand", err)
				return
			}
		}
	}()
	wg.Wait()
}
