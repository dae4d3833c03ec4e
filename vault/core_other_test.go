//go:build !unix

package vault

func coreLimit() (uint64, bool) { return 0, false }
