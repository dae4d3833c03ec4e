package main

import "time"

// Under --tty every key goes to the program's own terminal, ^C included,
// where the program may ignore the SIGINT it makes: pressing ^C
// stopPresses times within stopWindow also acts as agentbox's own ^C
// (run relays it and kills an agent that ignores it after the grace), so
// that the user of run always has a key to end it with. Found by red-team
// round 59.
const (
	stopPresses = 3
	stopWindow  = 2 * time.Second
	ctrlC       = 0x03
)

// stopKey counts the ^C keys read from the user's terminal.
type stopKey struct {
	times []time.Time // the last presses, at most stopPresses
}

// pressed feeds the keys read at now and reports whether they complete
// stopPresses ^C within stopWindow (counting starts again after).
func (s *stopKey) pressed(keys []byte, now time.Time) bool {
	for _, k := range keys {
		if k != ctrlC {
			continue
		}
		s.times = append(s.times, now)
		if len(s.times) > stopPresses {
			s.times = s.times[1:]
		}
		if len(s.times) == stopPresses && now.Sub(s.times[0]) <= stopWindow {
			s.times = nil
			return true
		}
	}
	return false
}
