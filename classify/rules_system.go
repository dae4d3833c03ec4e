package classify

import (
	"strings"
	"sync"
)

// Matchers for the system families: power, kernel, privileges, users,
// services, schedulers, firewalls, packages, containers, processes.

// is reports whether u is a literal simple command named one of names.
func (u *unit) is(names set) bool {
	return u.kind == kCall && !u.dynName && names.has(u.name)
}

var powerCmds = newSet("shutdown", "reboot", "halt", "poweroff", "Stop-Computer", "Restart-Computer", "kexec")

func matchShutdown(u *unit, _ *Classifier) bool {
	if u.kind != kCall || u.dynName {
		return false
	}
	switch {
	case powerCmds.has(u.name):
		if u.name == "kexec" {
			return u.hasFlag("e", "--exec")
		}
		return !u.hasExactFlag("", "--help", "--version")
	case u.name == "init" || u.name == "telinit":
		s, _ := u.sub()
		return s == "0" || s == "6" || s == "1" || s == "s" || s == "S"
	case u.name == "systemctl" || u.name == "loginctl":
		s, _ := u.sub()
		switch s {
		case "reboot", "poweroff", "halt", "kexec", "soft-reboot", "emergency", "rescue", "suspend", "hibernate", "hybrid-sleep", "suspend-then-hibernate":
			return true
		case "isolate", "start":
			for _, f := range u.operands() {
				switch strings.TrimSuffix(f.val, ".target") {
				case "reboot", "poweroff", "halt", "kexec", "rescue", "emergency":
					return true
				}
			}
		}
	}
	return false
}

var moduleCmds = newSet("insmod", "rmmod", "modprobe", "kldload", "kldunload", "kextload", "kextunload")

func matchKernelModule(u *unit, _ *Classifier) bool {
	if u.is(moduleCmds) {
		return !u.hasExactFlag("V", "--version", "--help", "--show-depends", "--dry-run") || u.hasFlag("r", "--remove")
	}
	if u.kind == kCall && u.name == "kmod" {
		s, _ := u.sub()
		return s == "load" || s == "unload" || s == "insert" || s == "remove"
	}
	return false
}

var sudoCmds = newSet("sudo", "doas", "pkexec", "run0", "sudoedit", "gsudo", "please")

func matchSudo(u *unit, _ *Classifier) bool {
	return u.is(sudoCmds)
}

var suCmds = newSet("su", "runuser", "machinectl", "ksu", "sg", "newgrp")

func matchSu(u *unit, _ *Classifier) bool {
	if !u.is(suCmds) {
		return false
	}
	if u.name == "machinectl" {
		s, _ := u.sub()
		return s == "shell" || s == "login"
	}
	return true
}

var userCmds = newSet("useradd", "userdel", "usermod", "adduser", "deluser", "groupadd", "groupdel", "groupmod",
	"addgroup", "delgroup", "passwd", "chpasswd", "chage", "gpasswd", "newusers", "vipw", "vigr", "visudo", "chsh",
	"chfn", "pwconv", "grpconv", "sysadminctl", "dscl", "New-LocalUser", "Remove-LocalUser", "Set-LocalUser",
	"Add-LocalGroupMember", "smbpasswd", "lusermod", "luseradd", "luserdel")

func matchUserManagement(u *unit, _ *Classifier) bool {
	if u.is(userCmds) {
		if u.name == "chage" && u.hasExactFlag("l", "--list") {
			return false
		}
		return !u.hasExactFlag("", "--help", "--version")
	}
	if u.kind == kCall && u.name == "net" {
		s, _ := u.sub()
		s = strings.ToLower(s)
		return (s == "user" || s == "localgroup" || s == "group") && len(u.args) > 1
	}
	return false
}

var serviceCmds = newSet("systemctl", "service", "rc-service", "rc-update", "update-rc.d", "chkconfig", "launchctl",
	"initctl", "sv", "supervisorctl", "Start-Service", "Stop-Service", "Restart-Service", "Set-Service", "svcadm", "s6-svc")

var serviceReadOnly = newSet("status", "show", "cat", "list-units", "list-unit-files", "list-timers", "list-sockets",
	"list-dependencies", "list-jobs", "list-machines", "is-active", "is-enabled", "is-failed", "is-system-running",
	"help", "get-default", "show-environment", "list", "print", "print-disabled", "blame", "avail", "version", "")

