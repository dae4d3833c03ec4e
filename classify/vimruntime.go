package classify

import (
	"path"
	"strings"
)

// vim's runtime and package paths set on the line (found by red-team round
// 60): at start vim loads plugin/**/*.vim (and .lua) of every directory of
// 'runtimepath' and pack/*/start/*/plugin/** of every directory of
// 'packpath'; :runtime FILE sources FILE from the runtimepath, :packadd
// NAME the package pack/*/opt/NAME of the packpath. An ex command of the
// line that puts a directory on either (--cmd 'set rtp+=.', let &pp .=
// ',d') makes the files the line wrote there vim's code: they are judged
// as the ex commands (or Lua) they are.

var (
	// vimPathSet matches a setting of runtimepath or packpath: :set with
	// =, +=, ^= (vimSetValue's escapes), and :let &OPT with a string.
	vimPathSet = lazyRegexp(`\b(rtp|runtimepath|pp|packpath)\s*[+^]?=\s*((?:\\.|[^\s|])+)`)
	vimPathLet = lazyRegexp(`&(?:[lg]:)?(rtp|runtimepath|pp|packpath)\s*(?:\.\.?=|[+^]?=)\s*([^|]*)`)
	// vimRuntimeCmd matches :runtime [where] FILE…; vimPackadd :packadd NAME.
	vimRuntimeCmd = lazyRegexp(`(?:^|\|)[\s:]*(?:sil(?:ent)?!?\s*)?ru(?:n(?:t(?:i(?:m(?:e)?)?)?)?)?!?\s+(?:(?:START|OPT|PACK|ALL)\s+)?([^|]+)`)
	vimPackadd    = lazyRegexp(`(?:^|\|)[\s:]*(?:sil(?:ent)?!?\s*)?pa(?:c(?:k(?:a(?:d(?:d)?)?)?)?)?!?\s+([^|\s]+)`)
)

// vimRuntimeDirs are the directories of a runtimepath entry whose scripts
// vim loads by itself: at start, for a file type, on an autoload call.
var vimRuntimeDirs = newSet("plugin", "after", "ftplugin", "ftdetect", "autoload", "syntax", "indent", "colors",
	"compiler", "keymap", "lua")

// vimExTexts returns the ex commands u's options hand vim (--cmd, -c,
// +CMD) and its VIMINIT.
func (a *analyzer) vimExTexts(u *unit) []field {
	var out []field
	for i, f := range u.args {
		switch {
		case (f.val == "-c" || f.val == "--cmd") && i+1 < len(u.args):
			out = append(out, u.args[i+1])
		case len(f.val) > 1 && f.val[0] == '+':
			g := f
			g.val = f.val[1:]
			out = append(out, g)
		}
	}
	for _, v := range []string{"VIMINIT", "EXINIT"} {
		if f, ok := a.envField(u, v); ok {
			out = append(out, f)
		}
	}
	return out
}

// vimRuntime judges the written files vim loads from the runtimepath and
// packpath u's ex commands set.
func (a *analyzer) vimRuntime(u *unit) {
	var rtp, pp, files, packs []string
	anyDir := false
	for _, f := range a.vimExTexts(u) {
		for _, m := range vimPathSet().FindAllStringSubmatch(f.val, -1) {
			dirs := vimPathList(vimSetValue(m[2]))
			anyDir = anyDir || f.dyn
			addVimPath(m[1], dirs, &rtp, &pp)
		}
		for _, m := range vimPathLet().FindAllStringSubmatch(f.val, -1) {
			lits := codeStrings(m[2])
			anyDir = anyDir || f.dyn || len(lits) == 0 || strings.ContainsAny(m[2], "$") // &rtp = expr
			for _, l := range lits {
				addVimPath(m[1], vimPathList(l), &rtp, &pp)
			}
		}
		for _, m := range vimRuntimeCmd().FindAllStringSubmatch(f.val, -1) {
			files = append(files, strings.Fields(m[1])...)
		}
		for _, m := range vimPackadd().FindAllStringSubmatch(f.val, -1) {
			packs = append(packs, m[1])
		}
	}
	if len(rtp) == 0 && len(pp) == 0 && !anyDir {
		return
	}
	for _, key := range a.writtenFiles(vimCodeFile) {
		if anyDir || a.vimLoads(u, key, rtp, pp, files, packs) {
			for _, t := range a.keyTexts(u, key) {
				a.toolText(u, vimFileLang(key), t)
			}
		}
	}
}

// vimFileLang is the language of vim's code file key.
func vimFileLang(key string) string {
	if strings.HasSuffix(key, ".lua") {
		return "lua"
	}
	return "vim"
}

// vimCodeFile reports whether a written file's key is vim's code.
func vimCodeFile(key string) bool {
	return strings.HasSuffix(key, ".vim") || strings.HasSuffix(key, ".lua")
}

// vimLoads reports whether vim loads the written file key from the
// runtimepath rtp (its runtime directories, the :runtime files) or the
// packpath pp (start packages, the :packadd ones), their entries relative
// to u's working directory.
func (a *analyzer) vimLoads(u *unit, key string, rtp, pp, files, packs []string) bool {
	for _, d := range rtp {
		rel, ok := keyUnder(key, fileKey(u.cwd, u.links, field{val: d}))
		if !ok {
			continue
		}
		if first, _, _ := strings.Cut(rel, "/"); vimRuntimeDirs.has(first) || vimPathMatch(files, rel) {
			return true
		}
	}
	for _, d := range pp {
		rel, ok := keyUnder(key, fileKey(u.cwd, u.links, field{val: d}))
		if !ok {
			continue
		}
		parts := strings.SplitN(rel, "/", 5) // pack/P/start|opt/NAME/FILE
		if len(parts) < 5 || parts[0] != "pack" {
			continue
		}
		if parts[2] == "start" || parts[2] == "opt" && (vimPathMatch(packs, parts[3]) || vimPathMatch(files, parts[4])) {
			return true
		}
	}
	return false
}

// vimPathMatch reports whether one of the patterns (a :runtime file, a
// :packadd name, wildcards allowed) matches p.
func vimPathMatch(pats []string, p string) bool {
	for _, pat := range pats {
		if ok, err := path.Match(pat, p); ok || err != nil || pat == p {
			return true
		}
	}
	return false
}

// vimPathList splits an option's comma-separated list (\, escapes one).
func vimPathList(v string) []string {
	var out []string
	for _, d := range strings.Split(strings.ReplaceAll(v, `\,`, "\x00"), ",") {
		if d = strings.TrimSpace(strings.ReplaceAll(d, "\x00", ",")); d != "" {
			out = append(out, d)
		}
	}
	return out
}

// addVimPath adds dirs to the runtimepath or the packpath, as opt names.
func addVimPath(opt string, dirs []string, rtp, pp *[]string) {
	if opt == "pp" || opt == "packpath" {
		*pp = append(*pp, dirs...)
		return
	}
	*rtp = append(*rtp, dirs...)
}
