package egress

import (
	"bytes"
	"io"
	"testing"
)

// BenchmarkMaskReader is the echo mask alone, in memory, on a 4 MiB
// stream with no echo read 32 KiB at a time: JSON as most APIs write it,
// and JSON dense with escapes (each one is a place a value's form may
// begin).
func BenchmarkMaskReader(b *testing.B) {
	for _, tc := range []struct{ name, line string }{
		{"plain", `{"id":"6f1c2a9e","name":"package-name","version":"1.2.3","size":12345,"ok":true},` + "\n"},
		{"escapes", `{"name":"pkg\/x","url":"https:\/\/h.example\/a%2Fb?q=1&amp;r=2","n":12345},` + "\n"},
	} {
		b.Run(tc.name, func(b *testing.B) {
			var data bytes.Buffer
			for data.Len() < 4<<20 {
				data.WriteString(tc.line)
			}
			m := &echoMask{}
			m.add(&credential{name: "K"}, []byte("wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY=="))
			buf := make([]byte, 32<<10)
			b.SetBytes(int64(data.Len()))
			for b.Loop() {
				r := m.reader(bytes.NewReader(data.Bytes()), "the body")
				for {
					if _, err := r.Read(buf); err == io.EOF {
						break
					}
				}
				r.wipe()
			}
		})
	}
}
