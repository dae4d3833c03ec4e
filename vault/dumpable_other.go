//go:build unix && !linux

package vault

func notDumpable() error { return nil }
