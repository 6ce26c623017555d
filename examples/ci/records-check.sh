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
# as Markdown (to $RECORDS_SUMMARY when set, else stdout), then verifies
# every commit HEAD has and BASE lacks: signatures by allowed signers,
# evidence trailers, record invariants (nothing deleted, logs only
# appended), policy. Exit status: 0 clean, 1 violations, 2 usage or an
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

git records diff --format markdown "$base...$head" >&3

status=0
report=$(git records verify "$base..$head" 2>&1) || status=$?
printf '%s\n' "$report"
if [ -n "${RECORDS_SUMMARY:-}" ]; then
	printf '\n### Verification\n\n```\n%s\n```\n' "$report" >&3
fi
if [ "$status" -ne 0 ]; then
	echo "records-check: violations in $base..$head" >&2
fi
exit "$status"
