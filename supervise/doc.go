// Package supervise runs whole agents from manifests: it compiles a
// manifest into the library's Config (one enforcement path), starts the
// agent's program in a sandbox, enforces the limits the sandbox cannot,
// keeps the registry of running agents that `agentbox ps` and
// `agentbox kill` use, and writes the agent's audit events.
//
// # Limits
//
// limits.max_duration is a timer armed when the program runs (it fires
// within milliseconds of due); on expiry the whole tree is killed (SIGKILL
// to the sandbox's init, whose pid namespace the kernel then empties),
// limit_breached and agent_killed are logged and the run exits 137.
//
// limits.max_memory_mb goes to the native runtime, which applies it as a
// cgroup memory limit where it can (the layers then list a "cgroup…"
// entry) and always as RLIMIT_DATA per process. Without a cgroup, a
// resident-memory monitor sums the anonymous and shared memory of every
// process in the sandbox's pid namespace every 100 ms (25 ms above half the
// limit) and kills the tree on a breach. With a cgroup, the cgroup's OOM
// counter is watched so that an OOM kill of any process ends the whole tree.
// MemoryCgroup and MemoryMonitor name the two mechanisms.
//
// limits.max_tokens, max_requests and max_tool_calls, permissions.tools
// and permissions.credentials are carried into the run (Record.Limits, the
// agent_start details) but not enforced yet: Start says so in one warning
// notice (Unenforced lists them).
//
// # Registry and kill switch
//
// Every running agent has a file STATE/agents/ID.json (Record: 8-hex-digit
// ID, name, manifest, the pid and start time of the supervising process and
// of the sandbox's init). Registry.List drops the records of dead processes;
// a start time (field 22 of /proc/PID/stat) tells a live process from a
// later one that reuses its pid. Registry.Kill, from any process of the same
// user, writes STATE/agents/ID.kill (who and when), sends SIGKILL to the
// init through a pidfd and waits until the init (and so every process of
// its namespace) has exited. The supervising Agent then reports
// CauseKillSwitch.
//
// # Audit
//
// Events go to the manifest's audit.log_path (relative to the manifest), or
// STATE/logs/NAME.log. The agent cannot read the log, its checkpoints or
// agentbox's state directory (they join the sandbox's deny set; the log's
// directory too when the agent needs nothing in it), and a log inside a
// writable root is refused. What each audit.log_level records is in
// Records; agent_start is always the first event of a run in the log, and
// Wait returns once every event is on disk. An event named in
// audit.alert_on also yields an alert event and an alert notice (except for
// kills, whose notice is already the operator's line).
package supervise
