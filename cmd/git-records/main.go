// Command git-records keeps signed, linked knowledge records on a git
// branch. Installed on PATH as git-records it also runs as `git records …`.
package main

import "os"

func main() {
	os.Exit(newApp(os.Stdin, os.Stdout, os.Stderr).run(os.Args[1:]))
}
