package classify

import "testing"

// TestRedteam60FixYGeneral: the fixes of round 60's ansible, terraform,
// Python runner, pytest plugin and direnv findings cover the tool family,
// not only the lines the findings named: ansible's other modules and
// lookups, its written inventories and ansible.cfg; terraform's external
// programs, interpreters, heredocs and -chdir; tox's substitutions and its
// TOML form; pytest's -c file; direnv's source_up, dotenv and a directory
// given to source_env.
func TestRedteam60FixYGeneral(t *testing.T) {
	attacks := []string{
		// ansible
		`ansible localhost -m ansible.builtin.file -a 'path=~/.ssh state=absent'`,
		`ansible localhost -m debug -a "msg={{ lookup('pipe', 'rm -rf ~/.ssh') }}"`,
		`ansible localhost -m expect -a 'command="rm -rf ~/.ssh" responses={}'`,
		`ansible localhost -m command -a 'cmd="rm -rf ~/.ssh"'`,
		`ansible localhost -m debug -a "msg={{ lookup('file', '~/.ssh/id_rsa') }}"`,
		`printf -- '- hosts: all\n  tasks:\n    - command:\n        argv: [rm, -rf, /]\n' > site.yml; ansible-playbook site.yml`,
		`printf -- '- hosts: all\n  tasks:\n    - ansible.builtin.shell:\n        cmd: "rm -rf {{ d }}"\n' > site.yml; ansible-playbook site.yml`,
		`printf '[all]\nlocalhost ansible_ssh_common_args='"'"'-o ProxyCommand="rm -rf ~/.ssh"'"'"'\n' > inv; ansible all -i inv -m ping`,
		`printf 'all:\n  hosts:\n    h:\n      ansible_ssh_common_args: -o ProxyCommand="rm -rf ~/.ssh"\n' > inv.yml; ansible-playbook -i inv.yml site.yml`,
		`printf '[defaults]\nvault_password_file = v.sh\n' > ansible.cfg; printf '#!/bin/sh\nrm -rf ~/.ssh\n' > v.sh; ansible-playbook site.yml`,
		// terraform
		`mkdir m; printf 'data "external" "x" {\n  program = ["sh", "-c", "rm -rf ~/.ssh"]\n}\n' > m/main.tf; terraform -chdir=m plan`,
		`printf 'resource "terraform_data" "x" {\n  provisioner "local-exec" {\n    command = <<EOT\nrm -rf ~/.ssh\nEOT\n  }\n}\n' > main.tf; tofu apply -auto-approve`,
		`printf 'resource "terraform_data" "x" {\n  provisioner "local-exec" {\n    interpreter = ["python3", "-c"]\n    command = "import shutil; shutil.rmtree(\\"/\\")"\n  }\n}\n' > main.tf; terraform apply`,
		`printf 'resource "terraform_data" "x" {\n  provisioner "local-exec" { command = "rm -rf ${var.d}" }\n}\n' > main.tf; terraform apply`,
		// tox, pytest
		`printf '[testenv]\ncommands = rm -rf {homedir}/.ssh\n' > tox.ini; tox`,
		`mkdir ci; printf '[testenv]\ncommands = rm -rf ~/.ssh\n' > ci/tox.ini; tox -c ci`,
		`printf '[tool.tox.env_run_base]\ncommands = [["rm", "-rf", "/"]]\n' > tox.toml; tox`,
		`printf '[pytest]\naddopts = -p x\n' > ci.ini; printf 'import os\nos.system("rm -rf ~/.ssh")\n' > x.py; python3 -m pytest -c ci.ini`,
		// direnv
		`mkdir a; echo 'source_up' > a/.envrc; echo 'source_env y' > .envrc; echo 'rm -rf ~/.ssh' > y; cd a && direnv exec . true`,
		`echo 'dotenv' > .envrc; echo 'LD_PRELOAD=./x.so' > .env; direnv allow`,
		`mkdir sub; echo 'source_env sub' > .envrc; echo 'rm -rf ~/.ssh' > sub/.envrc; direnv allow`,
	}
	for _, l := range attacks {
		rtAtLeast(t, []string{"bash", "sh"}, l, Escalated)
	}
	// Controls.
	for _, l := range []string{
		`ansible all -i hosts -m shell -a 'df -h'`,
		`ansible localhost -m command -a 'chdir=/srv make test'`,
		`printf '[ssh_connection]\nssh_args = -o ControlMaster=auto -o ControlPersist=60s\n' > ansible.cfg; ansible-playbook site.yml`,
		`printf '[testenv]\ndeps = pytest\ncommands =\n    pytest {posargs:tests}\n    flake8 src\n' > tox.ini; tox -e py`,
		`printf 'repos:\n- repo: https://github.com/psf/black\n  rev: 24.1.0\n  hooks:\n  - id: black\n' > .pre-commit-config.yaml; pre-commit run --all-files`,
		`echo 'dotenv' > .envrc; echo 'FOO=1' > .env; direnv allow`,
		`terraform -chdir=infra plan -out tf.plan`,
	} {
		rtBelow(t, l, Escalated)
	}
}
