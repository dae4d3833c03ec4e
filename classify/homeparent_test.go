package classify

import "testing"

// TestHomeByParent: a path that leaves the home for its parent and comes
// back by a run-time name may be the home (or a path in it).
func TestHomeByParent(t *testing.T) {
	for _, tc := range []struct {
		dir, val string
		dyn      bool
		want     string
		ok       bool
	}{
		{"", "~/../$USER", true, "~/", true},
		{"", "~/../$(whoami)/.config", true, "~/.config", true},
		{"", "~/x/../../$USER", true, "~/", true},
		{"", "~/./../`id -un`", true, "~/", true},
		{"~/..", "$USER", true, "~/", true},
		{"~/..", "$USER/.aws", true, "~/.aws", true},
		{"~/..", "bob", false, "", false},
		{"", "~/../bob", false, "", false},
		{"", "~/$USER", true, "", false},
		{"", "~/../../$USER", true, "", false},
		{"~", "$USER", true, "", false},
		{cwdMaybeHome, "../$USER", true, "", false},
		{"/tmp", "$USER", true, "", false},
	} {
		got, ok := homeByParent(tc.dir, field{val: tc.val, dyn: tc.dyn})
		if got != tc.want || ok != tc.ok {
			t.Errorf("homeByParent(%q, %q) = %q, %v, want %q, %v", tc.dir, tc.val, got, ok, tc.want, tc.ok)
		}
	}
}

// TestAtHomeParent: where cd ~/.. and the like end.
func TestAtHomeParent(t *testing.T) {
	for p, want := range map[string]bool{
		"~/..": true, "~/x/../..": true, "~/../": true, "~/./..": true,
		"~": false, "~/..//..": false, "~/../bob": false, "/home": false, "../..": false,
	} {
		if got := atHomeParent(p); got != want {
			t.Errorf("atHomeParent(%q) = %v, want %v", p, got, want)
		}
	}
}

// TestHomeByParentVerdicts: recursive reads of the home reached through
// its parent; other names there and reads inside the home stay as before.
func TestHomeByParentVerdicts(t *testing.T) {
	rt20Check(t, []rt20Case{
		{`cd ~; cd ..; tar cf /tmp/x $USER`, Escalated, false},
		{`tar cf /tmp/x ~/../$USER/.config`, Escalated, false},
		{`cd ~/..; grep -r TODO "$USER"`, Escalated, false},
		{`cd ~/..; rm -rf *`, Forbidden, true},

		{`tar cf /tmp/x ~/../$USER/src`, Sandboxed, true},
		{`cd ~/..; tar cf /tmp/x bob`, Sandboxed, true},
		{`cd ~/..; ls`, Allow, true},
		{`cd ~/project; grep -r TODO "$X"`, Allow, true},
	})
}

// TestHomeParentStores: a store reached from the home's parent by a name
// only known at run time (or a glob), by cd, or by tar -C, is judged as the
// store in the home.
func TestHomeParentStores(t *testing.T) {
	rt20Check(t, []rt20Case{
		{`tar czf /tmp/x.tgz ~/../$USER/.config/gcloud`, Escalated, false},
		{`cd ~/../$USER; zip -r /tmp/x.zip .aws`, Escalated, false},
		{`tar -C ~/.. -czf /tmp/x.tgz $USER/.ssh`, Escalated, false},
		{`tar czf /tmp/x.tgz --directory=$HOME/.. "$USER"`, Escalated, false},
		{`grep -r KEY ~/../$USER/src`, Allow, true},
		{`tar czf /tmp/x.tgz -C ~/.. $USER/project/src`, Sandboxed, true},
		{`cd ~/../$USER/project && ls`, Allow, true},
	})
}
