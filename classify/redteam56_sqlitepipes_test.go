package classify

import "testing"

// TestRedteam56SqlitePipeForms: sqlite3 runs a shell command for
// `.output |CMD` and `.once |CMD` (the rest of the line, unquoted, is the
// command: the shell joins the words after a leading |) and for the SQL
// function edit(TEXT, EDITOR), which runs `EDITOR "tempfile"` through
// system(). So
//
//	sqlite3 :memory: '.output |rm -rf ~/.ssh' 'select 1'       sandboxed
//	sqlite3 :memory: '.once |rm -rf ~/.ssh' 'select 1'         sandboxed
//	printf '.output |rm -rf ~/.ssh\nselect 1;\n' | sqlite3     sandboxed
//	sqlite3 :memory: "select edit('x','rm -rf ~/.ssh;')"       sandboxed
//
// delete ~/.ssh, as `sqlite3 :memory: ".output '|rm -rf ~/.ssh'" 'select
// 1'` and `sqlite3 :memory: '.shell rm -rf ~/.ssh'` (forbidden) do.
//
// Why: the sqlite3 dot-command model (sqliteDot) takes the pipe command
// of .output/.once whole only from a single quoted argument ('|cmd'); in
// the unquoted form, whose words sqlite3 itself joins back into the
// command, only the first word is taken for the command (the verdict
// names `rm`, with no arguments), so rm -rf ~/.ssh is judged as `rm`.
// SQL text is not scanned for edit(), whose second argument is a shell
// command line.
//
// Severity: high (rm -rf ~/.ssh judged sandboxed).
// Found by red-team round 56. Fixed: cliescapes.go (|cmd takes the rest of the line; edit()'s
// editor).
func TestRedteam56SqlitePipeForms(t *testing.T) {
	lines := []string{
		`sqlite3 :memory: '.output |rm -rf ~/.ssh' 'select 1'`,
		`sqlite3 :memory: '.once |rm -rf ~/.ssh' 'select 1'`,
		`printf '.output |rm -rf ~/.ssh\nselect 1;\n' | sqlite3`,
		`sqlite3 :memory: "select edit('x','rm -rf ~/.ssh;')"`,
	}
	if rtHave(t, "bash", "sqlite3") {
		for _, l := range lines {
			rt56aPremise(t, l)
		}
	}
	// References.
	rtAtLeast(t, []string{"bash"}, `sqlite3 :memory: ".output '|rm -rf ~/.ssh'" 'select 1'`, Forbidden)
	rtAtLeast(t, []string{"bash"}, `sqlite3 :memory: '.shell rm -rf ~/.ssh'`, Forbidden)
	// The attack.
	for _, l := range lines {
		rtAtLeast(t, []string{"bash", "sh"}, l, Forbidden)
	}
	// Controls.
	rtBelow(t, `sqlite3 db '.output out.csv' 'select * from t'`, Escalated)
	rtBelow(t, `sqlite3 db '.once |cat' 'select 1'`, Escalated)
	rtBelow(t, `sqlite3 db "select upper('x')"`, Escalated)
}
