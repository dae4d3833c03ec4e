package main

import (
	"testing"
	"time"
)

func TestStopKey(t *testing.T) {
	t0 := time.Unix(1000, 0)
	for _, tc := range []struct {
		name  string
		reads []struct {
			keys string
			at   time.Duration
		}
		want []bool // per read
	}{
		{"three in one read", []struct {
			keys string
			at   time.Duration
		}{{"\x03\x03\x03", 0}}, []bool{true}},
		{"three within the window", []struct {
			keys string
			at   time.Duration
		}{{"\x03", 0}, {"a\x03", time.Second}, {"\x03", 1900 * time.Millisecond}}, []bool{false, false, true}},
		{"too slow, then the last three within the window", []struct {
			keys string
			at   time.Duration
		}{{"\x03", 0}, {"\x03", 1500 * time.Millisecond}, {"\x03", 2500 * time.Millisecond}, {"\x03", 3000 * time.Millisecond}}, []bool{false, false, false, true}},
		{"other keys only", []struct {
			keys string
			at   time.Duration
		}{{"abc\x1b[A", 0}, {"q", time.Millisecond}}, []bool{false, false}},
		{"counting starts again after a stop", []struct {
			keys string
			at   time.Duration
		}{{"\x03\x03\x03", 0}, {"\x03", time.Millisecond}, {"\x03", 2 * time.Millisecond}}, []bool{true, false, false}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var s stopKey
			for i, r := range tc.reads {
				if got := s.pressed([]byte(r.keys), t0.Add(r.at)); got != tc.want[i] {
					t.Errorf("read %d (%q at %v): pressed = %v, want %v", i, r.keys, r.at, got, tc.want[i])
				}
			}
		})
	}
}
