package classify

import (
	"path"
	"slices"
	"strings"
)

// Inline code that opens files by name: python3 -c "open(os.path.expanduser(
// '~/.aws/credentials')).read()", node -e "readFileSync(os.homedir()+
// '/.ssh/id_rsa')", perl -e 'open F, ">>$ENV{HOME}/.bashrc"', awk 'BEGIN{print
// … > ENVIRON["HOME"] "/.bashrc"}'. codeFiles finds the paths such code
// spells with string literals and the home's expressions; a credential
// store among them is credential access, and where the code writes files
// they are write targets.

// codeHomeExprs are expressions for the home directory, replaced by the
// literal "~" before the code's paths are read.
var codeHomeExprs = func() []string {
	var out []string
	for _, h := range homeExprs {
		if h != "'/'" && h != `"/"` {
			out = append(out, h)
		}
	}
	return append(out, "os.homedir()", "homedir()", `ENVIRON["HOME"]`, `ENVIRON['HOME']`, `getenv("HOME")`, `getenv('HOME')`,
		`os.environ.get("HOME")`, `os.environ.get('HOME')`, "Path.home()", "File.expand_path('~')", `File.expand_path("~")`)
}()

// codeWriteMarkers are the calls and modes with which code writes a file.
var codeWriteMarkers = lazyRegexp(`open\s*\([^;\n]*?,\s*['"][wax]|open\s*\(?\s*[\w$]+\s*,\s*['"]\s*[>+]|open\s*\(?\s*[\w$]+\s*,\s*"[^"]*>|writeFile|appendFile|write_text|write_bytes|createWriteStream|file_put_contents|fwrite|File\.write|IO\.write`)

// awkWriteMarkers are awk's output redirections (print … > FILE), which in
// other languages are comparisons.
var awkWriteMarkers = lazyRegexp(`printf?[^;{}]*>`)

// codeFiles returns the paths code (in lang) names (home-relative as ~/…)
// and whether it writes files.
func codeFiles(lang, code string) (paths []string, writes bool) {
	norm := strings.ReplaceAll(strings.ReplaceAll(code, "$ENV{HOME}", "~"), "${ENV{HOME}}", "~")
	for _, h := range codeHomeExprs {
		norm = strings.ReplaceAll(norm, h, `"~"`)
	}
	var run []string
	var seps []byte
	flush := func() {
		if len(run) == 0 {
			return
		}
		paths = append(paths, run...)
		if len(run) > 1 {
			paths = append(paths, strings.Join(run, ""), path.Join(run...))
		}
		run, seps = nil, nil
	}
	for i := 0; i < len(norm); i++ {
		c := norm[i]
		if c != '"' && c != '\'' {
			continue
		}
		lit, n := readLiteral(norm[i:])
		if n == 0 {
			break
		}
		run = append(run, lit)
		i += n
		// A literal joined to the next by +, ., / or , (a join's
		// arguments), or set beside it (awk), continues the run.
		j := i
		for j < len(norm) && (norm[j] == ' ' || norm[j] == '\t') {
			j++
		}
		if j < len(norm) && strings.IndexByte("+./,", norm[j]) >= 0 {
			seps = append(seps, norm[j])
			j++
			for j < len(norm) && (norm[j] == ' ' || norm[j] == '\t') {
				j++
			}
		}
		if j < len(norm) && (norm[j] == '"' || norm[j] == '\'') {
			i = j - 1
			continue
		}
		flush()
		i--
	}
	flush()
	slices.Sort(paths)
	paths = slices.Compact(paths)
	var out []string
	for _, p := range paths {
		p = strings.TrimLeft(p, "<>+| ") // perl's and ruby's open modes (">>~/.bashrc")
		if strings.HasPrefix(p, "/") || strings.HasPrefix(p, "~/") || p == "~" {
			out = append(out, path.Clean(p))
		}
	}
	return out, codeWriteMarkers().MatchString(code) || lang == "awk" && awkWriteMarkers().MatchString(code)
}
