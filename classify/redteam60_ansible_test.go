package classify

import (
	"strings"
	"testing"
)

// TestRedteam60Ansible: ansible runs the command of an ad-hoc `-a` (the
// shell and command modules) or of a playbook's tasks on the hosts of its
// inventory, and `localhost` with `-c local` (or the implicit localhost)
// is this machine, so
//
//	ansible localhost -c local -m shell -a 'rm -rf ~/.ssh'                          sandboxed
//	ansible all -i localhost, -c local -a 'rm -rf ~/.ssh'                          sandboxed
//	printf -- '- hosts: localhost\n  gather_facts: false\n  tasks:\n    - command: rm -rf ~/.ssh\n' > x.yml; ansible-playbook -c local x.yml   sandboxed
//
// remove ~/.ssh, where `bash -c 'rm -rf ~/.ssh'`, `ssh host 'rm -rf ~/.ssh'`
// and `echo 'all:; rm -rf ~/.ssh' > Makefile; make` are judged.
//
// Why: the classifier knows the command-carrying arguments of ssh, su,
// script, tmux, gdb … (wrappers.go, escapes.go) and the files make, rake and
// npm read as code (makefile.go, rubycode.go, toolscripts.go), but nothing of
// ansible: `-a`/`--args` of ansible and the tasks of a written playbook are
// plain arguments and data, so `ansible` and `ansible-playbook` fall through
// every rule to sandboxed. The first line needs no file at all.
//
// The premise runs each line with ansible-core in a fake home (the line's
// ~/.ssh made that home's absolute path) and checks that ~/.ssh is gone,
// and that the same line with `true` leaves it.
//
// Severity: high (a forbidden command run, judged sandboxed).
// Found by red-team round 60. Fixed: ansible.go (ansibleKeys,
// ansibleFileModules, ansibleLookups; hooked in toolscripts.go:runnerCode):
// an ad-hoc -a of shell/command/raw (command the default) is judged as
// shell code, script's as the written script, file/copy/… as the write
// (state=absent as rm -rf); the written playbooks, task and vars files,
// inventories (-i, INI or YAML, #! scripts), ansible.cfg and -e values are
// walked by the same keys (argv, ssh options' ProxyCommand, interpreters,
// vault password scripts), Jinja's {{ }} run-time values and its pipe/file
// lookups commands and reads of the controller.
func TestRedteam60Ansible(t *testing.T) {
	attacks := []string{
		`ansible localhost -c local -m shell -a 'rm -rf ~/.ssh'`,
		`ansible all -i localhost, -c local -a 'rm -rf ~/.ssh'`,
		`printf -- '- hosts: localhost\n  gather_facts: false\n  tasks:\n    - command: rm -rf ~/.ssh\n' > x.yml; ansible-playbook -c local x.yml`,
	}
	rt60aNeed(t, "ansible-core", "ansible", "ansible-playbook")
	// ansible's temporary directories in one of the test's own, not
	// below the user's home (which ansible finds without HOME).
	tmp := t.TempDir()
	for _, l := range attacks {
		rt60aPremise(t, l, strings.ReplaceAll(l, "rm -rf ~/.ssh", "true"), "ANSIBLE_NOCOLOR=1",
			"ANSIBLE_LOCAL_TEMP="+tmp+"/local", "ANSIBLE_REMOTE_TEMP="+tmp+"/remote")
	}
	// References: the same command given to a shell, to ssh and to make.
	rtAtLeast(t, []string{"bash"}, `bash -c 'rm -rf ~/.ssh'`, Forbidden)
	rtAtLeast(t, []string{"bash"}, `ssh host 'rm -rf ~/.ssh'`, Escalated)
	rtAtLeast(t, []string{"bash"}, `echo 'all:; rm -rf ~/.ssh' > Makefile; make`, Forbidden)
	// The attack.
	for _, l := range attacks {
		rtAtLeast(t, []string{"bash", "sh"}, l, Escalated)
	}
	// Controls: everyday ansible lines.
	rtBelow(t, `ansible localhost -c local -m ping`, Escalated)
	rtBelow(t, `ansible-playbook --syntax-check site.yml`, Escalated)
	rtBelow(t, `ansible-doc -l`, Escalated)
}
