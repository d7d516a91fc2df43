#!/usr/bin/env bash
# make dev-tree: the development tree host/export-patches.sh reads, made
# from patches/: a worktree of the prepared tree on the baseline, one
# commit per patch with its whole message (the notes below its "---" line
# included, which git am would drop), author and date, and a branch
# topic/NAME at each topic's last patch, the last one checked out. Edit
# there (git rebase -i --update-refs baseline), then make export.
#
#   host/import-patches.sh [TREE]      (default: the dev worktree in the cache)
set -euo pipefail
# shellcheck source=host/common.sh
. "$(dirname "$0")/common.sh"

tree=${1:-$CACHE_DIR/dev}
[ ! -e "$tree" ] || die "$tree exists: work in it, or remove it (git worktree remove) first"
git -C "$SRC_DIR" rev-parse --verify -q baseline >/dev/null ||
	die "no prepared tree at $SRC_DIR (make tree)"
git -C "$SRC_DIR" worktree add -q --detach "$tree" baseline

# message PATCH: the commit message of a format-patch file: the subject
# without its [PATCH n/m] tag, a blank line, and the body up to the "---"
# line that precedes the diffstat, notes included.
message() {
	awk 'NR == FNR {
			if (/^diff --git / && !diff) diff = FNR
			if (!diff && /^---$/) cut = FNR
			next
		}
		!body {
			if (/^Subject: /) { subject = substr($0, 10); more = 1; next }
			if (more && /^ /) { subject = subject $0; next }
			more = 0
			if (/^$/) {
				sub(/^\[PATCH[^]]*\] /, "", subject)
				print subject "\n"
				body = 1
			}
			next
		}
		FNR < cut' "$1" "$1"
}

msg=$(mktemp)
trap 'rm -f "$msg"' EXIT
n=0
for topic in $(series_topics); do
	while read -r patch; do
		file=$PATCH_DIR/$patch
		message "$file" >"$msg"
		author=$(sed -n '0,/^From: /s/^From: //p' "$file")
		date=$(sed -n '0,/^Date: /s/^Date: //p' "$file")
		git -C "$tree" apply --index "$file" ||
			die "$patch does not apply"
		email=${author##*<}
		GIT_COMMITTER_NAME=${author% <*} GIT_COMMITTER_EMAIL=${email%>} \
			GIT_COMMITTER_DATE=$date git -C "$tree" commit -q \
			--cleanup=verbatim --no-verify --author="$author" \
			--date="$date" -F "$msg"
		n=$((n + 1))
	done < <(topic_patches "$topic")
	git -C "$tree" branch -f "topic/$topic" HEAD
done
git -C "$tree" checkout -q "topic/$topic"
log "imported $n patches into $tree (branch topic/$topic checked out)"
