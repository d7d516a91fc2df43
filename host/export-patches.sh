#!/usr/bin/env bash
# make export: regenerate the series' topic folders from a development tree
# (default: the dev worktree in the cache). Each topic patches/series names
# is a branch topic/NAME there, on top of the topic before it (the first on
# the baseline tag); `git rebase --update-refs` keeps the branches on their
# commits when the series is rebased. A topic is exported as it would be
# sent: on the topics it depends on only (its commits are picked onto the
# last of them, or the baseline, where that is not the topic before it),
# so that its base-commit and prerequisite patch ids name what it needs and
# nothing else. Its folder gets its patches, numbered, and a cover letter:
# the subject and text come from the folder's previous cover letter (the
# one place they are written), the shortlog, diffstat and base-commit from
# git, the prerequisite patch ids from the exported patches (as b4 reads
# them), and its To: (maintainers) and Cc:
# (reviewers and lists) from the tree's scripts/get_maintainer.pl over the
# topic's patches.
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
# scripts/get_maintainer.pl. A filesystem nobody maintains (minix) goes
# to the VFS maintainers, with their reviewers and fsdevel on Cc.
recipients() {
	local to cc
	to=$(get_maintainer --no-l --no-r "$@")
	if [ -z "$to" ]; then
		to=$(get_maintainer --no-l --no-r -f fs/namei.c)
		cc=$( (get_maintainer --no-m "$@" && get_maintainer --no-m -f fs/namei.c) |
			awk '!seen[$0]++')
	else
		cc=$(get_maintainer --no-m "$@")
	fi
	cc=$(grep -vxF -f <(echo "$to") <<<"$cc" || true)
	header To "$to"
	header Cc "$cc"
}

# get_maintainer PATCH...: scripts/get_maintainer.pl with a fixed hash seed,
# as perl's hash order otherwise changes the order of names between runs.
get_maintainer() {
	(cd "$tree" && PERL_HASH_SEED=0 PERL_PERTURB_KEYS=0 \
		./scripts/get_maintainer.pl --no-rolestats --no-git \
		--no-git-fallback "$@")
}

# dep_base TOPIC: the branch TOPIC is sent on top of: the last topic it
# depends on, or the baseline. Its dependencies must be every topic before
# that one, so that the branch holds them and nothing else.
dep_base() {
	local deps before
	mapfile -t deps < <(topic_deps "$1")
	[ ${#deps[@]} -gt 0 ] || {
		echo baseline
		return
	}
	before=$(series_topics | sed "/^${deps[-1]}\$/q")
	[ "$before" = "$(printf '%s\n' "${deps[@]}")" ] ||
		die "patches/series: $1 depends on ${deps[*]}, not on every topic up to ${deps[-1]}"
	echo "topic/${deps[-1]}"
}

# sendable TOPIC PREVIOUS: a revision range of the topic's commits on
# top of what it depends on: in the tree itself when that is the topic
# before it, else picked onto it in a scratch worktree ($scratch).
sendable() {
	local base
	base=$(dep_base "$1")
	if [ "$(git -C "$tree" rev-parse "$base")" = "$(git -C "$tree" rev-parse "$2")" ]; then
		echo "$2..topic/$1"
		return
	fi
	git -C "$tree" worktree add -q --detach "$scratch" "$base"
	git -C "$scratch" cherry-pick --cleanup=verbatim "$2..topic/$1" >/dev/null ||
		die "topic $1 does not apply on $base alone: fix patches/series"
	echo "$base..$(git -C "$scratch" rev-parse HEAD)"
}

scratch=$(mktemp -d -u)
trap 'git -C "$tree" worktree remove -f "$scratch" 2>/dev/null || true' EXIT
base=baseline
total=0
mapfile -t topics < <(series_topics)
for topic in "${topics[@]}"; do
	branch=topic/$topic dir=$PATCH_DIR/$topic
	git -C "$tree" rev-parse --verify -q "$branch" >/dev/null ||
		die "$tree has no branch $branch"
	git -C "$tree" merge-base --is-ancestor "$base" "$branch" ||
		die "$branch is not on top of $base"
	range=$(sendable "$topic" "$base")
	[ -f "$dir/0000-cover-letter.patch" ] ||
		die "$dir/0000-cover-letter.patch: write the topic's cover letter first"
	text=$(mktemp)
	cover_text "$dir/0000-cover-letter.patch" >"$text"
	out=$(mktemp -d)
	# The cover letter is from the topic's author, not whoever exports it.
	GIT_COMMITTER_NAME=$(git -C "$tree" log -1 --format=%an "$branch") \
		GIT_COMMITTER_EMAIL=$(git -C "$tree" log -1 --format=%ae "$branch") \
		git -C "$tree" format-patch -q --no-signature --zero-commit \
		--numbered --cover-letter --base=baseline -o "$out" "$range"
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
	# The topics it depends on are exported already.
	write_prerequisites "$topic"
	git -C "$tree" worktree remove -f "$scratch" 2>/dev/null || true
	n=$(git -C "$tree" rev-list --count "$base..$branch")
	log "exported $topic: $n patches and its cover letter"
	total=$((total + n))
	base=$branch
done
[ "$(git -C "$tree" rev-parse "$base")" = "$(git -C "$tree" rev-parse HEAD)" ] ||
	log "warning: HEAD of $tree is past the last topic ($base): not exported"
log "exported $total patches in ${#topics[@]} topics from $tree"
