//go:build linux

package agentbox_test

import (
	"bufio"
	"encoding/binary"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestRedteam60PostgresServiceFilePasswords: libpq's connection service
// file, ~/.pg_service.conf (or the file $PGSERVICEFILE names), takes any
// connection parameter, password included, and psql, pg_dump, psycopg and
// every other libpq client send that password to the server a service
// name picks (`psql service=prod`). The default deny list denies the other
// files database clients keep passwords in (~/.pgpass and $PGPASSFILE,
// ~/.my.cnf, ~/.mylogin.cnf, ~/.snowsql/config) but not this one
// (internal/credpaths.Home and .Moved, read by config.go:DefaultDenyRead),
// so a sandboxed `cat` under DefaultConfig reads the database passwords.
//
// The premise runs the real psql on the host against a stand-in server the
// test starts on a unix socket in a directory of its own (it asks for a
// clear-text password and records what it gets; no network): psql, given
// only `service=NAME`, sends the password the service file holds, from
// ~/.pg_service.conf and from $PGSERVICEFILE. DefaultConfig is made with
// PGSERVICEFILE set, and a sandbox of it cats both files. Controls:
// ~/.profile is read; ~/.aws/credentials and ~/.pgpass are refused.
//
// Severity: high (a secret read under the default policy).
//
// Found by red-team round 60. Fixed: .pg_service.conf is in credpaths.Home, PGSERVICEFILE in
// credpaths.Moved.
// The premise needs psql (Debian's
// postgresql-client); the test skips without it.
func TestRedteam60PostgresServiceFilePasswords(t *testing.T) {
	home := rt46bHome(t)
	for _, v := range []string{"PGSERVICEFILE", "PGSYSCONFDIR", "PGSERVICE", "PGHOST", "PGPORT", "PGUSER",
		"PGPASSWORD", "PGPASSFILE", "PGDATABASE"} {
		t.Setenv(v, "")
		os.Unsetenv(v)
	}
	sockDir := t.TempDir()
	got := rt60bFakePostgres(t, sockDir)

	// Premise 1: ~/.pg_service.conf.
	mk1 := rt46bMarker(80)
	service := rt46bWrite(t, home, ".pg_service.conf",
		"[prod]\nhost="+sockDir+"\nport=5432\ndbname=app\nuser=app\npassword=pw"+mk1+"\n")
	rt46bHostRun(t, []string{"HOME=" + home, "PGSYSCONFDIR=" + sockDir}, "", "psql", "-w", "service=prod", "-c", "select 1")
	if pw := rt60bNext(t, got); pw != "pw"+mk1 {
		t.Fatalf("premise: psql did not send the password of ~/.pg_service.conf: got %q", pw)
	}
	// Premise 2: $PGSERVICEFILE.
	mk2 := rt46bMarker(81)
	moved := rt46bWrite(t, home, "db/pg_service.conf",
		"[staging]\nhost="+sockDir+"\nport=5432\ndbname=app\nuser=app\npassword=pw"+mk2+"\n")
	rt46bHostRun(t, []string{"HOME=" + home, "PGSYSCONFDIR=" + sockDir, "PGSERVICEFILE=" + moved}, "", "psql", "-w", "service=staging", "-c", "select 1")
	if pw := rt60bNext(t, got); pw != "pw"+mk2 {
		t.Fatalf("premise: psql did not send the password of $PGSERVICEFILE: got %q", pw)
	}
	pgpass := rt46bWrite(t, home, ".pgpass", "*:*:*:app:RT60-PGPASS-CONTROL\n")

	t.Setenv("PGSERVICEFILE", moved) // the user's environment
	m := rt46bManager(t, true)
	profile := filepath.Join(home, ".profile")
	denied := filepath.Join(home, filepath.FromSlash(rt46bDeniedRel))
	out := rt46bCatAll(t, m, []string{profile, denied, pgpass, service, moved})
	if !strings.Contains(out[profile], "readable-control") {
		t.Fatalf("control: an ordinary file of the home was not read: %q", out[profile])
	}
	for _, c := range []struct{ path, marker string }{{denied, "RT46B-DENIED-CONTROL"}, {pgpass, "RT60-PGPASS-CONTROL"}} {
		if strings.Contains(out[c.path], c.marker) || !strings.Contains(out[c.path], "Permission denied") {
			t.Fatalf("control: the denied %s was not refused: %q", c.path, out[c.path])
		}
	}
	for _, c := range []struct{ path, marker, what string }{
		{service, mk1, "~/.pg_service.conf: libpq's service passwords"},
		{moved, mk2, "$PGSERVICEFILE: libpq's service passwords"},
	} {
		if strings.Contains(out[c.path], c.marker) {
			t.Errorf("LEAK: a sandboxed command under DefaultConfig reads %s (%s): %q", c.path, c.what, strings.TrimSpace(out[c.path]))
		} else {
			t.Logf("held: %s: %q", c.path, strings.TrimSpace(out[c.path]))
		}
	}
}

// rt60bFakePostgres serves PostgreSQL's startup on dir/.s.PGSQL.5432: it
// asks each client for a clear-text password and sends what it gets.
func rt60bFakePostgres(t *testing.T, dir string) <-chan string {
	t.Helper()
	ln, err := net.Listen("unix", filepath.Join(dir, ".s.PGSQL.5432"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	got := make(chan string, 4)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				c.SetDeadline(time.Now().Add(30 * time.Second))
				r := bufio.NewReader(c)
				var n uint32
				if binary.Read(r, binary.BigEndian, &n) != nil || n < 8 || n > 10000 {
					return
				}
				if _, err := io.CopyN(io.Discard, r, int64(n-4)); err != nil { // the startup message
					return
				}
				c.Write([]byte{'R', 0, 0, 0, 8, 0, 0, 0, 3}) // AuthenticationCleartextPassword
				typ, err := r.ReadByte()
				if err != nil || typ != 'p' || binary.Read(r, binary.BigEndian, &n) != nil || n < 5 || n > 10000 {
					return
				}
				b := make([]byte, n-4)
				if _, err := io.ReadFull(r, b); err != nil {
					return
				}
				got <- strings.TrimRight(string(b), "\x00")
				msg := "SFATAL\x00C28P01\x00Mrt60 stand-in\x00\x00"
				e := []byte{'E', 0, 0, 0, 0}
				binary.BigEndian.PutUint32(e[1:], uint32(4+len(msg)))
				c.Write(append(e, msg...))
			}()
		}
	}()
	return got
}

// rt60bNext is the next password the stand-in server got.
func rt60bNext(t *testing.T, got <-chan string) string {
	t.Helper()
	select {
	case pw := <-got:
		return pw
	case <-time.After(30 * time.Second):
		return "(no password came)"
	}
}
