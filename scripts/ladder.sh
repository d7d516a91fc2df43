#!/usr/bin/env bash
# make ladder: build the kernel at named points of patches/series (same
# config, shared ccache), save each bzImage keyed by the hash of its series
# prefix, run the deterministic bench (CLOCK=icount) on each, and write one
# table of instructions per read per step (bench/ladder.py).
#
# Settings (environment or make variables):
#   LADDER      the steps, each the number of the last patch applied, in
#               patches/series order; 0000 is the empty series (stock
#               6.12). Default: 0000 0015 0019 0023 0024 0025 0026 0030
#   JOBS        kernel build parallelism (nproc)
#   LADDER_CCACHE  ccache directory of the builds (the cache's own)
#   LADDER_ALIAS   a cache directory whose linux/ and build/ paths the
#               ladder's tree and build take, in a private mount namespace
#               (root only), so that ccache entries of that cache's builds
#               hit: kbuild hands the compiler absolute source paths, so a
#               tree elsewhere misses them all. Default: none.
#   LADDER_BENCH 0: build only
#   NAME        results/<date>-NAME (ladder); each step in step-NNNN/,
#               which must not exist yet (steps can be added later)
#   the bench's settings (scripts/run-bench.sh), with these defaults:
#   TARGETS "ext4 xfs raw", ENGINES "psync io_uring io_uring_poll", QDS 64
#   (psync runs at QD 1), BSS 4k, PROFILE_ROUNDS 1.
# Builds run in the background one after another while the bench measures
# the images already built.
set -euo pipefail
# shellcheck source=scripts/common.sh
. "$(dirname "$0")/common.sh"

steps=${LADDER:-0000 0015 0019 0023 0024 0025 0026 0030}
ladder=$CACHE_DIR/ladder
kernels=$CACHE_DIR/kernels
NAME=${NAME:-ladder}
[[ $NAME =~ ^[A-Za-z0-9._-]+$ ]] ||
	die "NAME may hold letters, digits, '.', '_' and '-' only, not '$NAME'"
# Steps can be added to a ladder folder later; a step is measured once.
out=$REPO_DIR/results/$(date +%F)-$NAME
if [ "${LADDER_BENCH:-1}" != 0 ]; then
	for step in $steps; do
		[ ! -e "$out/step-$step" ] ||
			die "$out/step-$step exists: pick another NAME or remove it"
	done
fi
mkdir -p "$ladder" "$kernels"

