package classify

import "strings"

// Glob options a line may turn on. With extglob, !(x), @(x|y) and +(x)
// match names as * does; mvdan's parser reads them whatever extglob says,
// and a shell without extglob rejects the line, so they are taken as globs
// wherever they appear. With dotglob (shopt -s dotglob, or any GLOBIGNORE
// set) a glob component also matches names that start with a dot: ~/*/x
// reaches ~/.aws/x.

// hasExtGlob reports whether a path component holds an extended glob that
// * and ? do not already mark: !(…), @(…), +(…).
func hasExtGlob(s string) bool {
	return strings.Contains(s, "!(") || strings.Contains(s, "@(") || strings.Contains(s, "+(")
}

// shoptSetsDotglob reports whether shopt's words may turn dotglob on:
// shopt -s with dotglob among the names, or words only known at run time.
func shoptSetsDotglob(args []field) bool { return shoptSets(args, "dotglob") }

// shoptSets reports whether shop's arguments may turn the option name on
// (a run-time word may be any option).
func shoptSets(args []field, name string) bool {
	set, named := false, false
	for _, f := range args {
		switch {
		case f.dyn:
			return true
		case strings.HasPrefix(f.val, "-"):
			set = set || strings.Contains(f.val, "s")
		case f.val == name:
			named = true
		}
	}
	return set && named
}

// dotGlobs returns the path p with a dot put before each component that
// starts with a glob (* → .*), the names those components also match with
// dotglob on, so that the secret-path checks see them.
func dotGlobs(p string) string {
	comps := strings.Split(p, "/")
	for i, c := range comps {
		if c != "" && strings.IndexByte("*?[", c[0]) >= 0 {
			comps[i] = "." + c
		}
	}
	return strings.Join(comps, "/")
}

// dotGlobSecret reports whether a glob, with dotglob on, also reaches
// credentials through dot names (~/*/credentials: ~/.aws/credentials). A
// relative glob counts only where the directory is known: in a project
// (or a directory only known at run time) ./*/README.md is left alone,
// as ./.*/… would be judged against every dot-directory store.
func dotGlobSecret(dir string, f field) bool {
	if !f.glob {
		return false
	}
	v := dotGlobs(f.val)
	if !strings.HasPrefix(v, "/") && !strings.HasPrefix(v, "~") && !strings.HasPrefix(dir, "/") && !strings.HasPrefix(dir, "~") {
		return false
	}
	return isSecretPathIn(dir, v)
}

// extGlobComp reports whether a path component holds an extended glob.
func extGlobComp(c string) bool {
	return hasExtGlob(c) || strings.Contains(c, "*(") || strings.Contains(c, "?(")
}

// extGlobMatches reports whether the extended glob c may match the name
// (or name pattern) g: any name, but a dot name only when the pattern
// spells a dot (@(.aws), !(.x)), as without dotglob.
func extGlobMatches(c, g string) bool {
	return !strings.HasPrefix(g, ".") || strings.Contains(c, ".")
}
