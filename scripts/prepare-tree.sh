#!/usr/bin/env bash
# Extract linux-source-6.12 into the cache as a git repository with one
# baseline commit, then apply patches/series with git am. Re-running is
# cheap: the tree is only rebuilt from the baseline when the series changed.
set -euo pipefail
# shellcheck source=scripts/common.sh
. "$(dirname "$0")/common.sh"

stamp=$SRC_DIR/.series-applied
want=$(series_hash)

if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
	exit 0
fi

[ -f "$SRC_TARBALL" ] || die "$SRC_TARBALL not found (apt-get install linux-source-6.12)"

git_id=(-c user.name="iomap-dio harness" -c user.email="harness@localhost")

if [ ! -d "$SRC_DIR/.git" ]; then
	log "extracting $SRC_TARBALL into $SRC_DIR"
	rm -rf "$SRC_DIR"
	mkdir -p "$SRC_DIR"
	tar -C "$SRC_DIR" --strip-components=1 -xJf "$SRC_TARBALL"
	git -C "$SRC_DIR" init -q -b base
	# Debian's top-level .gitignore ignores everything: add the pristine
	# tarball contents regardless.
	git -C "$SRC_DIR" add -A -f
	git -C "$SRC_DIR" "${git_id[@]}" commit -q -m "linux-source-6.12 baseline"
	git -C "$SRC_DIR" tag -f baseline >/dev/null
fi

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
	case "$patch" in '' | '#'*) continue ;; esac
	[ -f "$PATCH_DIR/$patch" ] || die "patches/series names missing file $patch"
	if ! git -C "$SRC_DIR" "${git_id[@]}" am -q --keep-cr "$PATCH_DIR/$patch"; then
		git -C "$SRC_DIR" am --abort || true
		die "patch $patch does not apply"
	fi
	n=$((n + 1))
done <"$PATCH_DIR/series"
log "applied $n patches"
echo "$want" >"$stamp"
