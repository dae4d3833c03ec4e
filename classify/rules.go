package classify

import "sync"

// rule is one built-in rule: a name, a default decision, a description that
// becomes the Reason of a Result, and a matcher over an analysed unit.
type rule struct {
	name           string
	decision       Decision
	desc           string
	needsProtected bool // only active when protected paths are configured
	match          func(u *unit, c *Classifier) bool
}

// Names of the built-in rules.
const (
	// Forbidden.
	RuleForkBomb             = "fork-bomb"
	RuleRecursiveDeleteRoot  = "recursive-delete-root"
	RuleDiskWipe             = "disk-wipe"
	RuleReverseShell         = "reverse-shell"
	RuleChmodRecursiveRoot   = "chmod-recursive-root"
	RuleChownRecursiveRoot   = "chown-recursive-root"
	RuleFilesystemFormat     = "filesystem-format"
	RuleCurlPipeShell        = "curl-pipe-shell"
	RuleBase64PipeShell      = "base64-pipe-shell"
	RuleIfsBypass            = "ifs-bypass"
	RuleShutdownReboot       = "shutdown-reboot"
	RuleKernelModule         = "kernel-module"
	RulePartitionManagement  = "partition-management"
	RuleHistoryExec          = "history-exec"
	RuleDestructiveFind      = "destructive-find"
	RuleDestructiveXargs     = "destructive-xargs"
	RuleOutputRedirectSystem = "output-redirect-system"

	// Escalated.
	RuleSudo                 = "sudo"
	RuleSuPrivilege          = "su-privilege"
	RuleCredentialAccess     = "credential-access"
	RuleUserManagement       = "user-management"
	RuleGlobalInstall        = "global-install"
	RuleDockerBuild          = "docker-build"
	RuleDockerRuntime        = "docker-runtime"
	RuleSystemPackageInstall = "system-package-install"
	RuleProcessKill          = "process-kill"
	RuleGitWrite             = "git-write"
	RuleSshCommand           = "ssh-command"
	RuleFileTransfer         = "file-transfer"
	RuleDownloadToFile       = "download-to-file"
	RuleServiceManagement    = "service-management"
	RuleCrontabAt            = "crontab-at"
	RuleFilePermission       = "file-permission"
	RuleFirewallManagement   = "firewall-management"
	RuleNetworkScan          = "network-scan"
	RuleDatabaseClient       = "database-client"
	RuleGitStashDrop         = "git-stash-drop"
	RuleEvalExec             = "eval-exec"
	RuleParseError           = "parse-error"
	RuleDynamicDeleteTarget  = "dynamic-delete-target"
	RuleProtectedPathWrite   = "protected-path-write"
	RuleHomeOverwrite        = "home-overwrite"

	// Allow.
	RuleCommonSafeCommands  = "common-safe-commands"
	RuleGitReadCommands     = "git-read-commands"
	RuleVersionCheck        = "version-check"
	RuleWindowsSafeCommands = "windows-safe-commands"
	RuleCdSleep             = "cd-sleep"
	RuleProcessList         = "process-list"
)

