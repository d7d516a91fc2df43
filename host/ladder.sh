#!/usr/bin/env bash
# make ladder: build the kernel at named points of patches/series (same
# config, shared ccache), save each bzImage keyed by the hash of its series
# prefix, run the deterministic bench (CLOCK=icount) on each, and write one
# table of instructions per read per step (host/report/ladder.py).
#
# Settings (config/defaults.mk): LADDER (the steps), LADDER_BENCH,
# LADDER_FRAGMENTS, LADDER_CCACHE, LADDER_ALIAS, JOBS, NAME
# (results/<date>-NAME; each step in step-LABEL/, LABEL the step with / as
# -, which must not exist yet: steps can be added later, the file steps
# lists them), and the bench's, with ladder.* defaults that keep a step's
# bench short.
# Builds run in the background one after another while the bench measures
# the images already built.
set -euo pipefail
# shellcheck source=host/common.sh
. "$(dirname "$0")/common.sh"
# shellcheck source=host/settings.sh
. "$REPO_DIR/host/settings.sh"
ladder_settings
lock_cache "make ladder"

steps=$LADDER
ladder=$CACHE_DIR/ladder
kernels=$CACHE_DIR/kernels

# Images of other config fragments than the default carry their hash.
read -r -a fragments <<<"$LADDER_FRAGMENTS"
fragment_paths=("${fragments[@]/#/$REPO_DIR/}")
config_key=
if [ "${fragments[*]}" != config/guest.config ]; then
	config_key=-$(cat "${fragment_paths[@]}" | sha256sum | cut -c1-8)
fi

# label STEP: the step as a file name.
label() {
	echo "${1//\//-}"
}

# Steps can be added to a ladder folder later; a step is measured once.
out=$REPO_DIR/results/$(date +%F)-$NAME
if [ "$LADDER_BENCH" != 0 ]; then
	for step in $steps; do
		[ ! -e "$out/step-$(label "$step")" ] ||
			die "$out/step-$(label "$step") exists: pick another NAME or remove it"
	done
fi
mkdir -p "$ladder" "$kernels"

# last_subject DIR: the subject of the last patch of DIR's series.
last_subject() {
	local last
	last=$(patch_names "$1" | tail -n 1)
	if [ -z "$last" ]; then
		echo "none (stock 6.12)"
	else
		patch_subject "$1/$last"
	fi
}

