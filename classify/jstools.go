package classify

import (
	"path"
	"slices"
	"strings"
)

// The JavaScript tools of a web project load their configuration as a
// module, running its code at every start (eslint's eslint.config.js,
// jest's jest.config.js, webpack's webpack.config.js …), however they are
// started: eslint on the PATH, npx eslint, npm exec, node_modules/.bin/eslint
// or a package.json script. And a project's installed packages
// (node_modules/NAME, node_modules/.bin/NAME) are the code npx NAME, npm
// exec, yarn and node_modules/.bin/NAME run, and any node program may load.
// Where the line wrote such a file, what it holds is judged as the code it
// is. Found by red-team round 61.

// jsExts are the extensions of a module a tool loads its configuration
// from (TypeScript through its own loader: jiti, esbuild, ts-node).
var jsExts = []string{".js", ".cjs", ".mjs", ".ts", ".cts", ".mts"}

// jsTool is a tool's configuration: the base names it finds in the
// working directory (each with every jsExts extension), and its options
// naming a configuration file (short letter, long options).
type jsTool struct {
	bases []string
	short string
	long  []string
}

// jsTools are the tools by the names they run under.
var jsTools = map[string]jsTool{
	"eslint":             {bases: []string{"eslint.config", ".eslintrc"}, short: "c", long: []string{"--config"}},
	"prettier":           {bases: []string{"prettier.config", ".prettierrc"}, long: []string{"--config"}},
	"jest":               {bases: []string{"jest.config"}, short: "c", long: []string{"--config"}},
	"mocha":              {bases: []string{".mocharc"}, long: []string{"--config"}},
	"webpack":            {bases: []string{"webpack.config", "webpackfile"}, short: "c", long: []string{"--config"}},
	"webpack-cli":        {bases: []string{"webpack.config", "webpackfile"}, short: "c", long: []string{"--config"}},
	"webpack-dev-server": {bases: []string{"webpack.config", "webpackfile"}, short: "c", long: []string{"--config"}},
	"rollup":             {bases: []string{"rollup.config"}, short: "c", long: []string{"--config"}},
	"vite":               {bases: []string{"vite.config"}, short: "c", long: []string{"--config"}},
	"vitest":             {bases: []string{"vitest.config", "vite.config", "vitest.workspace"}, short: "c", long: []string{"--config"}},
	"babel":              {bases: []string{"babel.config", ".babelrc"}, long: []string{"--config-file"}},
	"postcss":            {bases: []string{"postcss.config", ".postcssrc"}, long: []string{"--config"}},
	"stylelint":          {bases: []string{"stylelint.config", ".stylelintrc"}, long: []string{"--config"}},
	"tailwindcss":        {bases: []string{"tailwind.config"}, short: "c", long: []string{"--config"}},
	"next":               {bases: []string{"next.config"}},
	"nuxt":               {bases: []string{"nuxt.config"}},
	"nuxi":               {bases: []string{"nuxt.config"}},
	"astro":              {bases: []string{"astro.config"}, long: []string{"--config"}},
	"svelte-kit":         {bases: []string{"svelte.config", "vite.config"}},
	"vue-cli-service":    {bases: []string{"vue.config"}},
	"remix":              {bases: []string{"remix.config"}},
	"commitlint":         {bases: []string{"commitlint.config", ".commitlintrc"}, short: "g", long: []string{"--config"}},
	"lint-staged":        {bases: []string{"lint-staged.config", ".lintstagedrc"}, short: "c", long: []string{"--config"}},
	"nyc":                {bases: []string{"nyc.config", ".nycrc"}},
	"ava":                {bases: []string{"ava.config"}, long: []string{"--config"}},
	"karma":              {bases: []string{"karma.conf"}},
	"playwright":         {bases: []string{"playwright.config"}, short: "c", long: []string{"--config"}},
	"cypress":            {bases: []string{"cypress.config"}, short: "C", long: []string{"--config-file"}},
	"tsup":               {bases: []string{"tsup.config"}, long: []string{"--config"}},
	"gulp":               {bases: []string{"gulpfile", "Gulpfile"}, short: "f", long: []string{"--gulpfile"}},
	"grunt":              {bases: []string{"Gruntfile", "gruntfile"}, long: []string{"--gruntfile"}},
	"semantic-release":   {bases: []string{"release.config", ".releaserc"}},
	"release-it":         {bases: []string{".release-it"}, short: "c", long: []string{"--config"}},
	"docusaurus":         {bases: []string{"docusaurus.config"}},
	"electron-forge":     {bases: []string{"forge.config"}},
	"typedoc":            {bases: []string{"typedoc.config"}, long: []string{"--options"}},
	"knip":               {bases: []string{"knip.config"}, short: "c", long: []string{"--config"}},
	"storybook":          {bases: []string{".storybook/main"}},
}

// jsToolConfig judges the configuration files u's tool loads that the
// line wrote; a package manager (npm run, npm test, yarn build …) runs
// scripts that may start any of the tools, so it loads any of them.
func (a *analyzer) jsToolConfig(u *unit) {
	if len(a.files) == 0 {
		return
	}
	var tools []jsTool
	if t, ok := jsTools[u.name]; ok {
		tools = append(tools, t)
	} else if packageManagers.has(u.name) {
		for _, t := range jsTools {
			tools = append(tools, jsTool{bases: t.bases})
		}
	}
	for _, t := range tools {
		var files []field
		if t.short != "" || len(t.long) > 0 {
			files = optValues(u, t.short, t.long...)
		}
		for _, b := range t.bases {
			for _, ext := range jsExts {
				files = append(files, field{val: b + ext})
			}
		}
		for _, f := range files {
			a.nodeFile(u, nil, f)
		}
	}
}

// runsNodeModules reports whether u runs code of the project's installed
// packages: a package manager or node, a bin by its node_modules path, a
// tool of jsTools (which load plugins), or a command a package manager
// runs (npx NAME, npm exec NAME: node_modules/.bin/NAME first).
func runsNodeModules(u *unit) bool {
	if packageManagers.has(u.name) || u.name == "node" || u.name == "nodejs" || strings.Contains(u.prog, "node_modules/") {
		return true
	}
	if _, ok := jsTools[u.name]; ok {
		return true
	}
	for _, w := range u.wrappers {
		if packageManagers.has(w) {
			return true
		}
	}
	return false
}

// nodeModulesCode judges the files the line wrote below a node_modules
// directory that u may run: a bin (node_modules/.bin/NAME, by its #! line)
// or a package's module (node_modules/NAME/bin/NAME.js, which the .bin
// symlink npm made names).
func (a *analyzer) nodeModulesCode(u *unit) {
	if len(a.files) == 0 || !runsNodeModules(u) {
		return
	}
	inModules := func(k string) bool {
		if !strings.HasPrefix(k, "node_modules/") && !strings.Contains(k, "/node_modules/") {
			return false
		}
		ext := path.Ext(k)
		return ext == "" || ext == ".jsx" || ext == ".tsx" || slices.Contains(jsExts, ext)
	}
	for _, key := range a.writtenFiles(inModules) {
		for _, t := range a.keyTexts(u, key) {
			if strings.HasPrefix(t, "#!") {
				a.writtenText(u, key, t, a.script)
			} else {
				a.moreCode(u, "node", t)
			}
		}
	}
}
