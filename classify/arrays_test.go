package classify

import "testing"

// TestArrayDefaults: an array element built from ${X:-w} keeps w as a
// possible value (varVal.dfltArr), through +=, declare/local, case
// attributes and a join of two paths.
func TestArrayDefaults(t *testing.T) {
	rt20Check(t, []rt20Case{
		{`a=(x); a+=(${X:-~/.ssh/id_rsa}); cat "${a[1]}"`, Escalated, false},
		{`a=(${X:-~/.ssh/id_rsa}); a+=(y); cat "${a[0]}"`, Escalated, false},
		{`a=(${X:-~/.ssh/id_rsa}); a+=(y); cat "${a[1]}"`, Allow, true},
		{`a=(${X:-README.md} ~/.ssh/id_rsa.pub); cat "${a[0]}"`, Allow, true},
		{`declare -a a=(${X:-~/.ssh/id_rsa}); cat "${a[0]}"`, Escalated, false},
		{`f() { local a=(${1:-~/.ssh/id_rsa}); cat "${a[0]}"; }; f`, Escalated, false},
		{`a=(${X:-~/.ssh/id_rsa}); cat $a`, Escalated, false},
		{`a=(b "${X:-$HOME/.aws/credentials}"); cat "${a[@]}"`, Escalated, false},
		{`a=(${X:-~/.ssh/id_rsa}); [ -n "$Y" ] && a=(b); cat "${a[0]}"`, Escalated, false},
		{`declare -l a=(${X:-~/.SSH/ID_RSA}); cat "${a[0]}"`, Escalated, false},
		{`a=(${X:-a b}); ls "${a[@]}"`, Allow, true},
		{`a=(src ${EXTRA:-docs}); grep -r TODO "${a[@]}"`, Allow, true},
	})
}
