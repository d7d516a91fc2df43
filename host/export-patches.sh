#!/usr/bin/env bash
# make export: regenerate the series' topic folders from a development tree
# (default: the dev worktree in the cache). Each topic patches/series names
# is a branch topic/NAME there, on top of the topic before it (the first on
# the baseline tag); `git rebase --update-refs` keeps the branches on their
# commits when the series is rebased. A topic's folder gets its patches,
# numbered, and a cover letter: the subject and text come from the folder's
# previous cover letter (the one place they are written), the shortlog,
# diffstat and base-commit (with the earlier topics as prerequisite patch
# ids) from git.
#
#   host/export-patches.sh [TREE]
set -euo pipefail
# shellcheck source=host/common.sh
. "$(dirname "$0")/common.sh"

tree=${1:-$CACHE_DIR/dev}
git -C "$tree" rev-parse --verify -q baseline >/dev/null ||
	die "$tree has no baseline tag"

# cover_text COVER: the subject line, then the text, of a cover letter: what
# follows its headers up to git's shortlog ("Author (N):").
cover_text() {
	patch_subject "$1"
	awk 'body && /^[^ ].* \([0-9]+\):$/ { exit }
		body { print }
		!body && /^$/ { body = 1 }' "$1" | sed -e :a -e '/^\n*$/{$d;N;ba' -e '}'
}

base=baseline
total=0
mapfile -t topics < <(series_topics)
for topic in "${topics[@]}"; do
	branch=topic/$topic dir=$PATCH_DIR/$topic
	git -C "$tree" rev-parse --verify -q "$branch" >/dev/null ||
		die "$tree has no branch $branch"
	git -C "$tree" merge-base --is-ancestor "$base" "$branch" ||
		die "$branch is not on top of $base"
	[ -f "$dir/0000-cover-letter.patch" ] ||
		die "$dir/0000-cover-letter.patch: write the topic's cover letter first"
	text=$(mktemp)
	cover_text "$dir/0000-cover-letter.patch" >"$text"
	out=$(mktemp -d)
	# The cover letter is from the topic's author, not whoever exports it.
	GIT_COMMITTER_NAME=$(git -C "$tree" log -1 --format=%an "$branch") \
		GIT_COMMITTER_EMAIL=$(git -C "$tree" log -1 --format=%ae "$branch") \
		git -C "$tree" format-patch -q --no-signature --zero-commit \
		--numbered --cover-letter --base=baseline -o "$out" "$base..$branch"
	# The cover letter takes the date of the topic's last commit, so that
	# exporting an unchanged topic changes nothing.
	date=$(git -C "$tree" log -1 --format=%aD "$branch")
	awk -v text="$text" -v date="$date" '
		/^Date: / && !dated { print "Date: " date; dated = 1; next }
		/\*\*\* SUBJECT HERE \*\*\*/ {
			getline subject <text
			sub(/\*\*\* SUBJECT HERE \*\*\*/, subject)
		}
		/^\*\*\* BLURB HERE \*\*\*$/ {
			while ((getline line <text) > 0) print line
			next
		}
		{ print }' "$out/0000-cover-letter.patch" >"$out/cover.tmp"
	mv "$out/cover.tmp" "$out/0000-cover-letter.patch"
	rm -f "$text" "$dir"/*.patch
	mv "$out"/*.patch "$dir/"
	rmdir "$out"
	n=$(git -C "$tree" rev-list --count "$base..$branch")
	log "exported $topic: $n patches and its cover letter"
	total=$((total + n))
	base=$branch
done
[ "$(git -C "$tree" rev-parse "$base")" = "$(git -C "$tree" rev-parse HEAD)" ] ||
	log "warning: HEAD of $tree is past the last topic ($base): not exported"
log "exported $total patches in ${#topics[@]} topics from $tree"
