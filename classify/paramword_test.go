package classify

import "testing"

// TestParamOpWordValues: the word of ${X:-w}, ${X-w}, ${X:=w}, ${X=w},
// ${X:+w}, ${X+w} on an X the line does not know is judged as a possible
// value of the word, in arguments, redirection targets and assignments;
// ${X:?msg} is a message, and an X the line knows keeps its value.
func TestParamOpWordValues(t *testing.T) {
	rt20Check(t, []rt20Case{
		{`cat ${X:=~/.ssh/id_rsa}`, Escalated, false},
		{`cat ${X=~/.ssh/id_rsa}`, Escalated, false},
		{`cat ${X:+~/.ssh/id_rsa}`, Escalated, false},
		{`cat ${X+~/.ssh/id_rsa}`, Escalated, false},
		{`read X; cat ${X:-~/.ssh/id_rsa}`, Escalated, false},
		{`cat ${X:-${Y:-~/.ssh}}/id_rsa`, Escalated, false},
		{`HOME=/root; cat ${X:-~/.ssh/id_rsa}`, Escalated, false},
		{`f=${X:-~/.ssh/id_rsa}; cat "$f"`, Escalated, false},
		{`${X:-rm} -rf /`, Forbidden, true},
		{`rm -rf ${BUILD:-/}`, Forbidden, true},
		{`cat < ${X:-~/.ssh/id_rsa}`, Escalated, false},

		{`X=README.md; cat ${X:-~/.ssh/id_rsa}`, Allow, true},
		{`cat ${X:?~/.ssh/id_rsa is a message}`, Allow, true},
		{`cat ${F:-README.md} ${G:+go.mod}`, Allow, true},
		{`f=${X:-README.md}; cat "$f"`, Allow, true},
		{`echo x > ${OUT:-/tmp/out.txt}`, Sandboxed, true},
		{`for f in *.go; do cat ${f:-~/.ssh/id_rsa}; done`, Allow, true},
	})
}
