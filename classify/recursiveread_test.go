package classify

import "testing"

// TestRecursiveStoreRead: a recursive read of a directory above a
// credential store is credential-access; other recursive reads, listings
// and writes into the home are judged as before.
func TestRecursiveStoreRead(t *testing.T) {
	c := Default()
	for _, tc := range []struct {
		command string
		cred    bool // credential-access
	}{
		{`grep -r . ~`, true},
		{`grep -R foo /`, true},
		{`grep -r -e x -e y ~`, true},
		{`grep -rf pats /home`, true},
		{`cd ~; grep -r foo`, true},
		{`cd ~; rg foo`, true},
		{`rg foo /root`, true},
		{`ag foo /Users/*`, true},
		{`grep -r foo ~/.config`, true},
		{`tar czf x.tgz ~`, true},
		{`tar -czf x.tgz -C / home`, true},
		{`tar cf - -C ~ .`, true},
		{`cp -r ~ x`, true},
		{`cp -rt x ~`, true},
		{`rsync -a ~/ x`, true},
		{`zip -qr x.zip ~`, true},
		{`7z a x.7z ~`, true},
		{`find ~ -type f -exec cat {} +`, true},
		{`find / -exec base64 {} ;`, true},
		{`grep -d recurse x ~`, true},
		{`grep -drecurse x ~`, true},
		{`grep -id rec x ~`, true},
		{`grep --directories=recurse x ~`, true},
		{`grep --dir recurse x ~`, true},
		{`cd ~ && git grep --no-index x`, true},
		{`git -C ~ grep --no-index x`, true},
		{`git grep --no-index x ~/.ssh/..`, true},
		{`find ~ -type f | xargs cat`, true},
		{`find / -print0 | xargs -0 grep -h x`, true},
		{`cd ~; find . | xargs base64`, true},

		{`grep -r TODO .`, false},
		{`grep -d skip x ~`, false},
		{`grep -d read x ~/*`, false},
		{`grep -d recurse x src`, false},
		{`git grep x`, false},
		{`cd ~ && git grep x`, false},
		{`git grep --no-index x src`, false},
		{`find ~ -name x | xargs ls -l`, false},
		{`find src -type f | xargs grep x`, false},
		{`ls ~ | xargs cat`, false},
		{`cd ~; grep -r . src`, false},
		{`grep -r foo ~/projects`, false},
		{`grep -r foo ~/.config/nvim`, false},
		{`grep -r x /etc`, false},
		{`rg foo`, false},
		{`ls -R ~`, false},
		{`du -sh ~`, false},
		{`grep foo ~/*`, false},
		{`tar xzf x.tgz -C ~`, false},
		{`tar -C ~ -czf /tmp/notes.tgz notes`, false},
		{`tar --no-recursion -czf x.tgz ~`, false},
		{`cp -r src ~`, false},
		{`cp -rt ~ dir/.`, false},
		{`find ~/proj -type f -exec cat {} +`, false},
		{`find ~ -name '*.pyc' -exec chmod 644 {} +`, false},
	} {
		got := c.Classify(tc.command)
		if (got.Rule == RuleCredentialAccess) != tc.cred {
			t.Errorf("%q: %s/%s, want credential-access %v", tc.command, got.Decision, got.Rule, tc.cred)
		}
	}
}
