package egress

import "testing"

func TestRequestLine(t *testing.T) {
	for _, tc := range []struct {
		in                       string
		decided, http, ambiguous bool
		takenWhenDecided         int
	}{
		{"GET / HTTP/1.1\r\n", true, true, false, len("GET / HTTP/")},
		{"\r\n\r\nget\t/x   http/1.0", true, true, false, len("\r\n\r\nget\t/x   http/")},
		{"PRI * HTTP/2.0", true, true, false, len("PRI * HTTP/")},
		{"SSH-2.0-OpenSSH_9.6p1 Ubuntu-3\r\n", true, false, false, len("SSH-2.0-OpenSSH_9.6p1 Ubuntu-3\r")},
		// Control bytes first leave the line open until a byte no
		// request line holds (TLS is told apart before, by its record).
		{"\x16\x03\x01", false, false, false, 0},
		{"\x16\x03\x01\x02\x00\x01\x00\x01\xfc", true, false, false, len("\x16\x03\x01\x02\x00\x01\x00\x01\xfc")},
		{"get key\r\n", true, false, false, len("get key\r")},
		{"0032git-upload-pack /p.git\x00host=x\x00", true, false, false, len("0032git-upload-pack /p.git\x00ho")},
		{"\x00\x00\x00\x08\x04\xd2\x16\x2f", true, false, false, len("\x00\x00\x00\x08\x04\xd2")},
		{"\x00\x00\x00\x29\x00\x03\x00\x00user\x00postgres\x00", true, false, false, len("\x00\x00\x00\x29")},
		{"\x00\x00\x00\x54\x00\x03\x00\x00user\x00postgres\x00", true, false, false, len("\x00\x00\x00\x54\x00\x03\x00\x00user\x00p")},
		{"*1\r\n$4\r\nPING\r\n", true, false, false, len("*1\r")},
		// A blank inside the target: old nginx (space_in_uri) reads on to
		// the version, so the line stays open, then counts as lenient.
		{"GET / HTTX", false, false, false, 0},
		{"GET / HTTX\r\n", true, false, true, len("GET / HTTX\r")},
		{"GET /a b HTTP/1.1\r\n", true, false, true, len("GET /a b HTTP/")},
		{"GET /a\x01b HTTP/1.1\r\n", true, false, true, len("GET /a\x01b HTTP/")},
		{"POST http://evil.test/a b c HTTP/1.0", true, false, true, len("POST http://evil.test/a b c HTTP/")},
		{"get /a b", true, false, false, len("get /a b")},
		{"hello", false, false, false, 0},
		{"GET /a", false, false, false, 0},
		{"\x00\r\n", false, false, false, 0},
		// Only a lenient server reads these as requests.
		{" GET / HTTP/1.1", true, false, true, len(" GET / HTTP/")},
		{"\x00\r\nGET / HTTP/1.1", true, false, true, len("\x00\r\nGET / HTTP/")},
		{"GET\x0b/\x0bHTTP/1.1", true, false, true, len("GET\x0b/\x0bHTTP/")},
		{"GET /\x0cHTTP/1.1", true, false, true, len("GET /\x0cHTTP/")},
		{"GET\xa0/ HTTP/1.1", true, false, true, len("GET\xa0/ HTTP/")},
		{"GET /\r\n", true, false, true, len("GET /\r")},
		{"GET / \n", true, false, true, len("GET / \n")},
		{"GET *\r\n", true, false, true, len("GET *\r")},
		{"GET http://evil.test/\r\n", true, false, true, len("GET http://evil.test/\r")},
		{"GET evil.test:80\r\n", true, false, false, len("GET evil.test:80\r")},
	} {
		whole := new(requestLine)
		n := whole.feed([]byte(tc.in))
		bytewise := new(requestLine)
		for i := 0; i < len(tc.in) && !bytewise.decided; i++ {
			bytewise.feed([]byte{tc.in[i]})
		}
		if whole.decided != tc.decided || whole.http != tc.http || whole.ambiguous != tc.ambiguous || *whole != *bytewise {
			t.Errorf("%q: decided %v http %v ambiguous %v (bytewise %+v), want %v %v %v", tc.in,
				whole.decided, whole.http, whole.ambiguous, *bytewise, tc.decided, tc.http, tc.ambiguous)
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
	for _, s := range []string{"GET / HTTP/1.1\r\n", "SSH-2.0-x y\r\n", "\r\nPUT  /  HTTP/", "\x00\x01", " GET\x0b/\x00HTTP/", "GET http://x/\r\n"} {
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
