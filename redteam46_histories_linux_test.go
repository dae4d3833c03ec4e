//go:build linux

package agentbox_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRedteam46UnlistedHistories: the deny list hides "shell and
// interpreter histories: commands typed with a token in them" by name
// (~/.bash_history, ~/.zsh_history, fish's, ~/.python_history,
// ~/.psql_history, ~/.mysql_history, …) and misses the same histories under
// the other names they commonly have: zsh's ~/.zhistory (Prezto's default)
// and ~/.histfile (what zsh-newuser-install, zsh's first-run wizard on Arch
// and others, writes into .zshrc), ksh's ~/.sh_history and mksh's
// ~/.mksh_history, vim's ~/.viminfo (command-line history and the contents
// of the registers: every token yanked or pasted in vim; vim writes it on
// every exit) and Neovim's ShaDa, less's ~/.lesshst, IPython's history
// database, the MongoDB shells' (connection strings with passwords),
// ClickHouse's, DuckDB's, irb's and Julia's REPL histories. A sandboxed
// `cat` reads each.
//
// Premise, checked for real: vim (run on the host with HOME at the test's
// home) writes a register's content into ~/.viminfo.
//
// Why: internal/credpaths.Home (read by config.go:DefaultDenyRead) lists
// history files by name, and these names are not on it.
//
// Controls: ~/.profile is read; ~/.aws/credentials is refused.
//
// Severity: high (secrets typed by the user read under the default policy).
// Found by red-team round 46 (high). Fixed: the stores are on credpaths.Home.
func TestRedteam46UnlistedHistories(t *testing.T) {
	home := rt46bHome(t)

	// Premise: vim keeps what was in its registers in ~/.viminfo.
	vimMarker := rt46bMarker(99)
	rt46bHostRun(t, []string{"HOME=" + home}, "", "vim", "-N", "-u", "NONE", "-i", filepath.Join(home, ".viminfo"), "-es",
		"-c", `let @a="ghp_`+vimMarker+`"`, "-c", "wviminfo!", "-c", "qa!")
	vi, err := os.ReadFile(filepath.Join(home, ".viminfo"))
	if err != nil || !strings.Contains(string(vi), vimMarker) {
		t.Fatalf("premise: vim did not keep the register in ~/.viminfo (%v): %q", err, vi)
	}
	os.Remove(filepath.Join(home, ".viminfo")) // planted again below, with its own marker

	rt46bProbe(t, home, []rt46bSecret{
		{".zhistory", ": 1700000000:0;export GITHUB_TOKEN=ghp_%s\n", "zsh history (Prezto's name)"},
		{".histfile", "export GITHUB_TOKEN=ghp_%s\n", "zsh history (zsh-newuser-install's name)"},
		{".sh_history", "export AWS_SECRET_ACCESS_KEY=%s\n", "ksh history"},
		{".mksh_history", "export AWS_SECRET_ACCESS_KEY=%s\n", "mksh history"},
		{".viminfo", "# Registers:\n\"a\tCHAR\t0\n\tghp_%s\n", "vim: registers and command-line history"},
		{".local/state/nvim/shada/main.shada", "ghp_%s", "Neovim ShaDa: registers and history"},
		{".lesshst", ".less-history-file:\n.search\n\"%s\n", "less: search history"},
		{".ipython/profile_default/history.sqlite", "SQLite format 3 openai.api_key='sk-%s'", "IPython: input history"},
		{".mongodb/mongosh/mongosh_repl_history", "db.auth('admin','%s')\n", "mongosh history"},
		{".dbshell", "db.auth('admin','%s')\n", "the legacy mongo shell's history"},
		{".clickhouse-client-history", "CREATE USER u IDENTIFIED BY '%s';\n", "clickhouse-client history"},
		{".duckdb_history", "CREATE SECRET (TYPE s3, SECRET '%s');\n", "DuckDB CLI history"},
		{".irb_history", "ENV['STRIPE_KEY']='sk_live_%s'\n", "irb history"},
		{".julia/logs/repl_history.jl", "# mode: julia\n\tENV[\"TOKEN\"]=\"%s\"\n", "Julia REPL history"},
	})
}