// builtinRules is the rule table. Order matters only for ties: when two
// matching rules have the same decision, on one simple command or across a
// line, the earlier one is reported. Rules naming an evasion technique
// (curl | sh, base64, $IFS …) come before the payload rules so that the
// technique is what a person reads.
var builtinRules = []rule{
	{RuleForkBomb, Forbidden, "Fork bomb: spawns copies of itself until the machine runs out of processes", false, matchForkBomb},
	{RuleReverseShell, Forbidden, "Reverse shell: hands a shell to a remote host over the network", false, matchReverseShell},
	{RuleCurlPipeShell, Forbidden, "Runs code downloaded from the network without review (curl | sh)", false, matchCurlPipeShell},
	{RuleBase64PipeShell, Forbidden, "Runs decoded or obfuscated code (base64 -d | sh)", false, matchBase64PipeShell},
	{RuleIfsBypass, Forbidden, "Uses $IFS to hide word boundaries from inspection", false, matchIFSBypass},
	{RuleHistoryExec, Forbidden, "Re-runs commands from the shell history, which cannot be inspected", false, matchHistoryExec},
	{RuleRecursiveDeleteRoot, Forbidden, "Recursive delete aimed at the root, a home directory or a system directory", false, matchRecursiveDeleteRoot},
	{RuleDiskWipe, Forbidden, "Overwrites or erases a disk or raw device", false, matchDiskWipe},
	{RuleChmodRecursiveRoot, Forbidden, "Changes permissions recursively on the root, a home or a system directory", false, matchChmodRoot},
	{RuleChownRecursiveRoot, Forbidden, "Changes ownership recursively on the root, a home or a system directory", false, matchChownRoot},
	{RuleFilesystemFormat, Forbidden, "Creates a filesystem (formats a device), destroying its data", false, matchFilesystemFormat},
	{RuleShutdownReboot, Forbidden, "Shuts down, reboots or halts the machine", false, matchShutdown},
	{RuleKernelModule, Forbidden, "Loads or unloads a kernel module", false, matchKernelModule},
	{RulePartitionManagement, Forbidden, "Changes a disk's partition table or signatures", false, matchPartition},
	{RuleDestructiveFind, Forbidden, "find deletes or runs a destructive command over the root, a home or a system directory", false, matchDestructiveFind},
	{RuleDestructiveXargs, Forbidden, "xargs or parallel feeds input to a destructive command (rm -r, shred, mkfs, dd)", false, matchDestructiveXargs},
	{RuleOutputRedirectSystem, Forbidden, "Writes to a system file or a device (/etc, /boot, /dev/sd*, /proc/sys …)", false, matchSystemWrite},

	{RuleCredentialAccess, Escalated, "Reads credentials or secrets (SSH keys, cloud credentials, tokens)", false, matchCredentialAccess},
	{RuleUserManagement, Escalated, "Creates, changes or deletes users or groups, or passwords", false, matchUserManagement},
	{RuleGlobalInstall, Escalated, "Installs packages globally, outside the project", false, matchGlobalInstall},
	{RuleDockerBuild, Escalated, "Builds a container image", false, matchDockerBuild},
	{RuleDockerRuntime, Escalated, "Runs or changes containers through the container engine", false, matchDockerRuntime},
	{RuleSystemPackageInstall, Escalated, "Installs, removes or upgrades system packages", false, matchSystemPackage},
	{RuleProcessKill, Escalated, "Sends signals to other processes (kill, pkill, killall)", false, matchProcessKill},
	{RuleGitWrite, Escalated, "Changes git history, refs, configuration or remotes (commit, push, reset --hard, rebase …)", false, matchGitWrite},
	{RuleSshCommand, Escalated, "Opens a remote shell or runs a command on another machine", false, matchSSH},
	{RuleFileTransfer, Escalated, "Transfers files to or from another machine", false, matchFileTransfer},
	{RuleDownloadToFile, Escalated, "Downloads a file from the network to disk", false, matchDownloadToFile},
	{RuleServiceManagement, Escalated, "Starts, stops or changes system services", false, matchServiceManagement},
	{RuleCrontabAt, Escalated, "Schedules commands to run later (crontab, at, timers)", false, matchCrontabAt},
	{RuleFilePermission, Escalated, "Changes file permissions, ownership or attributes", false, matchFilePermission},
	{RuleFirewallManagement, Escalated, "Changes firewall rules", false, matchFirewall},
	{RuleNetworkScan, Escalated, "Scans networks or ports", false, matchNetworkScan},
	{RuleDatabaseClient, Escalated, "Connects to a database server", false, matchDatabaseClient},
	{RuleGitStashDrop, Escalated, "Discards stashed git changes for good", false, matchGitStashDrop},
	{RuleEvalExec, Escalated, "Runs code whose text is only known at run time (eval, $CMD, … | sh, LD_PRELOAD)", false, matchEvalExec},
	{RuleParseError, Escalated, "The command cannot be parsed or is too complex to classify safely", false, matchParseError},
	{RuleDynamicDeleteTarget, Escalated, "Recursive delete whose target is only known at run time and could be /, a home or a system directory (\"$DIR/\" is / when DIR is empty)", false, matchDynamicDelete},
	{RuleHomeOverwrite, Escalated, "Fills the home directory wholesale (tar -x -C ~, unzip -d ~, cp -r dir/. ~, rsync dir/ ~/): it can overwrite ~/.ssh, shell rc files and other dotfiles", false, matchHomeOverwrite},
	{RuleProtectedPathWrite, Escalated, "Writes to a protected path (git hooks or config, CI config, shell profiles, editor or agent settings)", true, matchProtectedWrite},
	{RuleSuPrivilege, Escalated, "Switches user (su, runuser)", false, matchSu},
	{RuleSudo, Escalated, "Runs a command with elevated privileges (sudo, doas, pkexec)", false, matchSudo},

	{RuleCommonSafeCommands, Allow, "Common read-only command", false, matchCommonSafe},
	{RuleGitReadCommands, Allow, "Read-only git command", false, matchGitReadAllow},
	{RuleVersionCheck, Allow, "Prints a program's version", false, matchVersionCheck},
	{RuleWindowsSafeCommands, Allow, "Read-only Windows command", false, matchWindowsSafe},
	{RuleCdSleep, Allow, "Changes directory or waits", false, matchCdSleep},
	{RuleProcessList, Allow, "Lists processes or system load", false, matchProcessList},
}

// ruleIndex maps a rule name to its index in builtinRules.
var ruleIndex = sync.OnceValue(func() map[string]int {
	m := make(map[string]int, len(builtinRules))
	for i, r := range builtinRules {
		m[r.name] = i
	}
	return m
})

// BuiltinRuleNames returns the names of the built-in rules in table order.
func BuiltinRuleNames() []string {
	out := make([]string, len(builtinRules))
	for i, r := range builtinRules {
		out[i] = r.name
	}
	return out
}

// BuiltinRule describes a built-in rule.
type BuiltinRule struct {
	Name        string
	Decision    Decision
	Description string
}

// BuiltinRules returns the built-in rules with their default decisions.
func BuiltinRules() []BuiltinRule {
	out := make([]BuiltinRule, len(builtinRules))
	for i, r := range builtinRules {
		out[i] = BuiltinRule{Name: r.name, Decision: r.decision, Description: r.desc}
	}
	return out
}

// Rules returns the built-in rules with the decisions in effect for c.
func (c *Classifier) Rules() []BuiltinRule {
	out := BuiltinRules()
	for i := range out {
		out[i].Decision = c.decisions[i]
	}
	return out
}
