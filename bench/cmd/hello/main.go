// Command hello prints one line and exits: the benchmarks run it next to
// `git --version` to show what any Go process costs on the machine, the
// floor under every per-process row of the table.
package main

import "os"

func main() { os.Stdout.WriteString("hello\n") }
