//go:build linux

package linux

import (
	"time"

	"golang.org/x/sys/unix"
)

// programStarted is when the init started its program (see ctlMsg.Started).
var programStarted uint64

// monotonicNow reads CLOCK_MONOTONIC in nanoseconds; 0 if it cannot.
func monotonicNow() uint64 {
	var ts unix.Timespec
	if unix.ClockGettime(unix.CLOCK_MONOTONIC, &ts) != nil {
		return 0
	}
	return uint64(ts.Nano())
}

// monotonicTime turns a CLOCK_MONOTONIC reading into a time.Time (with Go's
// own monotonic reading, so that timers armed from it are exact), no
// earlier than notBefore and no later than now. An unknown reading (0) is
// the zero time.
func monotonicTime(mono uint64, notBefore time.Time) time.Time {
	if mono == 0 {
		return time.Time{}
	}
	now := time.Now()
	cur := monotonicNow()
	if cur == 0 || mono > cur {
		return now
	}
	t := now.Add(-time.Duration(cur - mono))
	if t.Before(notBefore) {
		return notBefore
	}
	return t
}
