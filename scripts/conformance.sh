#!/usr/bin/env bash
# `make conformance`: run the Knowledge Kit's store suites against git-records
# through its contract protocol, with conformance/knowledge-kit/adapter.mjs.
#
# The kit is the npm package @kontourai/flow-agents at a pinned version,
# fetched once with `npm pack` (no install, no scripts run) into
# .conformance/ (gitignored; delete it to fetch again). Each suite runs with
# `node --test` and the adapter; the script prints each suite's counts and
# fails when any test fails. The full TAP output is kept in
# .conformance/logs/<suite>.tap.
#
#   CONFORMANCE_SUITES="freshness entities"   run only these suites
#   GIT_RECORDS_BIN=/path/to/git-records      use this binary (default: build bin/git-records)
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD

kit_package=@kontourai/flow-agents
kit_version=6.3.0
suites=(${CONFORMANCE_SUITES:-contract-suite freshness supersede-propagation consolidate-incremental inbound-references entities})

for tool in node npm tar; do
  command -v "$tool" >/dev/null || { echo "conformance: $tool is required (apt-get install nodejs npm)" >&2; exit 2; }
done

if [ -z "${GIT_RECORDS_BIN:-}" ]; then
  CGO_ENABLED=0 go build -o bin/git-records ./cmd/git-records
  GIT_RECORDS_BIN=$repo/bin/git-records
fi
export GIT_RECORDS_BIN

# Fetch the kit unless this exact version is already unpacked.
cache=$repo/.conformance/flow-agents-$kit_version
kit=$cache/package/dist/claude-code/kits/knowledge
if [ ! -f "$cache/package/package.json" ] || ! grep -q "\"version\": \"$kit_version\"" "$cache/package/package.json"; then
  echo "conformance: fetching $kit_package@$kit_version from the npm registry" >&2
  rm -rf "$cache" && mkdir -p "$cache"
  tarball=$(cd "$cache" && npm pack --silent "$kit_package@$kit_version" | tail -n 1)
  tar -xzf "$cache/$tarball" -C "$cache"
fi
for suite in "${suites[@]}"; do
  [ -f "$kit/evals/$suite/suite.test.js" ] || { echo "conformance: no suite $suite in $kit/evals" >&2; exit 2; }
done

# The stores the suites create must not depend on the user's git config
# (a signing program, hooks, templates): each store sets up its own key.
work=$(mktemp -d "${TMPDIR:-/tmp}/git-records-conformance.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/home" "$repo/.conformance/logs"
export HOME=$work/home GIT_CONFIG_NOSYSTEM=1 TMPDIR=$work
export KNOWLEDGE_ADAPTER=$repo/conformance/knowledge-kit/adapter.mjs

echo "conformance: $kit_package@$kit_version with $("$GIT_RECORDS_BIN" --version 2>/dev/null | head -n 1), node $(node --version)"
failed=0
total_pass=0
total_fail=0
for suite in "${suites[@]}"; do
  log=$repo/.conformance/logs/$suite.tap
  start=$SECONDS
  status=0
  node --test --test-reporter=tap "$kit/evals/$suite/suite.test.js" >"$log" 2>&1 || status=$?
  pass=$(sed -n 's/^# pass //p' "$log" | tail -n 1)
  fail=$(sed -n 's/^# fail //p' "$log" | tail -n 1)
  cancelled=$(sed -n 's/^# cancelled //p' "$log" | tail -n 1)
  [ -n "$fail" ] && fail=$((fail + ${cancelled:-0})) # a cancelled test did not pass either
  printf '%-26s %4s passed %4s failed  (%ds)\n' "$suite" "${pass:-?}" "${fail:-?}" $((SECONDS - start))
  total_pass=$((total_pass + ${pass:-0}))
  total_fail=$((total_fail + ${fail:-0}))
  if [ "$status" -ne 0 ] || [ "${fail:-1}" != 0 ] || [ -z "$pass" ]; then
    failed=1
    # The failing tests, with their reasons (the full output is in the log).
    if grep -q '^ *not ok' "$log"; then
      grep -A 12 '^ *not ok' "$log" | head -n 80 | sed 's/^/    /'
    else
      tail -n 20 "$log" | sed 's/^/    /'
    fi
    echo "    full output: $log"
  fi
done
printf '%-26s %4d passed %4d failed\n' "total" "$total_pass" "$total_fail"
exit $failed
