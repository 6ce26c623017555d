#!/usr/bin/env bash
# Builds Gitea (the forge `make test-forge` pushes through) from its Go module
# at a pinned version, once per machine: the binary is cached outside the
# clone, keyed by version (GITEA_VERSION, default below). Prints, one a line,
# what the forge tests (e2e/forge) read:
#   GITEA_BIN=<the binary>
#   GITEA_STATIC_ROOT=<the module directory: Gitea reads its locale files
#                      and templates there, since the build embeds none>
set -euo pipefail

version=${GITEA_VERSION:-v1.27.3}
go=${GO:-go}
cache=${XDG_CACHE_HOME:-$HOME/.cache}/git-records/gitea-$version
bin=$cache/gitea

# The module cache keeps the source once downloaded; -json names its directory.
moddir=$("$go" mod download -json "code.gitea.io/gitea@$version" |
  sed -n 's/^[[:space:]]*"Dir": "\(.*\)",\{0,1\}$/\1/p')
if [ -z "$moddir" ] || [ ! -d "$moddir" ]; then
  echo "gitea.sh: go mod download code.gitea.io/gitea@$version gave no module directory" >&2
  exit 1
fi

if [ ! -x "$bin" ]; then
  mkdir -p "$cache"
  # go install refuses a module with replace directives, and the module
  # cache is read-only: build in a writable copy, then keep only the binary.
  src=$(mktemp -d "${TMPDIR:-/tmp}/gitea-src.XXXXXX")
  trap 'chmod -R u+w "$src" 2>/dev/null; rm -rf "$src"' EXIT
  cp -R "$moddir/." "$src"
  chmod -R u+w "$src"
  echo "gitea.sh: building Gitea $version (several minutes, once per machine)" >&2
  start=$(date +%s)
  # nice: the build takes every core for minutes on a shared machine.
  (cd "$src" && CGO_ENABLED=0 nice -n 19 "$go" build -trimpath -o "$bin.tmp" .)
  mv "$bin.tmp" "$bin"
  echo "gitea.sh: built $bin in $(( $(date +%s) - start ))s" >&2
fi

printf 'GITEA_BIN=%s\n' "$bin"
printf 'GITEA_STATIC_ROOT=%s\n' "$moddir"
