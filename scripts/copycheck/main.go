// Command copycheck lists runs of lines that the project's Go files share
// with the Go sources of its dependencies and of Go's standard library: the
// project carries no copy of another project's code, and this is how to
// check it. Lines are compared with their whitespace collapsed and blank
// lines left out; a run is reported when it is at least -min lines long.
//
//	go run ./scripts/copycheck            # the module's dependencies and GOROOT/src
//	go run ./scripts/copycheck -min 8 DIR # and the Go files under DIR too
//
// It exits 1 when it finds a run, so it can gate a check.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"hash/fnv"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
)

type line struct {
	text string
	num  int // 1-based line number in the file
}

// source is one reference file's place, kept for the report.
type source struct {
	path string
	num  int
}

func main() {
	minRun := flag.Int("min", 10, "shortest run of shared lines to report")
	flag.Parse()
	if *minRun < 2 {
		fmt.Fprintln(os.Stderr, "copycheck: -min must be at least 2")
		os.Exit(2)
	}
	root, err := goOutput("list", "-m", "-f", "{{.Dir}}")
	check(err)
	refDirs, err := referenceDirs()
	check(err)
	refDirs = append(refDirs, flag.Args()...)

	// Every window of minRun lines of the reference sources, by hash.
	windows := map[uint64]source{}
	files := 0
	for _, dir := range refDirs {
		walkGo(dir, "", func(path string) {
			files++
			lines := readLines(path)
			for i := 0; i+*minRun <= len(lines); i++ {
				h := windowHash(lines[i : i+*minRun])
				if _, seen := windows[h]; !seen {
					windows[h] = source{path, lines[i].num}
				}
			}
		})
	}
	fmt.Fprintf(os.Stderr, "copycheck: %d reference files in %d trees, %d windows of %d lines\n",
		files, len(refDirs), len(windows), *minRun)

	found := 0
	walkGo(root, root, func(path string) {
		lines := readLines(path)
		for i := 0; i+*minRun <= len(lines); {
			src, ok := windows[windowHash(lines[i:i+*minRun])]
			if !ok {
				i++
				continue
			}
			end := i + *minRun // extend the run while the next window matches too
			for end < len(lines) {
				if _, ok := windows[windowHash(lines[end-*minRun+1:end+1])]; !ok {
					break
				}
				end++
			}
			rel, _ := filepath.Rel(root, path)
			fmt.Printf("%s:%d-%d (%d lines) = %s:%d\n", rel, lines[i].num, lines[end-1].num,
				end-i, src.path, src.num)
			found++
			i = end
		}
	})
	if found > 0 {
		os.Exit(1)
	}
}

// referenceDirs returns GOROOT/src and the directories of the modules
// whose packages the project's packages and tests import.
func referenceDirs() ([]string, error) {
	goroot, err := goOutput("env", "GOROOT")
	if err != nil {
		return nil, err
	}
	out, err := goOutput("list", "-deps", "-test", "-f", "{{with .Module}}{{if not .Main}}{{.Dir}}{{end}}{{end}}", "./...")
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	dirs := []string{filepath.Join(goroot, "src")}
	for _, d := range strings.Fields(out) {
		if !seen[d] {
			seen[d] = true
			dirs = append(dirs, d)
		}
	}
	sort.Strings(dirs[1:])
	return dirs, nil
}

// walkGo calls f for each .go file under dir, leaving out hidden
// directories. In the project (projectRoot set) it leaves out this command;
// in a reference tree, its testdata.
func walkGo(dir, projectRoot string, f func(string)) {
	self := filepath.Join(projectRoot, "scripts", "copycheck")
	_ = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if !d.IsDir() {
			if strings.HasSuffix(path, ".go") {
				f(path)
			}
			return nil
		}
		switch name := d.Name(); {
		case path == dir:
		case strings.HasPrefix(name, "."),
			projectRoot != "" && path == self,
			projectRoot == "" && name == "testdata":
			return filepath.SkipDir
		}
		return nil
	})
}

// readLines returns the file's lines with runs of white space collapsed to
// one space, blank lines left out.
func readLines(path string) []line {
	file, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer file.Close()
	var lines []line
	sc := bufio.NewScanner(file)
	sc.Buffer(make([]byte, 64*1024), 16*1024*1024)
	for n := 1; sc.Scan(); n++ {
		if t := strings.Join(strings.Fields(sc.Text()), " "); t != "" {
			lines = append(lines, line{t, n})
		}
	}
	return lines
}

func windowHash(lines []line) uint64 {
	h := fnv.New64a()
	for _, l := range lines {
		h.Write([]byte(l.text))
		h.Write([]byte{'\n'})
	}
	return h.Sum64()
}

func goOutput(args ...string) (string, error) {
	out, err := exec.Command("go", args...).Output()
	return strings.TrimSpace(string(out)), err
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "copycheck:", err)
		os.Exit(2)
	}
}
