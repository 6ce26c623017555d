// Package bench measures git-records against the git CLI doing the same
// work in the same run: `make bench` (scripts/bench.sh) runs the benchmarks
// in bench_test.go and prints their table with bench/cmd/benchtable.
//
// Stores of 1,000 and 10,000 records are seeded once under .bench/ in the
// repository (gitignored) and reused by later runs; delete .bench/ to seed
// again. Every number the table reports is a ratio against a baseline
// measured in the same run, because the machines this runs on are shared
// and noisy.
package bench