# prefix STEP DIR: DIR gets patches/series cut after patch STEP (comments
# kept, so the whole series hashes as patches/ does) and those patches.
prefix() {
	local step=$1 dir=$2
	rm -rf "$dir"
	mkdir -p "$dir"
	awk -v step="$step" '
		/^[[:space:]]*(#|$)/ { print; next }
		done { next }
		{ print }
		index($0, step "-") == 1 { done = 1 }
		END { if (!done && step != "0000") exit 1 }
	' "$PATCH_DIR/series" >"$dir/series.all" ||
		die "LADDER: no patch $step in patches/series"
	if [ "$step" = 0000 ]; then
		grep '^[[:space:]]*\(#\|$\)' "$dir/series.all" >"$dir/series" || true
	else
		cp "$dir/series.all" "$dir/series"
	fi
	rm "$dir/series.all"
	{ grep -v '^[[:space:]]*\(#\|$\)' "$dir/series" || true; } |
		while read -r p; do cp "$PATCH_DIR/$p" "$dir/"; done
}

for step in $steps; do
	[[ $step =~ ^[0-9]{4}$ ]] || die "LADDER: '$step' is not a patch number"
	prefix "$step" "$ladder/series-$step"
done

# patch_names DIR: the patches DIR/series names, in order.
patch_names() {
	grep -v '^[[:space:]]*\(#\|$\)' "$1/series" || true
}

# extend DIR: when the ladder's tree holds a prefix of DIR's series, apply
# only the patches past it (prepare-tree.sh would start again from the
# baseline and touch every file the series changes, include/linux/fs.h
# among them, so make would rebuild nearly everything); fails otherwise.
extend() {
	local dir=$1 applied=$ladder/linux/.ladder-applied have p
	[ -f "$applied" ] && [ -f "$ladder/linux/.series-applied" ] || return 1
	have=$(wc -l <"$applied")
	[ "$(patch_names "$dir" | head -n "$have")" = "$(cat "$applied")" ] ||
		return 1
	for p in $(patch_names "$dir" | tail -n +"$((have + 1))"); do
		git -C "$ladder/linux" -c user.name="iomap-dio harness" \
			-c user.email="harness@localhost" am -q --keep-cr "$dir/$p" ||
			{ git -C "$ladder/linux" am --abort; return 1; }
		echo "$p" >>"$applied"
	done
	PATCH_DIR=$dir series_hash >"$ladder/linux/.series-applied"
	log "ladder: extended the tree to $(wc -l <"$applied") patches"
}

# build STEP: the bzImage of the series up to STEP, once per series hash;
# kernels/bzImage-HASH.txt says what it is and how long it took.
build() {
	local step=$1 dir=$ladder/series-$1 hash image start ccache_log
	hash=$(PATCH_DIR=$dir series_hash)
	image=$kernels/bzImage-$hash
	[ -f "$image" ] && return 0
	start=$(date +%s)
	extend "$dir" || {
		PATCH_DIR=$dir IOMAP_CACHE=$ladder "$REPO_DIR/scripts/prepare-tree.sh"
		patch_names "$dir" >"$ladder/linux/.ladder-applied"
	}
	ccache_log=$kernels/bzImage-$hash.ccache-log
	rm -f "$ccache_log"
	local env=(PATCH_DIR="$dir" IOMAP_CACHE="$ladder"
		IOMAP_CCACHE="${LADDER_CCACHE:-$CACHE_DIR/ccache}"
		CCACHE_STATSLOG="$ccache_log")
	if [ -n "${LADDER_ALIAS:-}" ]; then
		# The marker proves the bind mounts are in place before make
		# writes anything under the alias paths.
		mkdir -p "$ladder/build"
		touch "$ladder/linux/.ladder-alias" "$ladder/build/.ladder-alias"
		# shellcheck disable=SC2016 # expanded by the inner shell
		env "${env[@]}" KERNEL_SRC="$LADDER_ALIAS/linux" \
			KERNEL_BUILD="$LADDER_ALIAS/build" \
			unshare --mount --propagation private -- bash -euc '
				mount --bind "$1/linux" "$2/linux"
				mount --bind "$1/build" "$2/build"
				[ -f "$2/linux/.ladder-alias" ] && [ -f "$2/build/.ladder-alias" ]
				exec "$3/scripts/build-kernel.sh"
			' alias "$ladder" "$LADDER_ALIAS" "$REPO_DIR"
	else
		env "${env[@]}" "$REPO_DIR/scripts/build-kernel.sh"
	fi
	cp "$ladder/build/arch/x86/boot/bzImage" "$image.tmp"
	cp "$ladder/build/System.map" "$kernels/System.map-$hash"
	{
		echo "step=$step"
		echo "series_hash=$hash"
		echo "patches=$(grep -cv '^[[:space:]]*\(#\|$\)' "$dir/series" || true)"
		echo "build_seconds=$(($(date +%s) - start))"
		echo "jobs=${JOBS:-$(nproc)}"
		echo "built=$(date -Iseconds)"
		echo "ccache=$(CCACHE_STATSLOG=$ccache_log ccache --show-log-stats |
			grep -E '^ *(Hits|Misses):' | tr -s ' ' | tr '\n' ' ')"
	} >"$image.txt"
	mv "$image.tmp" "$image"
	log "ladder: $step built ($(grep build_seconds "$image.txt"))"
}

if [ "${LADDER_BENCH:-1}" = 0 ]; then
	for step in $steps; do build "$step"; done
	exit 0
fi

# The builds go on in the background; the bench waits for each image.
(
	for step in $steps; do
		build "$step" || { touch "$ladder/failed-$step"; exit 1; }
	done
) &
builder=$!
rm -f "$ladder"/failed-*

mkdir -p "$out"
export CLOCK=icount
export TARGETS=${TARGETS:-ext4 xfs raw}
export ENGINES=${ENGINES:-psync io_uring io_uring_poll}
export QDS=${QDS:-64} BSS=${BSS:-4k} PROFILE_ROUNDS=${PROFILE_ROUNDS:-1}
for step in $steps; do
	hash=$(PATCH_DIR=$ladder/series-$step series_hash)
	image=$kernels/bzImage-$hash
	while [ ! -f "$image" ]; do
		[ ! -e "$ladder/failed-$step" ] || die "ladder: the build of $step failed"
		kill -0 "$builder" 2>/dev/null || [ -f "$image" ] ||
			die "ladder: the builder stopped before $step"
		sleep 10
	done
	log "ladder: bench of $step ($hash)"
	KERNEL_IMAGE=$image KERNEL_SERIES=$hash RESULTS=$out/step-$step \
		NAME=$NAME-$step "$REPO_DIR/scripts/run-bench.sh"
	cp "$image.txt" "$out/step-$step/build.txt"
done
wait "$builder"
python3 "$REPO_DIR/bench/ladder.py" "$out" >"$out/ladder.md"
log "ladder: $out/ladder.md"
