//go:build linux

package agentbox_test

import "testing"

// TestRedteam46PackagedBrowserProfiles: the default deny list hides the
// browsers' and chat clients' cookies and saved passwords only where a
// browser installed from a distribution package keeps them (~/.mozilla,
// ~/.config/google-chrome, ~/.config/chromium, ~/.config/BraveSoftware,
// ~/.config/Slack, ~/.config/discord, ~/.thunderbird). Ubuntu's default
// Firefox (since 22.04) and Thunderbird (since 24.04) are snaps, which keep
// the profile in ~/snap/firefox/common/.mozilla and
// ~/snap/thunderbird/common/.thunderbird; Flatpak apps (Fedora Silverblue,
// Flathub's Chrome, Brave, Slack, Discord) keep theirs in ~/.var/app/ID/...;
// Vivaldi, Opera and Chrome's beta channel use their own ~/.config names;
// Signal Desktop keeps its database and the key that opens it in
// ~/.config/Signal; Chrome's NSS database (~/.pki/nssdb) holds the private
// keys of the user's client certificates. A sandboxed `cat` reads every one
// of them in full: session cookies (logged-in sessions to every site),
// saved logins with the key4.db that decrypts them where no primary
// password is set (Firefox's default), chat session tokens.
//
// Why: internal/credpaths.Home (read by config.go:DefaultDenyRead) lists
// only the package-installed locations; nothing covers ~/snap/*/, ~/.var/app/
// or the other Chromium-family profiles.
//
// Controls: ~/.profile is read; ~/.aws/credentials is refused.
//
// Severity: high (a secret read under the default policy).
// Found by red-team round 46 (high). Fixed: the stores are on credpaths.Home.
func TestRedteam46PackagedBrowserProfiles(t *testing.T) {
	home := rt46bHome(t)
	rt46bProbe(t, home, []rt46bSecret{
		{"snap/firefox/common/.mozilla/firefox/ab12cd34.default/cookies.sqlite", "SQLite format 3 moz_cookies sessionid=%s", "Ubuntu's snap Firefox: cookies"},
		{"snap/firefox/common/.mozilla/firefox/ab12cd34.default/logins.json", `{"logins":[{"encryptedPassword":"%s"}]}`, "Ubuntu's snap Firefox: saved logins"},
		{"snap/firefox/common/.mozilla/firefox/ab12cd34.default/key4.db", "SQLite format 3 nssPrivate %s", "Ubuntu's snap Firefox: the key that decrypts the saved logins"},
		{"snap/chromium/common/chromium/Default/Cookies", "SQLite format 3 cookies %s", "snap Chromium: cookies"},
		{"snap/thunderbird/common/.thunderbird/ab12cd34.default/logins.json", `{"logins":[{"encryptedPassword":"%s"}]}`, "Ubuntu's snap Thunderbird: mail passwords"},
		{".var/app/org.mozilla.firefox/.mozilla/firefox/ab12cd34.default-release/cookies.sqlite", "SQLite format 3 moz_cookies %s", "Flatpak Firefox: cookies"},
		{".var/app/com.google.Chrome/config/google-chrome/Default/Cookies", "SQLite format 3 cookies %s", "Flatpak Chrome: cookies"},
		{".var/app/com.google.Chrome/config/google-chrome/Default/Login Data", "SQLite format 3 logins %s", "Flatpak Chrome: saved passwords"},
		{".var/app/com.brave.Browser/config/BraveSoftware/Brave-Browser/Default/Cookies", "SQLite format 3 cookies %s", "Flatpak Brave: cookies"},
		{".var/app/com.slack.Slack/config/Slack/Cookies", "SQLite format 3 d=xoxd-%s", "Flatpak Slack: the session cookie"},
		{".var/app/com.discordapp.Discord/config/discord/Local Storage/leveldb/000003.log", `token "%s"`, "Flatpak Discord: the account token"},
		{".config/vivaldi/Default/Cookies", "SQLite format 3 cookies %s", "Vivaldi: cookies"},
		{".config/opera/Cookies", "SQLite format 3 cookies %s", "Opera: cookies"},
		{".config/google-chrome-beta/Default/Login Data", "SQLite format 3 logins %s", "Chrome beta: saved passwords"},
		{".config/Signal/config.json", `{"key":"%s"}`, "Signal Desktop: the database key"},
		{".pki/nssdb/key4.db", "SQLite format 3 nssPrivate %s", "Chrome's NSS database: client certificates' private keys"},
	})
}