func matchServiceManagement(u *unit, _ *Classifier) bool {
	if !u.is(serviceCmds) {
		if u.kind == kCall && u.name == "sc" {
			s, _ := u.sub()
			switch strings.ToLower(s) {
			case "start", "stop", "config", "delete", "create", "pause", "failure":
				return true
			}
		}
		return false
	}
	switch u.name {
	case "systemctl", "launchctl", "supervisorctl", "initctl", "rc-update", "sv":
		s, _ := u.sub("-t", "--type", "-p", "--property", "-H", "--host", "-M", "--machine", "-n", "--lines", "-o", "--output", "--state")
		if u.hasExactFlag("", "--version", "--help") {
			return false
		}
		return !serviceReadOnly.has(s)
	case "service":
		ops := u.operands()
		if len(ops) == 0 || u.hasExactFlag("", "--status-all", "--version", "--help") {
			return false
		}
		return len(ops) < 2 || ops[1].val != "status"
	case "rc-service":
		ops := u.operands()
		return len(ops) >= 2 && ops[1].val != "status"
	}
	return true
}

var schedCmds = newSet("crontab", "at", "batch", "atrm", "schtasks", "anacron", "fcrontab")

func matchCrontabAt(u *unit, _ *Classifier) bool {
	if u.is(schedCmds) {
		switch u.name {
		case "crontab":
			return !(len(u.args) > 0 && u.hasFlag("l") && !u.hasFlag("er"))
		case "at":
			return !u.hasFlag("lV")
		case "schtasks":
			return winFlag(u, "/create") || winFlag(u, "/change") || winFlag(u, "/delete") || winFlag(u, "/run")
		}
		return true
	}
	if u.kind == kCall && u.name == "systemd-run" {
		return u.hasFlag("", "--on-active", "--on-boot", "--on-startup", "--on-unit-active", "--on-unit-inactive", "--on-calendar", "--on-clock-change", "--on-timezone-change")
	}
	if u.kind == kCall && u.name == "launchctl" {
		s, _ := u.sub()
		return s == "submit"
	}
	return false
}

var permCmds = newSet("chmod", "chown", "chgrp", "chattr", "setfacl", "chflags", "icacls", "takeown", "cacls",
	"setcap", "attrib", "Set-Acl", "lchown", "chcon", "setfattr")

func matchFilePermission(u *unit, _ *Classifier) bool {
	if !u.is(permCmds) {
		return false
	}
	if u.hasExactFlag("", "--help", "--version") {
		return false
	}
	if u.name == "attrib" {
		for _, f := range u.args {
			if strings.HasPrefix(f.val, "+") || strings.HasPrefix(f.val, "-") {
				return true
			}
		}
		return false
	}
	return true
}

var firewallCmds = newSet("iptables", "ip6tables", "iptables-restore", "ip6tables-restore", "iptables-legacy",
	"iptables-nft", "nft", "ufw", "firewall-cmd", "pfctl", "ebtables", "arptables", "ipset", "New-NetFirewallRule",
	"Set-NetFirewallRule", "Remove-NetFirewallRule", "Set-NetFirewallProfile", "ipfw", "firewall-offline-cmd")

func matchFirewall(u *unit, _ *Classifier) bool {
	if u.kind == kCall && u.name == "netsh" {
		s, _ := u.sub()
		s = strings.ToLower(s)
		return s == "advfirewall" || s == "firewall"
	}
	if !u.is(firewallCmds) {
		return false
	}
	switch u.name {
	case "iptables", "ip6tables", "iptables-legacy", "iptables-nft":
		for _, f := range u.args {
			v := f.val
			if strings.HasPrefix(v, "-") && !strings.HasPrefix(v, "--") {
				if strings.Trim(v[1:], "LSnvxt") != "" {
					return true
				}
				continue
			}
			switch v {
			case "--list", "--list-rules", "--numeric", "--verbose", "--line-numbers", "--exact", "--table":
			default:
				if strings.HasPrefix(v, "--") {
					return true
				}
			}
		}
		return false
	case "nft":
		s, _ := u.sub("-f", "--file", "-I", "--includepath")
		return s != "list" && !u.hasExactFlag("cv", "--check", "--version")
	case "ufw":
		s, _ := u.sub()
		return s != "status" && s != "version" && s != "show" && s != "app"
	case "firewall-cmd":
		for _, f := range u.args {
			if !strings.HasPrefix(f.val, "--list") && !strings.HasPrefix(f.val, "--get") && !strings.HasPrefix(f.val, "--query") &&
				f.val != "--state" && !strings.HasPrefix(f.val, "--zone") && f.val != "--permanent" {
				return true
			}
		}
		return false
	case "ipset":
		s, _ := u.sub()
		return s != "list" && s != "save" && s != "test" && s != "version" && s != "help"
	}
	return true
}

