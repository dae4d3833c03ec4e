package classify

import "testing"

// TestRedteam58Rakefile: rake and bundler run Ruby files by their own
// convention: rake loads Rakefile (or -f FILE) and every rakelib/*.rake
// before it does anything, even -T; bundler evaluates the Gemfile. So
//
//	echo 'system("rm -rf ~/.ssh")' > Rakefile; rake                          sandboxed
//	echo 'system("rm -rf ~/.ssh")' > x.rake; rake -f x.rake                  sandboxed
//	mkdir -p rakelib; echo 'system("rm -rf ~/.ssh")' > rakelib/x.rake; touch Rakefile; rake -T  sandboxed
//	echo 'system("rm -rf ~/.ssh")' > Gemfile; bundle install                 sandboxed
//
// remove ~/.ssh, as their counterparts `echo 'all:; rm -rf ~/.ssh' >
// Makefile; make` and `… > x.rb; ruby x.rb` (forbidden) are judged.
//
// Why: the files a tool reads as code by its own convention are followed
// for make (makefile.go), npm/yarn/pnpm's package.json scripts, python -m
// and the like (README "Known limits"), not for rake's Rakefile,
// rakefile.rb, rakelib/*.rake and -f/--rakefile, nor bundler's Gemfile
// (bundle install/exec/update; gem build's *.gemspec alike).
//
// Severity: high (rm -rf ~/.ssh judged sandboxed).
// Found by red-team round 58.
// Fixed: rubycode.go: rake's Rakefile (-f/--rakefile, else
// rakefile/Rakefile[.rb], in -C's directory), -r files and rakelib/*.rake
// (-R), bundler's Gemfile (--gemfile, BUNDLE_GEMFILE, else
// Gemfile/gems.rb) with the gemspecs it names, gem build's gemspecs, and
// rspec's spec files and --require files (.rspec) are judged as Ruby where
// the line wrote them, with the written files they load in turn
// (rubyText); rake -e/-p/-E code as Ruby.
func TestRedteam58Rakefile(t *testing.T) {
	rt58aNeed(t, "rake, bundler", "bash", "rake", "bundle")
	const j = `'system("rm -rf ~/.ssh")'`
	attacks := []string{
		`echo ` + j + ` > Rakefile; rake`,
		`echo ` + j + ` > x.rake; rake -f x.rake`,
		`mkdir -p rakelib; echo ` + j + ` > rakelib/x.rake; touch Rakefile; rake -T`,
		`echo ` + j + ` > Gemfile; bundle install`,
	}
	for _, l := range attacks {
		rt58aPremise(t, l, "")
	}
	// Control of the premise: rake with a harmless Rakefile.
	home, work := rt58aHome(t)
	if out := rt58aRun(t, home, work, `echo 'task :default' > Rakefile; rake`); rt58aGone(home) {
		t.Fatalf("premise: a harmless Rakefile removed ~/.ssh (output %q)", out)
	}
	// References.
	rtAtLeast(t, []string{"bash"}, `echo 'all:; rm -rf ~/.ssh' > Makefile; make`, Forbidden)
	rtAtLeast(t, []string{"bash"}, `echo `+j+` > x.rb; ruby x.rb`, Forbidden)
	// The attack.
	for _, l := range attacks {
		rtAtLeast(t, []string{"bash", "sh"}, l, Escalated)
	}
	// Controls: the project's own Rakefile and Gemfile.
	rtBelow(t, `rake test`, Escalated)
	rtBelow(t, `bundle install`, Escalated)
	rtBelow(t, `echo 'task :default' > Rakefile; rake`, Escalated)
}
