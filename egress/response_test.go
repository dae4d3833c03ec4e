package egress

import (
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
)

func TestUpstreamReaderBounds(t *testing.T) {
	big := strings.Repeat("x", maxResponseHead)
	bigBody := strings.Repeat("b", 3*maxResponseHead)
	interim := strings.Repeat("HTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\n", maxInterimResponses)
	for _, tc := range []struct {
		name, stream string
		wantErr      error
		wantBody     string
	}{
		{"plain", "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok", nil, "ok"},
		{"body beyond the head's bound", "HTTP/1.1 200 OK\r\nContent-Length: 3145728\r\n\r\n" + bigBody, nil, bigBody},
		{"interim responses up to the bound", interim + "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok", nil, "ok"},
		{"one header line too long", "HTTP/1.1 200 OK\r\nX-Big: " + big + "\r\n\r\n", errResponseHeadTooLarge, ""},
		{"long header lines past the bytes bound", "HTTP/1.1 200 OK\r\n" + strings.Repeat("X-A: "+strings.Repeat("v", 2000)+"\r\n", maxResponseHead/2000) + "\r\n", errResponseHeadTooLarge, ""},
		{"header fields up to the bound", "HTTP/1.1 200 OK\r\n" + strings.Repeat("X-A: 1\r\n", maxResponseFields-1) + "Content-Length: 2\r\n\r\nok", nil, "ok"},
		{"one header field too many", "HTTP/1.1 200 OK\r\n" + strings.Repeat("X-A: 1\r\n", maxResponseFields) + "Content-Length: 2\r\n\r\nok", errTooManyFields, ""},
		{"many empty header fields", "HTTP/1.1 200 OK\r\n" + strings.Repeat("a:\r\n", maxResponseHead/8) + "\r\n", errTooManyFields, ""},
		{"a status line too long", "HTTP/1.1 200 " + big + "\r\n\r\n", errResponseHeadTooLarge, ""},
		{"too many interim responses", interim + "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n", errTooManyInterim, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			u := newUpstreamReader(strings.NewReader(tc.stream))
			resp, err := u.readResponse(&http.Request{Method: "GET"})
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("err = %v, want %v", err, tc.wantErr)
			}
			if err != nil {
				return
			}
			body, err := io.ReadAll(resp.Body)
			if err != nil || string(body) != tc.wantBody {
				t.Errorf("body: %d bytes, %v; want %d bytes", len(body), err, len(tc.wantBody))
			}
		})
	}
	// A kept-alive connection: the second response's head gets the bound
	// afresh.
	head := "HTTP/1.1 200 OK\r\nX-Pad: " + strings.Repeat("p", maxResponseHead*3/4) + "\r\nContent-Length: 1\r\n\r\nz"
	u := newUpstreamReader(strings.NewReader(head + head))
	for i := range 2 {
		resp, err := u.readResponse(&http.Request{Method: "GET"})
		if err != nil {
			t.Fatalf("response %d: %v", i+1, err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
	}
}
