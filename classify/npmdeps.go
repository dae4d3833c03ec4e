package classify

import (
	"path"
	"strings"
)

// npm rebuild (rb) runs, offline, the preinstall, install and postinstall
// scripts of the packages installed in node_modules, read from
// node_modules/NAME/package.json; install, ci and their kin run them too
// for what they install (found by red-team round 62). Where the line wrote
// such a manifest, its scripts are judged as the shell lines they are,
// as the project's package.json's are (convention.go).

// npmDepScriptSubs are, by package manager, the commands that run the
// install scripts of the packages in node_modules.
var npmDepScriptSubs = map[string]set{
	"npm":  newSet("rebuild", "rb", "install", "i", "in", "ins", "inst", "insta", "instal", "isnt", "isnta", "isntal", "isntall", "add", "ci", "clean-install", "ic", "install-clean", "isntall-clean", "install-test", "it", "install-ci-test", "cit", "clean-install-test", "sit", "update", "up", "upgrade", "udpate"),
	"pnpm": newSet("rebuild", "rb", "install", "i", "add", "update", "up", "upgrade"),
	"yarn": newSet("", "install", "add", "upgrade"),
	"bun":  newSet("install", "i", "add", "update"),
}

// npmDepScripts judges the scripts of the dependency manifests the line
// wrote below node_modules when u runs them.
func (a *analyzer) npmDepScripts(u *unit) {
	subs, ok := npmDepScriptSubs[u.name]
	if !ok || u.dynName {
		return
	}
	if sub, _ := u.sub(); !subs.has(sub) {
		return
	}
	for _, key := range a.writtenFiles(func(k string) bool {
		return path.Base(k) == "package.json" && strings.Contains(k, "node_modules/")
	}) {
		for _, t := range a.keyTexts(u, key) {
			for _, s := range packageScripts(t, npmDepLifecycle...) {
				a.shellString(u, field{val: s})
			}
		}
	}
}

// npmDepLifecycle are the scripts of an installed package npm runs when
// it installs or rebuilds it (with node-gyp's default, install, when the
// package has a binding.gyp).
var npmDepLifecycle = []string{"preinstall", "install", "postinstall", "prepare"}
