//go:build !unix

package egress

import "time"

// processCPU is not measured here.
func processCPU() time.Duration { return 0 }
