//go:build unix && !linux

package agentbox

// birthTime: not used outside Linux; identities are device and inode.
func birthTime(string) int64 { return 0 }
