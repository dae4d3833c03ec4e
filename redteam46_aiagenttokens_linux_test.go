//go:build linux

package agentbox_test

import "testing"

// TestRedteam46AgentLoginTokens: the deny list covers "AI coding agents'
// own login tokens" for four agents (~/.claude/.credentials.json,
// ~/.codex/auth.json, ~/.gemini/oauth_creds.json, ~/.config/github-copilot)
// but not the others' that keep them in files the same way: opencode's
// provider keys and OAuth tokens (~/.local/share/opencode/auth.json), Qwen
// Code's OAuth credentials (~/.qwen/oauth_creds.json, the Gemini CLI's
// layout), Simon Willison's llm's API keys
// (~/.config/io.datasette.llm/keys.json), Continue's global config with its
// models' apiKey (~/.continue/config.yaml), aider's (~/.aider.conf.yml, with
// openai-api-key / anthropic-api-key) and the ~/.env that aider and many
// tools load from the home. A sandboxed `cat` reads each in full: the
// agent's own model-provider keys, readable by the commands it runs.
//
// Why: internal/credpaths.Home (read by config.go:DefaultDenyRead) names
// only the four.
//
// Controls: ~/.profile is read; ~/.aws/credentials is refused.
//
// Severity: high (secrets read under the default policy).
// Found by red-team round 46 (high). Fixed: the stores are on credpaths.Home
// (~/.aider.conf.yml once the planted-configuration sweep left the deny
// placeholders alone: TestDenyPlaceholderNotSwept).
func TestRedteam46AgentLoginTokens(t *testing.T) {
	home := rt46bHome(t)
	rt46bProbe(t, home, []rt46bSecret{
		{".local/share/opencode/auth.json", `{"anthropic":{"type":"api","key":"sk-ant-%s"}}`, "opencode: provider keys and OAuth tokens"},
		{".qwen/oauth_creds.json", `{"access_token":"%s","refresh_token":"x"}`, "Qwen Code: OAuth credentials"},
		{".config/io.datasette.llm/keys.json", `{"openai":"sk-%s"}`, "llm: API keys"},
		{".continue/config.yaml", "models:\n  - provider: anthropic\n    apiKey: sk-ant-%s\n", "Continue: model API keys"},
		{".env", "OPENAI_API_KEY=sk-%s\n", "~/.env: API keys loaded by aider and others"},
		{".aider.conf.yml", "openai-api-key: sk-%s\n", "aider: API keys in its settings"},
	})
}
