package classify

import "testing"

// Red team 13: variants of the HOME and descriptor tricks that held: HOME
// set in a function body, by eval, by source of a here-document or a
// process substitution, through an array or `set --`; credential files
// opened on a descriptor by exec and read later; a block device opened by
// exec for writing. Each must stay at least as severe as shown.
func TestRedteam13HomeAndFdVariantsHeld(t *testing.T) {
	c := Default()
	for _, tc := range []struct {
		command string
		want    Decision
	}{
		{"f() { HOME=/; }; f; rm -rf ~/etc", Forbidden},
		{"f() { export HOME=/etc; }; f; rm -rf ~", Forbidden},
		{"eval 'HOME=/'; rm -rf ~/etc", Forbidden},
		{". /dev/stdin <<EOF\nHOME=/etc\nEOF\nrm -rf ~/", Escalated},
		{"source <(echo HOME=/etc); rm -rf ~/", Forbidden},
		{"a=(/etc); HOME=${a[0]}; rm -rf ~/", Forbidden},
		{"set -- /etc; HOME=$1; rm -rf ~/", Forbidden},
		{"IFS=: read HOME x <<< \"/etc:y\"; rm -rf ~/", Escalated},
		{"cd ~ && rm -rf /proc/self/root/proc/self/cwd/", Forbidden},
		{"cd ~ && cd /tmp && rm -rf ~-", Forbidden},
		{"exec 3<~/.ssh/id_rsa; cat <&3", Escalated},
		{"exec {fd}<~/.ssh/id_rsa; cat <&$fd", Escalated},
		{"exec 3<>/dev/sda; cat /dev/zero >&3", Forbidden},
	} {
		if got := c.Classify(tc.command); got.Decision < tc.want {
			t.Errorf("%q: %s (rule %q), want %s", tc.command, got.Decision, got.Rule, tc.want)
		}
	}
}
