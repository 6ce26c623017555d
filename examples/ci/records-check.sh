#!/bin/sh
# records-check.sh BASE HEAD
#
# The records pull-request check for any CI (GitLab, Jenkins, Buildkite, a
# pre-merge hook): what examples/github-actions/records.yml does, as plain
# shell. Fetch both revisions first, then run it inside the repository:
#
#   git fetch origin records 'refs/merge-requests/42/head:refs/mr/42'
#   RECORDS_SUMMARY=records.md examples/ci/records-check.sh origin/records refs/mr/42
#
# It writes the record-level diff of HEAD against its merge base with BASE
# as Markdown, with the verification of every commit HEAD has and BASE
# lacks (signatures by allowed signers, evidence trailers, record invariants
# (nothing deleted, logs only appended), policy) in the same summary: to
# stdout, and appended to $RECORDS_SUMMARY when set. Exit status: 0 clean, 1 violations, 2 usage or an
# unknown revision, other values as git-records documents them.
set -eu

if [ "$#" -ne 2 ]; then
	echo "usage: $0 BASE HEAD" >&2
	exit 2
fi
base=$1
head=$2
for rev in "$base" "$head"; do
	if ! git rev-parse --quiet --verify "$rev^{commit}" >/dev/null; then
		echo "records-check: unknown revision $rev (fetch it first)" >&2
		exit 2
	fi
done

if [ -n "${RECORDS_SUMMARY:-}" ]; then
	exec 3>>"$RECORDS_SUMMARY"
else
	exec 3>&1
fi

# One run: the diff's violation count and its Verification block are the
# same verification of $base..$head, so the summary agrees with itself.
summary=$(mktemp "${TMPDIR:-/tmp}/records-summary.XXXXXX")
trap 'rm -f "$summary"' EXIT
status=0
git records diff --format markdown --verify "$base...$head" >"$summary" || status=$?
if [ -n "${RECORDS_SUMMARY:-}" ]; then
	cat "$summary" >&3
fi
cat "$summary"
if [ "$status" -ne 0 ]; then
	echo "records-check: violations in $base..$head" >&2
fi
exit "$status"
