package policy

import (
	"slices"
	"strings"
)

// synonyms are words people write for a key; suggest offers the key when it
// is among the candidates.
var synonyms = map[string]string{
	"timeout": "max_duration", "duration": "max_duration", "max_time": "max_duration",
	"memory": "max_memory_mb", "mem": "max_memory_mb", "memory_mb": "max_memory_mb",
	"tokens": "max_tokens", "requests": "max_requests", "tool_calls": "max_tool_calls",
	"allowed": "allow", "allowlist": "allow", "denied": "deny", "denylist": "deny", "block": "deny",
	"fs": "filesystem", "files": "filesystem", "net": "network", "secrets": "credentials",
	"env": "credentials", "level": "log_level", "alerts": "alert_on", "log": "log_path",
	"log_file": "log_path",
}

// suggest returns the candidate closest to s when it is close enough to be a
// likely typo (case, a few edits, or the one candidate it is a prefix of,
// such as max_memory for max_memory_mb), else "".
func suggest(s string, candidates []string) string {
	ls := strings.ToLower(s)
	if syn, ok := synonyms[ls]; ok && slices.Contains(candidates, syn) {
		return syn
	}
	best, bestDist := "", -1
	prefixed, nPrefixed := "", 0
	for _, c := range candidates {
		if ls == c {
			return c
		}
		if len(ls) >= 4 && (strings.HasPrefix(c, ls) || strings.HasPrefix(ls, c) && len(ls)-len(c) <= 3) {
			prefixed, nPrefixed = c, nPrefixed+1
		}
		dist := editDistance(ls, c)
		if bestDist < 0 || dist < bestDist {
			best, bestDist = c, dist
		}
	}
	if nPrefixed == 1 {
		return prefixed
	}
	limit := 1
	if len(s) >= 5 {
		limit = 2
	}
	if len(s) >= 10 {
		limit = 3
	}
	if bestDist >= 0 && bestDist <= limit {
		return best
	}
	return ""
}

// editDistance is the Damerau-Levenshtein (optimal string alignment)
// distance between a and b, counting bytes.
func editDistance(a, b string) int {
	prev2 := make([]int, len(b)+1)
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}
