package classify

import (
	"path"
	"strings"
)

// The JVM's own options that run a command or read more options (found by
// red-team round 60): HotSpot runs the commands of -XX:OnError=CMD and
// -XX:OnOutOfMemoryError=CMD (';'-separated, each with /bin/sh -c) when it
// crashes or first runs out of memory, which a small heap makes happen at
// once (java -Xmx3m '-XX:OnOutOfMemoryError=rm -rf ~' -version). They are
// judged where the JVM gets them: java's arguments, the -J options the
// JDK's tools pass on, the files of options it reads (@FILE,
// -XX:VMOptionsFile, -XX:Flags), and the project files build tools put in
// its options (Maven's .mvn/jvm.config, Gradle's org.gradle.jvmargs), where
// the line wrote them. The JVM options variables are riskyEnv's.

// jvmCommandOpts are the options whose value is commands the JVM runs.
var jvmCommandOpts = []string{"-xx:onerror=", "-xx:onoutofmemoryerror="}

// jvmFileOpts are the options naming a file of more options; flagsOpt's
// file holds them without their -XX: (+Flag, Flag=value).
var jvmFileOpts = []string{"-xx:flags=", "-xx:vmoptionsfile=", "@"}

const flagsOpt = "-xx:flags="

// jvmLaunchers take JVM options as their own arguments.
var jvmLaunchers = newSet("java", "javaw")

// jvmPassPrefix are the prefixes by which a program hands an option to
// the JVM it runs (javac -J-Xmx1g; jshell -R… to its remote JVM).
var jvmPassPrefix = func() map[string][]string {
	m := map[string][]string{"jshell": {"-J", "-R"}}
	for _, n := range strings.Fields(`javac jar javadoc javap jlink jpackage jdeps jarsigner keytool jconsole jcmd jinfo
		jmap jps jstack jstat jstatd jhsdb jfr jrunscript rmiregistry serialver jmod jdeprscan jimage jdb
		kotlin kotlinc scala scalac sbt`) {
		m[n] = []string{"-J"}
	}
	return m
}()

// mavenLaunchers read .mvn/jvm.config of the project's base directory;
// gradleLaunchers read org.gradle.jvmargs of gradle.properties.
var (
	mavenLaunchers  = newSet("mvn", "mvnw", "mvnd", "mvnDebug")
	gradleLaunchers = newSet("gradle", "gradlew")
)

// jvmOptions judges the JVM options u gives its JVM.
func (a *analyzer) jvmOptions(u *unit) {
	direct, pass := jvmLaunchers.has(u.name), jvmPassPrefix[u.name]
	for _, f := range u.args {
		if !direct && len(pass) == 0 {
			break
		}
		if direct {
			a.jvmOption(u, f, 0)
			continue
		}
		for _, p := range pass {
			if v, ok := strings.CutPrefix(f.val, p); ok {
				f.val = v
				a.jvmOption(u, f, 0)
			}
		}
	}
	a.projectJvmOptions(u)
}

// projectJvmOptions judges the JVM options of the project files u's build
// tool reads, where the line wrote them.
func (a *analyzer) projectJvmOptions(u *unit) {
	if !mavenLaunchers.has(u.name) && !gradleLaunchers.has(u.name) {
		return
	}
	dir := "."
	if fs := optValues(u, "f", "--file"); len(fs) > 0 {
		dir = path.Dir(fs[len(fs)-1].val) // mvn -f d/pom.xml: d is the base directory
	}
	switch {
	case mavenLaunchers.has(u.name):
		for _, t := range a.writtenTexts(u, nil, field{val: path.Join(dir, ".mvn/jvm.config")}) {
			a.jvmOptionText(u, t, false, 1)
		}
	case gradleLaunchers.has(u.name):
		for _, t := range a.writtenTexts(u, nil, field{val: "gradle.properties"}) {
			for l := range strings.Lines(t) {
				k, v, ok := strings.Cut(l, "=")
				if ok && strings.TrimSpace(k) == "org.gradle.jvmargs" {
					a.jvmOptionText(u, v, false, 1)
				}
			}
		}
	}
}

// jvmOption judges one JVM option: the commands it runs, the written file
// of options it names.
func (a *analyzer) jvmOption(u *unit, f field, depth int) {
	low := strings.ToLower(f.val)
	for _, o := range jvmCommandOpts {
		if strings.HasPrefix(low, o) {
			if f.dyn {
				u.script = &stream{traits: trUnknown}
				return
			}
			cmd := strings.Trim(f.val[len(o):], `"'`)
			cmd = strings.NewReplacer("%p", "1", "%%", "%").Replace(cmd) // the JVM's pid
			a.shellString(u, field{val: cmd, src: f.src})
			return
		}
	}
	for _, o := range jvmFileOpts {
		if strings.HasPrefix(low, o) && depth < 4 {
			file := f
			file.val = f.val[len(o):]
			for _, t := range a.writtenTexts(u, nil, file) {
				a.jvmOptionText(u, t, o == flagsOpt, depth+1)
			}
		}
	}
}

// jvmOptionText judges the options of a file's text (quoted words kept
// whole); flags: a -XX:Flags file, whose options lack their -XX:.
func (a *analyzer) jvmOptionText(u *unit, text string, flags bool, depth int) {
	for _, w := range jvmWords(text) {
		if flags && !strings.HasPrefix(w, "-") {
			w = "-XX:" + strings.TrimLeft(w, "+-")
		}
		a.jvmOption(u, field{val: w}, depth)
	}
}

// jvmWords splits a text of options at white space, a quoted part kept
// in its word (the JVM's @FILE and -XX:VMOptionsFile quote so).
func jvmWords(text string) []string { return splitQuoted(text, false) }