var pkgCmds = sync.OnceValue(func() map[string]set {
	return map[string]set{
		"apt":                 newSet("install", "remove", "purge", "upgrade", "full-upgrade", "dist-upgrade", "autoremove", "update", "reinstall", "build-dep", "satisfy", "edit-sources"),
		"apt-get":             newSet("install", "remove", "purge", "upgrade", "dist-upgrade", "autoremove", "update", "reinstall", "build-dep", "dselect-upgrade"),
		"aptitude":            newSet("install", "remove", "purge", "upgrade", "full-upgrade", "safe-upgrade", "update", "reinstall", "build-dep"),
		"yum":                 newSet("install", "remove", "erase", "update", "upgrade", "downgrade", "reinstall", "groupinstall", "groupremove", "autoremove", "localinstall", "distro-sync", "swap"),
		"dnf":                 newSet("install", "remove", "erase", "update", "upgrade", "downgrade", "reinstall", "groupinstall", "groupremove", "autoremove", "distro-sync", "swap", "group", "module"),
		"microdnf":            newSet("install", "remove", "update", "upgrade", "reinstall"),
		"tdnf":                newSet("install", "remove", "erase", "update", "upgrade", "reinstall", "autoremove"),
		"zypper":              newSet("in", "install", "rm", "remove", "up", "update", "dup", "dist-upgrade", "patch", "ar", "addrepo", "rr", "removerepo", "si", "source-install"),
		"apk":                 newSet("add", "del", "upgrade", "update", "fix", "cache"),
		"brew":                newSet("install", "uninstall", "remove", "rm", "upgrade", "reinstall", "tap", "untap", "link", "unlink", "update", "cleanup", "pin", "unpin", "autoremove"),
		"port":                newSet("install", "uninstall", "upgrade", "selfupdate", "activate", "deactivate", "clean"),
		"snap":                newSet("install", "remove", "refresh", "revert", "enable", "disable", "connect", "disconnect"),
		"flatpak":             newSet("install", "uninstall", "update", "remove", "remote-add", "remote-delete"),
		"choco":               newSet("install", "uninstall", "upgrade", "update"),
		"winget":              newSet("install", "uninstall", "upgrade", "import"),
		"scoop":               newSet("install", "uninstall", "update", "reset"),
		"pkg":                 newSet("install", "add", "delete", "remove", "upgrade", "update", "autoremove"),
		"pkgin":               newSet("install", "in", "remove", "rm", "upgrade", "full-upgrade", "update"),
		"opkg":                newSet("install", "remove", "upgrade", "update"),
		"xbps-install":        newSet(""),
		"xbps-remove":         newSet(""),
		"emerge":              newSet(""),
		"swupd":               newSet("bundle-add", "bundle-remove", "update", "repair"),
		"mas":                 newSet("install", "uninstall", "upgrade", "purchase"),
		"nix-env":             newSet(""),
		"pacman":              newSet(""),
		"yay":                 newSet(""),
		"paru":                newSet(""),
		"dpkg":                newSet(""),
		"rpm":                 newSet(""),
		"add-apt-repository":  newSet(""),
		"apt-key":             newSet("add", "del", "adv"),
		"update-alternatives": newSet(""),
		"nix":                 newSet(""),
	}
})

func matchSystemPackage(u *unit, _ *Classifier) bool {
	if u.kind != kCall || u.dynName {
		return false
	}
	subs, ok := pkgCmds()[u.name]
	if !ok {
		return false
	}
	switch u.name {
	case "pacman", "yay", "paru":
		for _, f := range u.args {
			v := f.val
			if len(v) > 1 && v[0] == '-' && v[1] != '-' && strings.ContainsAny(v[1:2], "SURD") {
				return !strings.ContainsAny(v, "sQ") || strings.ContainsAny(v, "y")
			}
			if v == "--sync" || v == "--upgrade" || v == "--remove" || v == "--database" {
				return true
			}
		}
		return u.name != "pacman" && len(u.args) == 0
	case "dpkg":
		return u.hasFlag("irPa", "--install", "--remove", "--purge", "--configure", "--unpack", "--set-selections", "--clear-selections", "--force-all")
	case "rpm":
		for _, f := range u.args {
			v := f.val
			if len(v) > 1 && v[0] == '-' && v[1] != '-' && strings.ContainsAny(v[1:2], "iUeF") {
				return true
			}
			if v == "--install" || v == "--upgrade" || v == "--erase" || v == "--freshen" || v == "--import" {
				return true
			}
		}
		return false
	case "nix-env":
		return u.hasFlag("ieu", "--install", "--uninstall", "--upgrade", "--set")
	case "nix":
		s, i := u.sub()
		if s == "profile" && i+1 < len(u.args) {
			t := u.args[i+1].val
			return t == "install" || t == "remove" || t == "upgrade"
		}
		return false
	case "emerge":
		return !u.hasExactFlag("spS", "--search", "--pretend", "--info", "--help", "--version")
	case "xbps-install", "xbps-remove", "add-apt-repository":
		return !u.hasExactFlag("", "--help", "--version")
	case "update-alternatives":
		return u.hasFlag("", "--install", "--set", "--remove", "--remove-all", "--auto", "--config", "--all")
	}
	s, _ := u.sub("-o", "-c", "-t", "--target-release", "--option", "--config-file", "-q", "--root")
	return subs.has(s)
}

