package vault

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"
)

const secretMarker = "sk-live-NEVER-PRINT-ME"

// TestSecretNeverPrints attacks every ordinary way a value could reach a log.
func TestSecretNeverPrints(t *testing.T) {
	s := NewSecret([]byte(secretMarker))
	type exported struct{ Key Secret }
	type unexported struct{ key Secret }
	type nested struct {
		Name string
		In   *unexported
	}
	var outputs []string
	for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%q", "%x", "%X", "%d", "%T %v", "%10.3s"} {
		for _, arg := range []any{s, &s, []Secret{s}, map[string]Secret{"k": s}, exported{s}, &exported{s}, unexported{s}, nested{"n", &unexported{s}}} {
			outputs = append(outputs, fmt.Sprintf(verb, arg))
		}
	}
	outputs = append(outputs, s.String(), s.GoString(), fmt.Sprint(s), fmt.Sprintln(s))
	outputs = append(outputs, fmt.Errorf("wrapped: %v", s).Error(), fmt.Errorf("wrapped: %w", errors.New(s.String())).Error())
	for _, v := range []any{s, exported{s}, map[string]any{"k": s}, []any{s}} {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		outputs = append(outputs, string(b))
	}
	txt, _ := s.MarshalText()
	outputs = append(outputs, string(txt))
	var logs bytes.Buffer
	for _, h := range []slog.Handler{slog.NewTextHandler(&logs, nil), slog.NewJSONHandler(&logs, nil)} {
		l := slog.New(h)
		l.Info("credential", "value", s, "ptr", &s, "group", slog.GroupValue(slog.Any("k", s)), "struct", exported{s})
		l.Info("fmt", "str", fmt.Sprint(s))
	}
	outputs = append(outputs, logs.String())
	for _, out := range outputs {
		if strings.Contains(out, secretMarker) || strings.Contains(out, "NEVER") || strings.Contains(out, "736b2d") /* hex */ {
			t.Errorf("value printed: %s", out)
		}
	}
	if !strings.Contains(logs.String(), Redacted) {
		t.Errorf("logs do not say %s: %s", Redacted, logs.String())
	}
	if fmt.Sprintf("%v|%s|%#v", s, s, s) != Redacted+"|"+Redacted+"|"+Redacted {
		t.Errorf("unexpected formatting: %v|%s|%#v", s, s, s)
	}
	// The value is still there for whoever asks for it explicitly.
	if string(s.Bytes()) != secretMarker || s.Len() != len(secretMarker) {
		t.Fatal("Bytes lost the value")
	}
}

func TestSecretWipe(t *testing.T) {
	buf := []byte(secretMarker)
	s := NewSecret(buf)
	cp := s
	cp.Wipe()
	if !bytes.Equal(buf, make([]byte, len(secretMarker))) {
		t.Errorf("Wipe left %q in the buffer", buf)
	}
	if s.Len() != 0 || s.Bytes() != nil {
		t.Error("a copy still holds the value after Wipe")
	}
	var zero Secret
	zero.Wipe()
	if zero.Len() != 0 || zero.String() != Redacted {
		t.Error("zero Secret misbehaves")
	}
}

// Secrets from Get print nothing either, including inside errors.
func TestGetSecretRedacted(t *testing.T) {
	v, _ := newVault(t)
	mustPut(t, v, "TOKEN", secretMarker)
	s, err := v.Get("TOKEN")
	if err != nil {
		t.Fatal(err)
	}
	if out := fmt.Sprintf("%v %+v %#v", s, s, s); strings.Contains(out, secretMarker) {
		t.Errorf("printed: %s", out)
	}
}
