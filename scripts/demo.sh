#!/usr/bin/env bash
# The five-minute tour, run for real on a throwaway repository: init with a
# generated signing key, records with wikilinks, queries, verification and a
# diff between two record branches.
set -euo pipefail
bin=$(cd "$(dirname "${1:-bin/git-records}")" && pwd)/$(basename "${1:-bin/git-records}")
demo=$(mktemp -d "${TMPDIR:-/tmp}/git-records-demo.XXXXXX")
trap 'rm -rf "$demo"' EXIT
# The demo's git identity goes to its own home, whatever the caller's
# environment names as the global file: with GIT_CONFIG_GLOBAL=/dev/null
# (a common way to ignore one's settings), `git config --global` run as
# root would replace /dev/null with a regular file.
export PATH="$(dirname "$bin"):$PATH" HOME="$demo/home" GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL="$demo/home/.gitconfig"
unset XDG_CONFIG_HOME
mkdir -p "$HOME"
git config --global user.name "Demo Reviewer"
git config --global user.email reviewer@example.com
git config --global init.defaultBranch main
export GIT_RECORDS_AGENT=demo-agent

step() { printf '\n\033[1m$ %s\033[0m\n' "$*"; "$@"; }

cd "$demo" && git init -q app && cd app
echo 'func refresh() {}' > auth.go && git add auth.go && git commit -qm "code"

step git records init --generate-key
step git records create --id rfc-6749 --type raw --category auth.standards \
  --title "RFC 6749: OAuth 2.0" --body "Section 10.4: refresh tokens may rotate."
concept=$(git records create --type concept --category auth.tokens --alias auth/token-refresh \
  --title "Token refresh policy" --tag security \
  --body "Refresh tokens rotate on every use, as [[rfc-6749|the RFC]] allows.")
echo "created concept $concept"
step git records create --type review.finding --category auth.tokens --title "Refresh token reused after rotation" \
  --scope auth.go --link "related:auth/token-refresh" --body "The handler in auth.go accepts a rotated token. See [[auth/token-refresh]]."

step git records show auth/token-refresh
step git records links auth/token-refresh
step git records list --category auth --prefix
step git records list --type concept --json

git branch -q records-review records
git records --ref records-review update auth/token-refresh --title "Token refresh and reuse detection" \
  --body "Refresh tokens rotate on every use; a reused token revokes the family ([[rfc-6749]])." --note "after the finding"
step git records log "${concept:0:8}" --ref records-review

step git records fresh
echo 'func refresh() { rotate() }' > auth.go
printf '\nauth.go changed (not committed): the finding about it is stale now\n'
step git records fresh
git checkout -q auth.go

step git records verify
step git records diff records records-review
step git verify-commit records
step git log --format='%h %s%n    Op=%(trailers:key=Record-Op,valueonly,separator=%x2C) Agent=%(trailers:key=Record-Agent,valueonly)' records
printf '\nThe working tree and the index were never touched by git records:\n'
step git status --short --branch