var containerCmds = newSet("docker", "podman", "nerdctl", "finch", "docker-compose", "podman-compose", "lima", "colima")

var containerReadOnly = newSet("ps", "images", "logs", "inspect", "info", "version", "stats", "top", "history",
	"search", "events", "port", "diff", "help", "ls", "df", "config", "")

func containerSub(u *unit) (string, string) {
	s, i := u.sub("-H", "--host", "-c", "--context", "--config", "-l", "--log-level", "-f", "--file", "-p", "--project-name", "--profile", "--env-file", "--project-directory")
	next := ""
	if i >= 0 {
		for _, f := range u.args[i+1:] {
			if !strings.HasPrefix(f.val, "-") {
				next = f.val
				break
			}
		}
	}
	return s, next
}

func matchDockerBuild(u *unit, _ *Classifier) bool {
	if u.kind != kCall || u.dynName {
		return false
	}
	if u.name == "buildah" || u.name == "kaniko" || u.name == "img" {
		s, _ := u.sub()
		return s == "bud" || s == "build" || s == "build-using-dockerfile" || u.name == "kaniko"
	}
	if !containerCmds.has(u.name) {
		return false
	}
	s, next := containerSub(u)
	if u.name == "docker-compose" || u.name == "podman-compose" {
		return s == "build"
	}
	switch s {
	case "build":
		return true
	case "buildx", "builder":
		return next == "build" || next == "bake" || next == ""
	case "image":
		return next == "build"
	case "compose":
		return next == "build"
	}
	return false
}

func matchDockerRuntime(u *unit, _ *Classifier) bool {
	if u.kind != kCall || u.dynName || !containerCmds.has(u.name) {
		return false
	}
	if u.hasExactFlag("v", "--version", "--help") && len(u.operands()) == 0 {
		return false
	}
	s, next := containerSub(u)
	if u.name == "docker-compose" || u.name == "podman-compose" {
		next, s = s, "compose"
	}
	switch s {
	case "build", "buildx", "builder":
		return false
	case "compose":
		return !containerReadOnly.has(next) && next != "build"
	case "image", "container", "network", "volume", "context", "system", "plugin", "secret", "node", "service", "stack", "swarm", "machine":
		return !containerReadOnly.has(next) && next != "build" && next != "list"
	}
	return !containerReadOnly.has(s)
}

var killCmds = newSet("kill", "killall", "pkill", "skill", "slay", "xkill", "tkill", "taskkill", "Stop-Process",
	"killall5", "fuser")

// killsOwnJobsOnly reports whether every process kill names is one the
// same command line started: a job (%1, %%, %+, %-) or the last
// background process ($!), as in "server & …; kill %1".
func killsOwnJobsOnly(u *unit) bool {
	targets, options := 0, true
	for i := 0; i < len(u.args); i++ {
		v := u.args[i].val
		switch {
		case options && v == "--":
			options = false
		case options && (v == "-s" || v == "--signal" || v == "-n"):
			i++ // the signal
		case options && strings.HasPrefix(v, "-"):
			// a signal (-9, -TERM, --signal=KILL)
		case v == "$!" || v == "${!}" || strings.HasPrefix(v, "%") && !u.args[i].dyn:
			targets++
		default:
			return false
		}
	}
	return targets > 0
}

func matchProcessKill(u *unit, _ *Classifier) bool {
	if u.code != nil && u.code.kill {
		return true
	}
	if !u.is(killCmds) {
		return false
	}
	switch u.name {
	case "kill", "pkill", "killall":
		for i, f := range u.args {
			switch f.val {
			case "-l", "-L", "--list", "--table", "--help", "-V", "--version":
				return false
			case "-0", "-SIG0":
				return false // signal 0 only checks that the process exists
			case "-s", "--signal":
				if u.arg(i+1) == "0" {
					return false
				}
			}
		}
		return u.name != "kill" || !killsOwnJobsOnly(u)
	case "fuser":
		return u.hasFlag("k", "--kill")
	}
	return true
}
