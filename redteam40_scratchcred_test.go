//go:build linux

package agentbox_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentbox-dev/agentbox"
)

// TestRedteam40ScratchCredentialCache: ~/.cache is a scratch directory in
// DefaultConfig, shown to every sandbox warm with the host's contents, and
// only the credential files the deny list names inside it are masked
// (~/.cache/huggingface/token, ~/.cache/git/credential). The Snowflake
// Python connector (and dbt, which turns it on for every Snowflake
// profile) keeps its login tokens there on Linux: browser SSO ID tokens
// and MFA tokens in ~/.cache/snowflake/credential_cache_v1.json
// (temporary_credential.json in older releases; SF_TEMPORARY_CREDENTIAL_CACHE_DIR
// moves it). Those are session tokens for the user's data warehouse, valid
// for hours, and the deny list already treats Snowflake's stored password
// (~/.snowsql/config) as a credential store: the sandboxed command reads
// the token file in full. Controls beside it: the denied
// ~/.cache/huggingface/token is refused, and an ordinary cache file beside
// the token (the connector's OCSP response cache, which it must keep
// reading) is read.
//
// Severity: medium (a credential store readable by every sandboxed
// command under the default policy; a deny-list gap, not a bypass of the
// overlay or of a mask). Found by red-team round 40; fixed: the two files
// (not the directory, so the OCSP cache stays readable) are in
// internal/credpaths, with their macOS places.
func TestRedteam40ScratchCredentialCache(t *testing.T) {
	home := privateHome(t)
	cache := filepath.Join(home, ".cache")
	if _, err := os.Stat(cache); err != nil {
		t.Skip("no ~/.cache: the default scratch points the command at /tmp instead")
	}
	secret := fmt.Sprintf("RT40SFTOKEN-%d-%d", os.Getpid(), time.Now().UnixNano())
	plant := func(p, content string) bool {
		if _, err := os.Lstat(p); err == nil {
			return false // the user's own: leave it alone
		}
		if _, err := os.Stat(filepath.Dir(p)); err != nil {
			if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
				t.Fatal(err)
			}
			d := filepath.Dir(p)
			t.Cleanup(func() { os.RemoveAll(d) })
		}
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.Remove(p) })
		return true
	}
	sf := filepath.Join(cache, "snowflake")
	tokens := []string{filepath.Join(sf, "credential_cache_v1.json"), filepath.Join(sf, "temporary_credential.json")}
	ocsp := filepath.Join(sf, "ocsp_response_cache.json")
	hf := filepath.Join(cache, "huggingface", "token")
	for _, p := range tokens {
		if !plant(p, `{"tokens":{"`+secret+`":"ID_TOKEN"}}`) {
			t.Skipf("%s exists on this host: not touched", p)
		}
	}
	plantedOCSP := plant(ocsp, "OCSPDATA")
	plantedHF := plant(hf, secret+"-hf")

	cfg := agentbox.DefaultConfig()
	cfg.Classifier = rt9Sandboxed{}
	m := newManager(t, cfg)
	script := fmt.Sprintf("for f in %s %s %s %s; do echo \"== $f\"; cat \"$f\" 2>&1; echo; done",
		tokens[0], tokens[1], ocsp, hf)
	out, _ := rt34Exec(t, m, script, agentbox.WithWorkingDir(hostDir(t)))
	t.Logf("%s", out)
	if plantedOCSP && !strings.Contains(out, "OCSPDATA") {
		t.Errorf("control: the ordinary cache file beside the token was not read: %q", out)
	}
	if plantedHF {
		if strings.Contains(out, secret+"-hf") {
			t.Errorf("control: the denied ~/.cache/huggingface/token was read")
		} else if !strings.Contains(out, "Permission denied") {
			t.Errorf("control: the denied ~/.cache/huggingface/token was not refused: %q", out)
		}
	}
	for _, p := range tokens {
		sec := out[strings.Index(out, "== "+p):]
		if i := strings.Index(sec[3:], "== "); i >= 0 {
			sec = sec[:i+3]
		}
		if strings.Contains(sec, secret) {
			t.Errorf("ESCAPE: the Snowflake connector's token cache %s, in the scratch ~/.cache, is read in full by a sandboxed command under DefaultConfig", p)
		}
	}
}
