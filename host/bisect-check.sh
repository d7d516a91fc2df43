#!/usr/bin/env bash
# Bisectability check: apply the series one patch at a time and, after
# each, compile (with the coverage config: every in-tree iomap user) every
# object the whole series touches. Fails on the first error or warning.
#
#   host/bisect-check.sh [TREE]   default: the prepared tree in the cache
set -euo pipefail
# shellcheck source=host/common.sh
. "$(dirname "$0")/common.sh"

tree=${1:-$SRC_DIR}
work=$CACHE_DIR/bisect
if [ ! -d "$work" ]; then
	git -C "$tree" worktree add -q --detach "$work" baseline
fi
mapfile -t commits < <(git -C "$tree" rev-list --reverse baseline..HEAD)
# Objects the series touches. A .c file its directory's Makefile never
# names as an object (minix's itree_common.c, #included by itree_v1.c and
# itree_v2.c) is built through its includers, which are touched too.
objs=()
while read -r src; do
	obj=${src%.c}.o
	grep -qw "$(basename "$obj")" "$tree/$(dirname "$src")/Makefile" &&
		objs+=("$obj")
done < <(git -C "$tree" diff --name-only baseline HEAD -- '*.c' |
	grep -v '^Documentation/')
[ ${#commits[@]} -gt 0 ] || die "no commits between baseline and HEAD in $tree"

start=$(date +%s)
n=0
for c in "${commits[@]}"; do
	n=$((n + 1))
	git -C "$work" checkout -q --detach "$c"
	log "[$n/${#commits[@]}] $(git -C "$work" log -1 --format=%s "$c")"
	KERNEL_SRC=$work KERNEL_BUILD=$CACHE_DIR/build-bisect \
		KERNEL_FRAGMENTS="$REPO_DIR/config/guest.config $REPO_DIR/config/coverage.config" \
		"$REPO_DIR/host/build-kernel.sh" "${objs[@]}" ||
		die "the tree does not build after $(git -C "$work" log -1 --format='%h %s' "$c")"
done
log "bisect check passed: ${#commits[@]} patches x ${#objs[@]} objects in $(($(date +%s) - start)) s"
