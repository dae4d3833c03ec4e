package egress

import (
	"net"
	"strings"
)

// Env returns the KEY=VALUE environment a sandboxed program needs to send
// its traffic through the proxy at proxyAddr (e.g. "127.0.0.1:3128"): the
// standard proxy variables and those of common tools that do not read them.
// Names are resolved by the proxy (ALL_PROXY uses socks5h://); NO_PROXY is
// set empty so nothing bypasses it. Tools that ignore all of these fail
// closed: the sandbox has no other way out.
//
// GIT_CONFIG_COUNT/KEY_0/VALUE_0 set git's http.proxy with command-line
// precedence; a caller that sets its own GIT_CONFIG_* entries must merge
// them (renumbering).
func Env(proxyAddr string) []string {
	host, port, err := net.SplitHostPort(proxyAddr)
	if err != nil {
		host, port = proxyAddr, ""
	}
	httpURL := "http://" + proxyAddr
	socksURL := "socks5h://" + proxyAddr
	java := strings.Join([]string{
		"-Dhttp.proxyHost=" + host, "-Dhttp.proxyPort=" + port,
		"-Dhttps.proxyHost=" + host, "-Dhttps.proxyPort=" + port,
		"-Dhttp.nonProxyHosts=",
		"-Djava.net.useSystemProxies=false",
	}, " ")
	return []string{
		// The conventions curl, wget, Python, Go, Ruby, Rust, Node (with
		// NODE_USE_ENV_PROXY), Deno, Bun, pip and most others follow.
		"HTTP_PROXY=" + httpURL,
		"HTTPS_PROXY=" + httpURL,
		"ALL_PROXY=" + socksURL,
		"http_proxy=" + httpURL,
		"https_proxy=" + httpURL,
		"all_proxy=" + socksURL,
		"NO_PROXY=",
		"no_proxy=",
		// Node.js 24+ built-in http/https/fetch.
		"NODE_USE_ENV_PROXY=1",
		// npm, pnpm (npm_config_*), yarn berry.
		"npm_config_proxy=" + httpURL,
		"npm_config_https_proxy=" + httpURL,
		"npm_config_noproxy=",
		"YARN_HTTP_PROXY=" + httpURL,
		"YARN_HTTPS_PROXY=" + httpURL,
		// Libraries built on global-agent (Electron downloads and others).
		"GLOBAL_AGENT_HTTP_PROXY=" + httpURL,
		"GLOBAL_AGENT_NO_PROXY=",
		// git over HTTPS, overriding any http.proxy in the user's config.
		"GIT_CONFIG_COUNT=1",
		"GIT_CONFIG_KEY_0=http.proxy",
		"GIT_CONFIG_VALUE_0=" + httpURL,
		// JVM tools (java, gradle, sbt, maven's HTTP client).
		"JAVA_TOOL_OPTIONS=" + java,
		// pip, cargo, rsync.
		"PIP_PROXY=" + httpURL,
		"CARGO_HTTP_PROXY=" + httpURL,
		"RSYNC_PROXY=" + proxyAddr,
	}
}
