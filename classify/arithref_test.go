package classify

import "testing"

func TestIndexNumber(t *testing.T) {
	for _, tc := range []struct {
		in, want string
		ok       bool
	}{
		{"10", "10", true},
		{"010", "8", true}, // arithmetic: octal
		{"0010", "8", true},
		{" 010 ", "8", true},
		{"0x1f", "31", true},
		{"2#101", "5", true},
		{"-010", "-8", true},
		{"+3", "3", true},
		{"08", "", false}, // bash: value too great for base
		{"i", "i", true},  // a name: left as it is, no element has it as key
		{"@", "@", true},
		{"$i", "$i", true},
	} {
		got, ok := indexNumber(tc.in)
		if ok != tc.ok || ok && got != tc.want {
			t.Errorf("indexNumber(%q) = %q %v, want %q %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

// TestArithSubscripts: an indexed array's subscript is read as bash's
// arithmetic reads it, an associative array's key as its text, and
// arithmetic follows the element the key names (or every element).
func TestArithSubscripts(t *testing.T) {
	redteam26Expect(t, []struct {
		command string
		want    Decision
	}{
		{`a=(r0 r1 r2 r3 r4 r5 r6 r7 / r9 tmpdir); rm -rf "${a[ 010 ]}"`, Forbidden},
		{`a=(r0 r1 r2 r3 r4 r5 r6 r7 / r9 tmpdir); rm -rf "${a[0x8]}"`, Forbidden},
		{`a=(r0 r1 r2 r3 r4 r5 r6 r7 / r9 tmpdir); i=010; rm -rf "${a[$i]}"`, Forbidden},
		{`a=(r0 r1 r2 r3 r4 r5 r6 r7 / r9 tmpdir); rm -rf "${a[$((010))]}"`, Forbidden},
		{`a=([010]=/ [10]=tmpdir); rm -rf "${a[8]}"`, Forbidden},
		{`declare -A m=([010]=README [8]=~/.ssh/id_rsa); j=010; cat "${m[$j]}"`, Allow},
		{`a=(r0 r1 r2 r3 r4 r5 r6 r7 r8 r9 README); cat "${a[10]}"`, Allow},
		// arithmetic through keys and namerefs
		{`a=(1 2 3); echo $((a[1] + a[-1]))`, Allow},
		{`a=([2]=4); declare -n r=a; echo $((r[2] * 2))`, Allow},
		{`a=('x[$(rm -rf /)]' 1); declare -n r=a; echo $((r))`, Forbidden},
		{`a=([3]='x[$(rm -rf /)]'); echo $((a[i]))`, Forbidden}, // a run-time key: any element
		{`declare -A m=([k]='x[$(rm -rf /)]' [j]=1); echo $((m[j]))`, Allow},
		{`declare -n r='r[0]'; echo $((r))`, Allow}, // a cycle ends
	})
}
