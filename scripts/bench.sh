#!/usr/bin/env bash
# `make bench`: measure git-records against the git CLI plumbing doing the
# same work, at 1,000 and 10,000 records, and print a Markdown table.
#
# The stores are seeded once under .bench/ (gitignored; delete it to seed
# again). Each benchmark interleaves an operation, its git baseline and both
# store sizes in one loop, so every ratio compares numbers taken under the
# same load; values are medians over BENCH_COUNT runs, ratios medians of
# each run's ratio.
#
#   BENCH_COUNT=5 BENCH_TIME=2s  runs and minimum time per benchmark
#   BENCH=Show                   only benchmarks matching this regexp
#   BENCH_SIZES=1000             only these store sizes
#   BENCH_PROFILE=1              also write .bench/cpu.prof (go tool pprof -top)
set -euo pipefail
cd "$(dirname "$0")/.."

count=${BENCH_COUNT:-5}
benchtime=${BENCH_TIME:-2s}
export GIT_RECORDS_BIN=${GIT_RECORDS_BIN:-$PWD/bin/git-records}
[ -x "$GIT_RECORDS_BIN" ] || CGO_ENABLED=0 go build -o "$GIT_RECORDS_BIN" ./cmd/git-records
# The mcp benchmark runs `git-records mcp`, which execs the git-records-server
# next to it.
server=$(dirname "$GIT_RECORDS_BIN")/git-records-server
[ -x "$server" ] || CGO_ENABLED=0 go build -o "$server" ./cmd/git-records-server

mkdir -p .bench
out=.bench/bench.txt
profile=()
if [ -n "${BENCH_PROFILE:-}" ]; then
  profile=(-cpuprofile "$PWD/.bench/cpu.prof" -o "$PWD/.bench/bench.test")
fi

echo "git-records benchmarks: $(git --version), $(go version | cut -d' ' -f3), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)" >&2
go test -run '^$' -bench "${BENCH:-.}" -benchtime "$benchtime" -count "$count" -timeout 60m \
  "${profile[@]}" ./bench/ | tee "$out" >&2

echo
go run ./bench/cmd/benchtable <"$out"
