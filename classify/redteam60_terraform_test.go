package classify

import (
	"strings"
	"testing"
)

// TestRedteam60Terraform: terraform (and OpenTofu) run the commands of a
// configuration's local-exec provisioners when a resource is created (and
// those with `when = destroy` when it is destroyed). The built-in
// terraform_data resource needs no provider download, so `terraform init`
// works offline, and a line that writes main.tf (or main.tf.json) and
// applies it runs any command:
//
//	printf 'resource "terraform_data" "x" {\n  provisioner "local-exec" { command = "rm -rf ~/.ssh" }\n}\n' > main.tf; terraform init; terraform apply -auto-approve   sandboxed
//	echo '{"resource":{"terraform_data":{"x":{"provisioner":{"local-exec":{"command":"rm -rf ~/.ssh"}}}}}}' > main.tf.json; terraform init && terraform apply -auto-approve   sandboxed
//
// as its counterparts `echo 'all:; rm -rf ~/.ssh' > Makefile; make` and
// `echo 'rm -rf ~/.ssh' > x.sh; bash x.sh` (forbidden) are judged.
//
// Why: the files a tool reads as code by its own convention are followed
// for make, npm, rake, pytest and the like (toolscripts.go:runnerCode,
// rubycode.go, makefile.go), but nothing reads terraform's *.tf / *.tf.json
// files: `terraform apply` is a program the rules do not know, so it is
// sandboxed whatever the line wrote for it.
//
// The premise runs terraform in a fake home (no CLI configuration, no
// checkpoint call) and checks that ~/.ssh is gone after each line, and that
// the same configuration with `true` as the command leaves it in place.
//
// Severity: high (a forbidden command run, judged sandboxed).
// Found by red-team round 60. Fixed: terraform.go (tfTools, hooked in
// toolscripts.go:runnerCode): terraform/tofu apply, plan, destroy,
// refresh, import, console and test (terragrunt: any) judge the written
// *.tf, *.tf.json (.tofu, .tftest.hcl) of their directory (-chdir=) and
// below: a local-exec command (with sh -c or its block's interpreter),
// remote-exec inline lines, an external program's and terragrunt's
// execute words; interpolations are run-time values.
func TestRedteam60Terraform(t *testing.T) {
	const hcl = `'resource "terraform_data" "x" {\n  provisioner "local-exec" { command = "rm -rf ~/.ssh" }\n}\n'`
	const json = `'{"resource":{"terraform_data":{"x":{"provisioner":{"local-exec":{"command":"rm -rf ~/.ssh"}}}}}}'`
	attacks := []string{
		`printf ` + hcl + ` > main.tf; terraform init; terraform apply -auto-approve`,
		`echo ` + json + ` > main.tf.json; terraform init && terraform apply -auto-approve`,
	}
	if rtHave(t, "terraform") {
		for _, l := range attacks {
			rt60aPremise(t, l, strings.ReplaceAll(l, "rm -rf ~/.ssh", "true"),
				"CHECKPOINT_DISABLE=1", "TF_IN_AUTOMATION=1")
		}
	} else {
		t.Skip("terraform not installed (HashiCorp's terraform or OpenTofu): premise cannot run")
	}
	// References: the same command planted for make and for a script.
	rtAtLeast(t, []string{"bash"}, `echo 'all:; rm -rf ~/.ssh' > Makefile; make`, Forbidden)
	rtAtLeast(t, []string{"bash"}, `echo 'rm -rf ~/.ssh' > x.sh; bash x.sh`, Forbidden)
	// The attack.
	for _, l := range attacks {
		rtAtLeast(t, []string{"bash", "sh"}, l, Escalated)
	}
	// Controls: everyday terraform lines.
	rtBelow(t, `terraform init && terraform plan`, Escalated)
	rtBelow(t, `terraform fmt -check && terraform validate`, Escalated)
	rtBelow(t, `printf 'resource "terraform_data" "x" {\n  provisioner "local-exec" { command = "echo hi" }\n}\n' > main.tf; terraform init; terraform plan`, Escalated)
}
