#!/usr/bin/env bash
# make export: regenerate the series' topic folders from a development tree
# (default: the dev worktree in the cache). Each topic patches/series names
# is a branch topic/NAME there, on top of the topic before it (the first on
# the baseline tag); `git rebase --update-refs` keeps the branches on their
# commits when the series is rebased. A topic's folder gets its patches,
# numbered, and a cover letter: the subject and text come from the folder's
# previous cover letter (the one place they are written), the shortlog,
# diffstat and base-commit (with the earlier topics as prerequisite patch
# ids) from git, and its To: (maintainers) and Cc: (reviewers and lists)
# from the tree's scripts/get_maintainer.pl over the topic's patches.
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

# header NAME LINES: a "NAME: a, b" header of the lines, folded like git's,
# or nothing when there are none.
header() {
	[ -n "$2" ] || return 0
	awk -v name="$1" '
		{ line[NR] = $0 }
		END {
			for (i = 1; i <= NR; i++)
				printf "%s%s%s\n", i == 1 ? name ": " : " ",
					line[i], i < NR ? "," : ""
		}' <<<"$2"
}

# recipients PATCH...: the To: (maintainers) and Cc: (reviewers and lists,
# less whoever is in To:) headers for the patches, from the tree's
# scripts/get_maintainer.pl.
recipients() {
	local to cc
	to=$(get_maintainer --no-l --no-r "$@")
	cc=$(get_maintainer --no-m "$@" | grep -vxF -f <(echo "$to") || true)
	header To "$to"
	header Cc "$cc"
}

get_maintainer() {
	(cd "$tree" && ./scripts/get_maintainer.pl --no-rolestats --no-git \
		--no-git-fallback "$@")
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
	patches=()
	for patch in "$out"/*.patch; do
		[ "${patch##*/}" = 0000-cover-letter.patch ] || patches+=("$patch")
	done
	to=$(mktemp)
	recipients "${patches[@]}" >"$to"
	awk -v text="$text" -v date="$date" -v to="$to" '
		/^Date: / && !dated { print "Date: " date; dated = 1; next }
		/^Subject: / && !addressed {
			while ((getline line <to) > 0) print line
			addressed = 1
		}
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
	rm -f "$text" "$to" "$dir"/*.patch
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