# prefix STEP DIR: DIR gets the series up to STEP, laid out as patches/ is
# (cover letters left out): "stock" is the empty series, TOPIC the series
# through that topic, TOPIC/NNNN through that topic's patch NNNN. A step
# that ends where the whole series does hashes as patches/ does.
prefix() {
	local step=$1 dir=$2 topic last t p n found=
	rm -rf "$dir"
	mkdir -p "$dir"
	: >"$dir/series"
	[ "$step" != stock ] || return 0
	topic=${step%%/*} last=
	[ "$topic" = "$step" ] || last=${step#*/}
	while read -r t; do
		echo "$t" >>"$dir/series"
		mkdir -p "$dir/$t"
		for p in $(topic_patches "$t"); do
			n=${p#*/}
			n=${n%%-*}
			if [ "$t" = "$topic" ] && [ -n "$last" ] &&
				[ "$((10#$n))" -gt "$((10#$last))" ]; then
				break
			fi
			cp "$PATCH_DIR/$p" "$dir/$p"
		done
		[ "$t" != "$topic" ] || { found=1; break; }
	done < <(series_topics)
	[ -n "$found" ] || die "LADDER: no topic '$topic' in patches/series"
	[ -z "$last" ] || compgen -G "$dir/$topic/$last-*.patch" >/dev/null ||
		die "LADDER: topic $topic has no patch $last"
}

for step in $steps; do
	prefix "$step" "$ladder/series-$(label "$step")"
done

# patch_names DIR: the patches of DIR's series, in order.
patch_names() {
	PATCH_DIR=$1 series_patches
}

# patch_list DIR: the same, each with the hash of its file, so that a patch
# changed under the same name is not taken for the one the tree holds.
patch_list() {
	local p
	for p in $(patch_names "$1"); do
		echo "$p $(sha256sum <"$1/$p" | cut -c1-16)"
	done
}

# extend DIR: when the ladder's tree holds a prefix of DIR's series, apply
# only the patches past it (prepare-tree.sh would start again from the
# baseline and touch every file the series changes, include/linux/fs.h
# among them, so make would rebuild nearly everything); fails otherwise.
extend() {
	local dir=$1 applied=$ladder/linux/.ladder-applied have p sum
	[ -f "$applied" ] && [ -f "$ladder/linux/.series-applied" ] || return 1
	have=$(wc -l <"$applied")
	[ "$(patch_list "$dir" | head -n "$have")" = "$(cat "$applied")" ] ||
		return 1
	while read -r p sum; do
		git -C "$ladder/linux" "${GIT_ID[@]}" am -q --keep-cr "$dir/$p" ||
			{ git -C "$ladder/linux" am --abort; return 1; }
		echo "$p $sum" >>"$applied"
	done < <(patch_list "$dir" | tail -n +"$((have + 1))")
	PATCH_DIR=$dir series_hash >"$ladder/linux/.series-applied"
	log "ladder: extended the tree to $(wc -l <"$applied") patches"
}

# build STEP: the bzImage of the series up to STEP, once per series hash;
# kernels/bzImage-HASH.txt says what it is and how long it took.
build() {
	local step=$1 dir hash image start ccache_log
	dir=$ladder/series-$(label "$step")
	hash=$(PATCH_DIR=$dir series_hash)$config_key
	image=$kernels/bzImage-$hash
	[ -f "$image" ] && return 0
	start=$(date +%s)
	extend "$dir" || {
		PATCH_DIR=$dir IOMAP_CACHE=$ladder "$REPO_DIR/host/prepare-tree.sh"
		patch_list "$dir" >"$ladder/linux/.ladder-applied"
	}
	ccache_log=$kernels/bzImage-$hash.ccache-log
	rm -f "$ccache_log"
	local env=(PATCH_DIR="$dir" IOMAP_CACHE="$ladder"
		IOMAP_CCACHE="${LADDER_CCACHE:-$CACHE_DIR/ccache}"
		CCACHE_STATSLOG="$ccache_log"
		KERNEL_FRAGMENTS="${fragment_paths[*]}")
	if [ -n "$LADDER_ALIAS" ]; then
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
				exec "$3/host/build-kernel.sh"
			' alias "$ladder" "$LADDER_ALIAS" "$REPO_DIR"
	else
		env "${env[@]}" "$REPO_DIR/host/build-kernel.sh"
	fi
	cp "$ladder/build/arch/x86/boot/bzImage" "$image.tmp"
	cp "$ladder/build/System.map" "$kernels/System.map-$hash"
	{
		echo "step=$step"
		echo "series_hash=$hash"
		echo "config=${fragments[*]}"
		echo "patches=$(patch_names "$dir" | wc -l)"
		echo "last_patch=$(last_subject "$dir")"
		echo "build_seconds=$(($(date +%s) - start))"
		echo "jobs=${JOBS:-$(nproc)}"
		echo "built=$(date -Iseconds)"
		echo "ccache=$(CCACHE_STATSLOG=$ccache_log ccache --show-log-stats |
			grep -E '^ *(Hits|Misses):' | tr -s ' ' | tr '\n' ' ')"
	} >"$image.txt"
	mv "$image.tmp" "$image"
	log "ladder: $step built ($(grep build_seconds "$image.txt"))"
}

if [ "$LADDER_BENCH" = 0 ]; then
	for step in $steps; do build "$step"; done
	exit 0
fi

# The builds go on in the background; the bench waits for each image.
rm -f "$ladder"/failed-*
(
	for step in $steps; do
		build "$step" || { touch "$ladder/failed-$(label "$step")"; exit 1; }
	done
) &
builder=$!

mkdir -p "$out"
export CLOCK ENGINES QDS BSS PROFILE_ROUNDS
for step in $steps; do
	dir=$ladder/series-$(label "$step")
	hash=$(PATCH_DIR=$dir series_hash)$config_key
	image=$kernels/bzImage-$hash
	while [ ! -f "$image" ]; do
		[ ! -e "$ladder/failed-$(label "$step")" ] ||
			die "ladder: the build of $step failed"
		kill -0 "$builder" 2>/dev/null || [ -f "$image" ] ||
			die "ladder: the builder stopped before $step"
		sleep 10
	done
	log "ladder: bench of $step ($hash)"
	KERNEL_IMAGE=$image KERNEL_SERIES=$hash \
		RESULTS=$out/step-$(label "$step") NAME=$NAME-$(label "$step") \
		"$REPO_DIR/host/run-bench.sh"
	cp "$image.txt" "$out/step-$(label "$step")/build.txt"
	label "$step" >>"$out/steps"
done
wait "$builder"
python3 "$REPO_DIR/host/report/ladder.py" "$out" >"$out/ladder.md"
log "ladder: $out/ladder.md"
