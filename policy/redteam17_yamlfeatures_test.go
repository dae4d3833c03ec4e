package policy

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// TestRedteam17YAMLFeatures: YAML features that could make a manifest
// mean more than it shows (aliases that expand, merge keys that hide a
// duplicate, tags that turn a value into another type, directives that
// redefine the !! handle, a second document) are refused, and fast; a
// plain manifest with a BOM and CRLF line ends beside them loads.
func TestRedteam17YAMLFeatures(t *testing.T) {
	laughs := "name: a\nx0: &x0 [a, a, a, a, a, a, a, a, a, a]\n"
	for i := 1; i < 9; i++ {
		laughs += "x" + string(rune('0'+i)) + ": &x" + string(rune('0'+i)) + " [" + strings.Repeat("*x"+string(rune('0'+i-1))+", ", 9) + "*x" + string(rune('0'+i-1)) + "]\n"
	}
	bad := []struct{ name, src string }{
		{"billion laughs", laughs},
		{"alias as a deny list", "name: a\ndescription: &d [\"/etc\"]\npermissions:\n  filesystem:\n    deny: *d\n"},
		{"explicit merge tag", "name: a\nlimits:\n  !!merge x: {max_memory_mb: 1}\n"},
		{"merge hides a duplicate", "name: a\nlimits: &l {max_memory_mb: 64}\nlimits2:\n  <<: *l\n"},
		{"binary name", "name: !!binary ZGVtbw==\n"},
		{"python object", "name: !!python/object:os.system demo\n"},
		{"custom tag", "name: !foo demo\n"},
		{"TAG directive turns str into bool", "%TAG !e! tag:yaml.org,2002:\n---\nname: a\npermissions:\n  network:\n    unix_sockets: !e!bool \"yes\"\n"},
		{"tagged int as string", "name: a\nlimits:\n  max_memory_mb: !!int \"0\"\n"},
		{"second document", "name: a\n---\nname: b\npermissions: {filesystem: {write: [\"/\"]}}\n"},
	}
	for _, tc := range bad {
		t.Run(strings.ReplaceAll(tc.name, " ", "_"), func(t *testing.T) {
			start := time.Now()
			m, err := ParseManifestWith("/x/agent.yaml", []byte(tc.src), LoadOptions{Home: "/home/u"})
			if d := time.Since(start); d > 2*time.Second {
				t.Errorf("took %v", d)
			}
			if tc.name == "TAG directive turns str into bool" && err == nil {
				if m.Permissions.Network.UnixSockets {
					t.Errorf("unix_sockets: !e!bool \"yes\" turned unix sockets on")
				}
				return
			}
			if !errors.Is(err, ErrInvalidManifest) {
				t.Errorf("accepted (err %v): %+v", err, m)
			}
		})
	}
	m, err := ParseManifestWith("/x/agent.yaml", []byte("\ufeffname: ok\r\nlimits:\r\n  max_memory_mb: 64\r\n"), LoadOptions{Home: "/home/u"})
	if err != nil || m.Name != "ok" || m.Limits.MaxMemoryMB != 64 {
		t.Errorf("BOM and CRLF control: %v %+v", err, m)
	}
}
