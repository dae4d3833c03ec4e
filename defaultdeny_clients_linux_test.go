//go:build linux

package agentbox_test

import (
	"strings"
	"testing"
)

// TestDefaultDenyClientStores: Subversion's cached passwords
// (~/.subversion/auth/svn.simple), talosctl's client key (~/.talos/config)
// and a CIFS credentials file (~/.smbcredentials) are read by their own
// clients only, and are denied like ~/.git-credentials and ~/.kube. A
// sandboxed cat of each is refused (found by red-team round 47 as allow in
// the classifier, which reads the same list). The control for the design's
// other half: Maven's ~/.m2/settings.xml, which builds read for their
// mirrors, stays readable in the sandbox (the classifier escalates a
// command that names it: credpaths.BuildConfig).
func TestDefaultDenyClientStores(t *testing.T) {
	home := rt46bHome(t)
	rt46bProbe(t, home, []rt46bSecret{
		{".subversion/auth/svn.simple/5671adf2865e267db74f09ba6f872c28", "K 8\npassword\nV 9\n%s\n", "Subversion: cached passwords"},
		{".talos/config", "context: x\ncontexts:\n  x:\n    key: %s\n", "talosctl: client key"},
		{".smbcredentials", "username=u\npassword=%s\n", "CIFS mount credentials"},
	})
	settings := rt46bWrite(t, home, ".m2/settings.xml", "<settings><mirrors>MIRROR-CONTROL</mirrors></settings>\n")
	got := rt46bCatAll(t, rt46bManager(t, true), []string{settings})
	if !strings.Contains(got[settings], "MIRROR-CONTROL") {
		t.Errorf("control: a build's ~/.m2/settings.xml is not readable in the sandbox: %q", got[settings])
	}
}
