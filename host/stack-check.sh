#!/usr/bin/env bash
# Stack check: compile the direct-I/O entry points of the stock tree and of
# the prepared (patched) tree with -fstack-usage and fail if any frame grew
# by more than STACK_BOUND bytes (config/defaults.mk).  A function the series adds
# is compared with the one stock 6.12 ran in its place (minix and exfat read
# through generic_file_read_iter(), minix wrote through
# generic_file_write_iter()).
set -euo pipefail
# shellcheck source=host/common.sh
. "$(dirname "$0")/common.sh"

setting STACK_BOUND
[[ $STACK_BOUND =~ ^[0-9]+$ ]] ||
	die "STACK_BOUND must be a whole number of bytes, not '$STACK_BOUND'"
bound=$STACK_BOUND
stock=$CACHE_DIR/stock
# Pairs of a patched function (object:function) and what stock 6.12 ran
# in its place: iomap's own, then each filesystem's (FS_ENTRY_POINTS of
# its plug-in: OBJECT:FUNCTION, or PATCHED=STOCK where they differ).
pairs=(
	"fs/iomap/direct-io.o:iomap_dio_rw fs/iomap/direct-io.o:iomap_dio_rw"
	"fs/iomap/direct-io.o:__iomap_dio_rw fs/iomap/direct-io.o:__iomap_dio_rw"
)
for entry in $(fs_plugin_values FS_ENTRY_POINTS); do
	pairs+=("${entry%%=*} ${entry#*=}")
done

if [ ! -d "$stock" ]; then
	git -C "$SRC_DIR" worktree add -q --detach "$stock" baseline
fi

objs=()
for pair in "${pairs[@]}"; do
	for side in $pair; do
		objs+=("${side%%:*}")
	done
done
mapfile -t objs < <(printf '%s\n' "${objs[@]}" | sort -u)

# stack_build TREE BUILD: compile the objects with -fstack-usage, without
# ccache (which would not hand back the .su files).
stack_build() {
	local obj
	for obj in "${objs[@]}"; do
		rm -f "$2/$obj" "$2/${obj%.o}.su"
	done
	CCACHE_DISABLE=1 KCFLAGS=-fstack-usage KERNEL_SRC=$1 KERNEL_BUILD=$2 \
		"$REPO_DIR/host/build-kernel.sh" "${objs[@]}"
}

# frame BUILD OBJECT FUNCTION: the function's frame in bytes from the
# object's .su file (the largest copy, .constprop/.isra clones included),
# or "none" when the compiler inlined it away.
frame() {
	local su=$1/${2%.o}.su
	[ -f "$su" ] || die "no $su: was it compiled with -fstack-usage?"
	awk -F'\t' -v fn="$3" '{
		name = $1; sub(/.*:/, "", name); sub(/\..*/, "", name)
		if (name == fn && $2 + 0 > max) { max = $2 + 0; found = 1 }
	} END { print found ? max : "none" }' "$su"
}

log "compiling ${#objs[@]} objects of the stock tree with -fstack-usage"
stack_build "$stock" "$CACHE_DIR/build-stack-stock"
log "compiling ${#objs[@]} objects of the patched tree with -fstack-usage"
stack_build "$SRC_DIR" "$CACHE_DIR/build-stack"

bad=0
printf '%-32s %7s %7s %6s\n' function stock patched growth
for pair in "${pairs[@]}"; do
	read -r new old <<<"$pair"
	got=$(frame "$CACHE_DIR/build-stack" "${new%%:*}" "${new#*:}")
	was=$(frame "$CACHE_DIR/build-stack-stock" "${old%%:*}" "${old#*:}")
	[ "$was" = none ] && was=0
	if [ "$got" = none ]; then
		printf '%-32s %7s %7s %6s\n' "${new#*:}" "$was" inlined -
		continue
	fi
	printf '%-32s %7s %7s %+6d\n' "${new#*:}" "$was" "$got" $((got - was))
	if [ $((got - was)) -gt "$bound" ]; then
		echo "stack-check: ${new#*:} grew by $((got - was)) bytes (bound $bound)" >&2
		bad=1
	fi
done
# The simple read path's own frames, for the record: they exist only while
# a simple read runs, not below the normal path.
grep -h 'iomap_dio_simple' "$CACHE_DIR"/build-stack/fs/*/*.su | sort -u || true
[ "$bad" -eq 0 ] || die "a direct I/O entry point's frame grew past $bound bytes"
log "stack check passed: no entry point grew by more than $bound bytes"
