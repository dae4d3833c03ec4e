//go:build linux

package attack_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentbox-dev/agentbox"
)

// TestRedteam22DenyPathCreatedLateInVisibleTmp: a working directory in
// /tmp (or a home there, HOME=/tmp/... on CI runners) is shown to the
// sandbox read-only from the host. A deny-read path inside it that does
// not exist when the sandbox starts gets an opMaskDir, but the init's
// mkdir of the mountpoint fails with EROFS on the read-only bind and
// applyOp takes that as "nothing to hide"; Landlock leaves every deny path
// in a private area out of its deny list (plan.landlock: !inPrivateArea).
// So a file the host creates there while the command runs (a CI step
// writing credentials, `aws configure`, a tool refreshing a token) is
// read by the command through the bind. Outside the private areas the
// README promises that such a late file stays unreadable (Landlock); here
// nothing is left to refuse it.
//
// Controls: a denied file that exists at the start is masked; an ordinary
// file written by the host in the same directory at the same time is read.
//
// Severity: medium (a file on the deny list is read; needs the host to
// create it while the command runs). Fails as root and as agentbox-ci. A
// fix would keep such paths in Landlock's deny list (as outside the
// private areas) or refuse to show a read-only host directory in which a
// deny path cannot be masked.
//
// Fixed: a deny path missing in a host directory shown read-only inside a
// private area is held by a placeholder made on the host for the run, as
// in a writable root (planner.onHost), and masked: what the host creates
// there meanwhile lands in the placeholder, under the mask. (Landlock
// cannot refuse it there: it grants the whole private /tmp for writing.)
// Where the caller may not create it, the sandbox is refused, naming it.
func TestRedteam22DenyPathCreatedLateInVisibleTmp(t *testing.T) {
	t.Parallel()
	w := newDirIn(t, "/tmp", 0o755)
	present := uniqueSecret("present")
	late := uniqueSecret("late")
	writeFile(t, filepath.Join(w, "present-token"), present, 0o644)
	script := `W=` + w + `
cat $W/present-token 2>/dev/null && echo "read_present ok"
i=0; while [ ! -e $W/ok.txt ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i+1)); done
cat $W/ok.txt 2>/dev/null && echo "control_read ok"
cat $W/.aws/credentials 2>/dev/null && echo "read_late ok"
echo DONE
`
	go func() {
		time.Sleep(1500 * time.Millisecond)
		writeFile(t, filepath.Join(w, ".aws", "credentials"), late, 0o644)
		writeFile(t, filepath.Join(w, "ok.txt"), publicContent, 0o644)
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, err := ciMgr.ExecArgs(ctx, "/bin/sh", []string{"-c", script}, agentbox.WithWorkingDir(w),
		agentbox.WithDenyRead(filepath.Join(w, ".aws"), filepath.Join(w, "present-token")))
	if err != nil {
		t.Fatalf("the sandbox could not run the script: %v", err)
	}
	t.Logf("exit %d\nstdout:\n%s\nstderr:\n%s", res.ExitCode, res.Stdout, res.Stderr)
	if !strings.Contains(res.Stdout, "DONE") {
		t.Fatalf("the script did not finish")
	}
	if !strings.Contains(res.Stdout, "control_read ok") || !strings.Contains(res.Stdout, publicContent) {
		t.Errorf("control: the ordinary file the host wrote meanwhile was not read")
	}
	if strings.Contains(res.Stdout, present) {
		t.Errorf("control: the denied file present at the start was read")
	}
	if strings.Contains(res.Stdout, late) {
		t.Errorf("ESCAPE: the command read %s/.aws/credentials, a deny-read path the host created while it ran", w)
	}
}
