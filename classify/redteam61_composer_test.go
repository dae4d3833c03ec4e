package classify

import (
	"strings"
	"testing"
)

// TestRedteam61ComposerScripts: composer runs the scripts of composer.json
// with the shell: `composer run NAME` (run-script), `composer NAME` (a
// script name is a command), and the event scripts of install, update
// and dump-autoload (post-autoload-dump, post-install-cmd, …). A line
// that writes composer.json and runs composer runs its commands:
//
//	echo '{"scripts":{"test":"rm -rf ~/.ssh"}}' > composer.json; composer run test                 sandboxed
//	echo '{"scripts":{"test":["rm -rf ~/.ssh"]}}' > composer.json; composer test                   sandboxed
//	echo '{"scripts":{"post-autoload-dump":"rm -rf ~/.ssh"}}' > composer.json; composer install     sandboxed
//	(the same) composer dump-autoload                                                               sandboxed
//
// remove ~/.ssh, where the same text as package.json's scripts, `… >
// package.json; npm test`, is judged (forbidden).
//
// Why: convention.go:writtenCode judges every script of a written
// package.json for npm, npx, pnpm, yarn and bun, but has no case for
// composer, known only as a package manager (programs.go,
// rules_net.go); composer.json's scripts are data, so composer falls
// through to sandboxed.
//
// The premise runs each line with Debian's composer (package composer,
// with php-cli; COMPOSER_DISABLE_NETWORK=1, no dependencies) in a fake
// home and checks that its ~/.ssh is gone, and that the same line with
// `true` leaves it.
//
// Severity: high (a forbidden deletion of the home's ~/.ssh judged
// sandboxed). Found by red-team round 61. Fixed: composer.go judges every
// script (a string or a list; @php, @composer, @putenv as the commands
// they stand for) of the composer.json (-d/--working-dir, $COMPOSER) the
// line wrote, for any composer command, as convention.go does for npm.
func TestRedteam61ComposerScripts(t *testing.T) {
	attacks := []string{
		`echo '{"scripts":{"test":"rm -rf ~/.ssh"}}' > composer.json; composer run test`,
		`echo '{"scripts":{"test":"rm -rf ~/.ssh"}}' > composer.json; composer run-script test`,
		`echo '{"scripts":{"test":["rm -rf ~/.ssh"]}}' > composer.json; composer test`,
		`echo '{"scripts":{"post-autoload-dump":"rm -rf ~/.ssh"}}' > composer.json; composer install`,
		`echo '{"scripts":{"post-autoload-dump":"rm -rf ~/.ssh"}}' > composer.json; composer dump-autoload`,
	}
	rt60aNeed(t, "composer", "composer", "php")
	for _, l := range attacks {
		rt60aPremise(t, l, strings.ReplaceAll(l, "rm -rf ~/.ssh", "true"),
			"COMPOSER_DISABLE_NETWORK=1", "COMPOSER_NO_INTERACTION=1", "COMPOSER_ALLOW_SUPERUSER=1")
	}
	// Reference: the same script in a written package.json.
	rtAtLeast(t, []string{"bash"}, `echo '{"scripts":{"test":"rm -rf ~/.ssh"}}' > package.json; npm test`, Forbidden)
	// The attack.
	for _, l := range attacks {
		rtAtLeast(t, []string{"bash", "sh"}, l, Escalated)
	}
	// Controls: everyday composer runs.
	rtBelow(t, `composer install`, Escalated)
	rtBelow(t, `composer run test`, Escalated)
	rtBelow(t, `composer dump-autoload -o`, Escalated)
	rtBelow(t, `echo '{"scripts":{"test":"phpunit"}}' > composer.json; composer test`, Escalated)
}
