package egress

import "testing"

func TestRequestLine(t *testing.T) {
	for _, tc := range []struct {
		in               string
		decided, http    bool
		takenWhenDecided int
	}{
		{"GET / HTTP/1.1\r\n", true, true, len("GET / HTTP/")},
		{"\r\n\r\nget\t/x   http/1.0", true, true, len("\r\n\r\nget\t/x   http/")},
		{"PRI * HTTP/2.0", true, true, len("PRI * HTTP/")},
		{"SSH-2.0-OpenSSH_9.6p1 Ubuntu-3\r\n", true, false, len("SSH-2.0-OpenSSH_9.6p1 Ubuntu-3\r")},
		{"GET /\r\n", true, false, len("GET /\r")},
		{"\x16\x03\x01", true, false, 1},
		{"get key\r\n", true, false, len("get key\r")},
		{"0032git-upload-pack /p.git\x00host=x\x00", true, false, len("0032git-upload-pack /p.git\x00")},
		{"GET / HTTX", true, false, len("GET / HTTX")},
		{"hello", false, false, 0},
		{"GET /a", false, false, 0},
	} {
		whole := new(requestLine)
		n := whole.feed([]byte(tc.in))
		bytewise := new(requestLine)
		for i := 0; i < len(tc.in) && !bytewise.decided; i++ {
			bytewise.feed([]byte{tc.in[i]})
		}
		if whole.decided != tc.decided || whole.http != tc.http || *whole != *bytewise {
			t.Errorf("%q: decided %v http %v (bytewise %+v), want %v %v", tc.in, whole.decided, whole.http, *bytewise, tc.decided, tc.http)
		}
		if tc.decided && n != tc.takenWhenDecided {
			t.Errorf("%q: took %d bytes, want %d", tc.in, n, tc.takenWhenDecided)
		}
	}
	long := new(requestLine)
	b := make([]byte, maxRequestLine+10)
	for i := range b {
		b[i] = 'A'
	}
	if long.feed(b); !long.decided || !long.http {
		t.Error("a token as long as maxRequestLine must count as HTTP")
	}
}

// FuzzRequestLine: however the bytes are split, the decision is the same.
func FuzzRequestLine(f *testing.F) {
	for _, s := range []string{"GET / HTTP/1.1\r\n", "SSH-2.0-x y\r\n", "\r\nPUT  /  HTTP/", "\x00\x01"} {
		f.Add([]byte(s), uint8(3))
	}
	f.Fuzz(func(t *testing.T, b []byte, cut uint8) {
		whole := new(requestLine)
		whole.feed(b)
		split := new(requestLine)
		k := min(int(cut), len(b))
		m := split.feed(b[:k])
		if m == k && !split.decided {
			split.feed(b[k:])
		}
		if *whole != *split {
			t.Fatalf("%q cut at %d: whole %+v, split %+v", b, k, *whole, *split)
		}
	})
}
