#!/usr/bin/env bash
# Regenerate patches/ and patches/series from a development branch of the
# kernel tree (default: the dev worktree in the cache), baseline..HEAD.
#
#   scripts/export-patches.sh [TREE]
set -euo pipefail
# shellcheck source=scripts/common.sh
. "$(dirname "$0")/common.sh"

tree=${1:-$CACHE_DIR/dev}
git -C "$tree" rev-parse --verify -q baseline >/dev/null ||
	die "$tree has no baseline tag"
find "$PATCH_DIR" -name '*.patch' -delete
git -C "$tree" format-patch -q --no-signature --zero-commit -N \
	-o "$PATCH_DIR" baseline..HEAD
{
	echo "# iomap series for linux-source-6.12, in git am order"
	(cd "$PATCH_DIR" && ls -1 -- *.patch)
} >"$PATCH_DIR/series"
log "exported $(grep -vc '^#' "$PATCH_DIR/series") patches from $tree"
