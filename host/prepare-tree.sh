#!/usr/bin/env bash
# Extract linux-source-6.12 into the cache as a git repository with one
# baseline commit, then apply the series (patches/series) with git am. Re-running is
# cheap: the tree is only rebuilt from the baseline when the series changed.
set -euo pipefail
# shellcheck source=host/common.sh
. "$(dirname "$0")/common.sh"

stamp=$SRC_DIR/.series-applied
want=$(series_hash)

if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
	exit 0
fi

[ -d "$SRC_DIR/.git" ] || import_tarball "$SRC_DIR"

if [ -n "$(git -C "$SRC_DIR" status --porcelain --untracked-files=no)" ]; then
	die "$SRC_DIR has uncommitted changes: commit or stash them first"
fi

log "applying patches/series onto the baseline"
git -C "$SRC_DIR" am --abort >/dev/null 2>&1 || true
# Only files the series touches change on disk, so the out-of-tree build
# stays incremental.
git -C "$SRC_DIR" checkout -q -B series baseline
n=0
while read -r patch; do
	if ! git -C "$SRC_DIR" "${GIT_ID[@]}" am -q --keep-cr "$PATCH_DIR/$patch"; then
		git -C "$SRC_DIR" am --abort || true
		die "patch $patch does not apply"
	fi
	n=$((n + 1))
done < <(series_patches)
log "applied $n patches"
echo "$want" >"$stamp"
