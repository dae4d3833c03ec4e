package classify

import "testing"

// TestWriteForms: text reaching a file a shell runs later is judged as if
// it ran, whatever writes it: a compound command's redirection, tee, dd,
// a descriptor exec opened, cat of a file the line wrote, sed -i's a, i
// and c text; and the rc files of csh, fish and X sessions count.
func TestWriteForms(t *testing.T) {
	c := Default()
	for _, tc := range []struct {
		command string
		want    Decision
	}{
		{`{ echo "rm -rf /"; } >> ~/.bashrc`, Forbidden},
		{`if true; then echo "rm -rf /"; fi > ~/.profile`, Forbidden},
		{`(echo "rm -rf /") >> ~/.zshrc`, Forbidden},
		{`echo "rm -rf /" | tee -a ~/.bashrc`, Forbidden},
		{`tee ~/.bashrc <<< "rm -rf /"`, Forbidden},
		{`echo "rm -rf /" | dd of=~/.bashrc oflag=append conv=notrunc`, Forbidden},
		{`exec 3>>~/.bashrc; echo "rm -rf /" >&3`, Forbidden},
		{`exec 3>>~/.bashrc; exec 4>&3; echo "rm -rf /" >&4`, Forbidden},
		{`exec >>~/.bashrc; echo "rm -rf /"`, Forbidden},
		{`echo "rm -rf /" > a; cat a >> ~/.bashrc`, Forbidden},
		{`echo "rm -rf /" > a; cat a > x.sh; bash x.sh`, Forbidden},
		{`sed -i "1i rm -rf /" ~/.bashrc`, Forbidden},
		{`sed -i -e '$a\` + "\n" + `rm -rf /' ~/.bashrc`, Forbidden},
		{`echo "rm -rf /" >> ~/.cshrc`, Forbidden},
		{`echo "rm -rf /" >> ~/.tcshrc`, Forbidden},
		{`echo "rm -rf /" > ~/.config/fish/conf.d/x.fish`, Forbidden},
		{`echo "rm -rf /" >> ~/.xprofile`, Forbidden},
		{`echo "rm -rf /" >> ~/.xsessionrc`, Forbidden},
		{`PERL5DB='BEGIN{system(q(ls))}' perl -d -e 1`, Escalated},

		{`{ echo 'export EDITOR=vim'; } >> ~/.bashrc`, Sandboxed},
		{`echo 'export X=1' | tee -a ~/.bashrc`, Sandboxed},
		{`exec 3>>~/.bashrc; exec 3>&-; echo "rm -rf /" >&3`, Sandboxed},
		{`exec >>~/.bashrc; exec >&2; echo "rm -rf /"`, Sandboxed},
		{`exec >log.txt; echo hi`, Sandboxed},
		{`sed -i 's/vim/nvim/' ~/.bashrc`, Sandboxed},
		{`sed -i '1i rm -rf /' notes.txt`, Sandboxed},
		{`echo hi | tee out.txt`, Sandboxed},
	} {
		if got := c.Classify(tc.command); got.Decision != tc.want {
			t.Errorf("%q: %s (rule %q, command %q), want %s", tc.command, got.Decision, got.Rule, got.Command, tc.want)
		}
	}
}
