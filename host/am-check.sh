#!/usr/bin/env bash
# Check that each topic of the series applies with git am, on top of the
# topics patches/series says it depends on, to a freshly extracted
# linux-source-6.12 tree (its own extraction, not the prepared tree), and
# that its cover letter names that tree and those patches as b4 needs them.
set -euo pipefail
# shellcheck source=host/common.sh
. "$(dirname "$0")/common.sh"

work=$CACHE_DIR/am-check
import_tarball "$work"
# git am may start a detached gc, which would still be writing objects
# when the tree is removed at the end.
git -C "$work" config gc.auto 0
fresh=$(git -C "$work" rev-parse baseline)

mapfile -t topics < <(series_topics)
for topic in "${topics[@]}"; do
	mapfile -t deps < <(topic_deps "$topic")
	git -C "$work" checkout -q -f -B "check-$topic" "$fresh"
	n=0
	while read -r patch; do
		git -C "$work" "${GIT_ID[@]}" am -q --keep-cr "$PATCH_DIR/$patch" || {
			git -C "$work" am --abort || true
			die "am-check: $patch does not apply (topic $topic on ${deps[*]:-the fresh tree})"
		}
		n=$((n + 1))
	done < <(topic_patches "${deps[@]}" "$topic")
	# The cover letter names the tree the topic was exported on.
	base=$(sed -n 's/^base-commit: //p' "$PATCH_DIR/$topic/0000-cover-letter.patch")
	[ "$base" = "$fresh" ] ||
		die "am-check: $topic's base-commit $base is not the fresh tree's $fresh"
	# And the patches it needs first, by the ids b4 computes.
	diff <(prerequisite_ids "$topic") \
		<(grep '^prerequisite-patch-id: ' "$PATCH_DIR/$topic/0000-cover-letter.patch") >&2 ||
		die "am-check: $topic's cover letter lists other prerequisite-patch-ids than its dependencies' patches have (< wanted, > listed): make export"
	log "am-check: $topic applies on ${deps[*]:-the fresh tree} ($n patches)"
done
rm -rf "$work"
log "am-check passed: ${#topics[@]} topics"
