package classify

import (
	"path"
	"slices"
	"strings"
	"sync"
)

// namedPrograms are program names that matchers test for in switch
// statements or comparisons rather than through a set.
var namedPrograms = []string{
	"rm", "srm", "grm", "rimraf", "del-cli", "trash-put", "rmtree", "rd", "rmdir", "del", "erase", "deltree",
	"Remove-Item", "ri", "mv", "cp", "rsync", "dd", "tee", "touch", "truncate", "mkdir", "unlink", "install", "ln",
	"sed", "gsed", "perl", "find", "fd", "xargs", "hdparm", "nvme", "diskutil", "cryptsetup", "zpool", "cipher",
	"vssadmin", "wbadmin", "format", "Format-Volume", "Clear-Disk", "Initialize-Disk", "sysctl", "git", "gh", "npm",
	"pnpm", "cnpm", "bun", "yarn", "pip", "pip3", "pip2", "uv", "pipenv", "pipx", "gem", "cargo", "go", "composer",
	"dotnet", "deno", "volta", "luarocks", "cpan", "cpanm", "docker-compose", "podman-compose", "buildah", "kaniko",
	"img", "aws", "gcloud", "gsutil", "rclone", "rcat", "init", "telinit", "kmod", "loginctl", "netsh", "net", "sc",
	"attrib", "chage", "fc", "history", "eval", "source", ".", "trap", "alias", "exec", "command", "builtin", "emacs",
	"gdb", "xterm", "ztcp", "pwncat", "pwncat-cs", "clickhouse", "cockroach", "openssl", "nvidia-smi", "powershell",
	"pwsh", "cmd", "mkfs.ext4", "mkfs.ext3", "mkfs.xfs", "mkfs.btrfs", "mkfs.vfat", "mkfs.fat", "mkfs.ntfs",
}

// programSets are the sets of program names the rules know.
func programSets() []set {
	return []set{shellNames, downloaders, socketTools, decoders, passThrough, safeCmds, windowsSafe, cdSleepCmds,
		psCmds, wipers, formatters, partitioners, netShellTools, sshCmds, transferCmds, dbCmds, scanCmds, powerCmds,
		moduleCmds, sudoCmds, suCmds, userCmds, serviceCmds, schedCmds, permCmds, firewallCmds, containerCmds, killCmds}
}

// knownPrograms lists, sorted, every program name the rules and handlers
// know: what a glob in a program word (/bin/r[m]) may stand for. It is
// built on first use (the handlers it lists refer back to it).
var (
	knownProgramsOnce sync.Once
	knownProgramList  []string
)

func knownPrograms() []string {
	knownProgramsOnce.Do(buildKnownPrograms)
	return knownProgramList
}

func buildKnownPrograms() {
	var out []string
	out = append(out, namedPrograms...)
	for _, s := range programSets() {
		out = append(out, s.words...)
	}
	for n := range wrappers() {
		out = append(out, n)
	}
	for n := range subWrappers() {
		n, _, _ = strings.Cut(n, " ")
		out = append(out, n)
	}
	handlersOnce.Do(buildHandlers)
	for n := range handlers {
		out = append(out, n)
	}
	for n := range execOptions() {
		out = append(out, n)
	}
	for n := range pkgCmds() {
		out = append(out, n)
	}
	slices.Sort(out)
	knownProgramList = slices.Compact(out)
}

// globPrograms returns the known programs an unquoted glob in a program
// word's last component may name.
func globPrograms(pattern string) []string {
	var out []string
	for _, n := range knownPrograms() {
		if ok, _ := path.Match(pattern, n); ok {
			out = append(out, n)
		}
	}
	return out
}
