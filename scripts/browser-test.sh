#!/usr/bin/env bash
# `make test-browser`: the web view (`git records serve`) and the Mermaid
# output of `git records graph` in a real browser, headless Chromium
# (Debian's chromium package; installed here when missing and we are root).
# Mermaid is the npm package's own bundle at a pinned version, fetched once
# with `npm pack` into .browser/ (gitignored); the binary never carries it.
# Screenshots and the rendered Mermaid DOM are kept in .browser/artifacts/.
#
#   SCREENSHOTS_TO=docs/img   also copy the record and graph screenshots there
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD

if ! command -v chromium >/dev/null && [ -z "${CHROMIUM:-}" ]; then
  if [ "$(id -u)" = 0 ]; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium
  else
    echo "test-browser: chromium is required (sudo apt-get install chromium)" >&2
    exit 2
  fi
fi
for tool in npm tar; do
  command -v "$tool" >/dev/null || { echo "test-browser: $tool is required (apt-get install npm)" >&2; exit 2; }
done

mermaid_version=12.3.0
cache=$repo/.browser/mermaid-$mermaid_version
if [ ! -f "$cache/package/dist/mermaid.min.js" ]; then
  echo "test-browser: fetching mermaid@$mermaid_version from the npm registry" >&2
  rm -rf "$cache" && mkdir -p "$cache"
  tarball=$(cd "$cache" && npm pack --silent "mermaid@$mermaid_version" | tail -n 1)
  tar -xzf "$cache/$tarball" -C "$cache" package/dist/mermaid.min.js package/LICENSE package/package.json
fi

export MERMAID_JS=$cache/package/dist/mermaid.min.js
export BROWSER_ARTIFACTS=$repo/.browser/artifacts
go test -tags browser -run TestBrowser -count=1 -v ./cmd/git-records/ 2>&1 | grep -v '^=== \(RUN\|PAUSE\|CONT\)' 
status=${PIPESTATUS[0]}
if [ "$status" = 0 ] && [ -n "${SCREENSHOTS_TO:-}" ]; then
  mkdir -p "$SCREENSHOTS_TO"
  cp "$BROWSER_ARTIFACTS/record.png" "$SCREENSHOTS_TO/serve-record.png"
  cp "$BROWSER_ARTIFACTS/graph.png" "$SCREENSHOTS_TO/serve-graph.png"
fi
exit "$status"
