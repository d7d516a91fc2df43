# shellcheck shell=bash
# Paths shared by every harness script. Sourced, not executed.

# The repository root, wherever the clone lives.
REPO_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

log() {
	printf '[%s] %s\n' "$(date +%H:%M:%S)" "$*" >&2
}

die() {
	printf 'error: %s\n' "$*" >&2
	exit 1
}

# Every setting's default, from config/defaults.mk's "NAME ?= VALUE" lines.
declare -A DEFAULTS=()
while IFS= read -r line; do
	[[ $line =~ ^([A-Za-z0-9_.]+)[[:space:]]*\?=[[:space:]]*(.*[^[:space:]])?[[:space:]]*$ ]] ||
		continue
	DEFAULTS[${BASH_REMATCH[1]}]=${BASH_REMATCH[2]}
done <"$REPO_DIR/config/defaults.mk"
unset line

# setting NAME [SCOPE...]: NAME keeps a value the environment or make's
# command line gave it; else it takes its default, the first of
# SCOPE.NAME, in the order given, and NAME that config/defaults.mk has.
setting() {
	local name=$1 scope key
	shift
	[ -z "${!name:-}" ] || return 0
	for scope in "$@" ""; do
		key=${scope:+$scope.}$name
		if [ -n "${DEFAULTS[$key]+set}" ]; then
			printf -v "$name" '%s' "${DEFAULTS[$key]}"
			return 0
		fi
	done
	die "config/defaults.mk has no default for $name"
}

# settings "SCOPE..." NAME...: setting NAME SCOPE... for each NAME.
settings() {
	local scopes name
	read -r -a scopes <<<"$1"
	shift
	for name; do
		setting "$name" "${scopes[@]}"
	done
}

settings "" IOMAP_CACHE LINUX_SOURCE BOOT_TIMEOUT KERNEL_IMAGE
# Everything large (kernel tree, build output, disk images, logs) lives
# here, outside the repository.
CACHE_DIR=${IOMAP_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/iomap-dio}
SRC_TARBALL=$LINUX_SOURCE
SRC_DIR=$CACHE_DIR/linux
BASELINE_SUBJECT="linux-source-6.12 baseline"
BASELINE_DATE="2025-01-01T00:00:00Z"
BUILD_DIR=$CACHE_DIR/build
BUILT_KERNEL=$BUILD_DIR/arch/x86/boot/bzImage
# The kernel host/boot.sh boots: the one built here unless a saved image is
# named (to compare two builds of the series in separate boots).
KERNEL_IMAGE=${KERNEL_IMAGE:-$BUILT_KERNEL}
# The debug kernel (config/guest.config + config/debug.config) the suite also
# runs on, built in its own directory so that neither build undoes the other.
DEBUG_BUILD_DIR=$CACHE_DIR/build-debug
DEBUG_KERNEL=$DEBUG_BUILD_DIR/arch/x86/boot/bzImage
IMAGE_DIR=$CACHE_DIR/images
LOG_DIR=$CACHE_DIR/logs
# The series: patches/series names its topics in git am order, one folder
# each, whose NNNN-*.patch files apply in name order (0000-cover-letter.patch
# is the topic's cover letter and is not applied). PATCH_DIR names another
# directory laid out the same way (make ladder boots prefixes of the series).
PATCH_DIR=${PATCH_DIR:-$REPO_DIR/patches}

export BOOT_TIMEOUT REPO_DIR CACHE_DIR SRC_TARBALL SRC_DIR BUILD_DIR IMAGE_DIR LOG_DIR \
	PATCH_DIR DEBUG_BUILD_DIR DEBUG_KERNEL

# lock_cache WHAT: hold the cache's run lock until this script and what it
# started have ended. Runs on one cache share its disk images and shares,
# so a second one waits for the first, saying whose it is, rather than
# writing the same disks; a script started by one holding it goes on.
lock_cache() {
	[ "${IOMAP_CACHE_LOCKED:-}" != "$CACHE_DIR" ] || return 0
	mkdir -p "$CACHE_DIR"
	exec {lock_fd}>>"$CACHE_DIR/run.lock"
	if ! flock -n "$lock_fd"; then
		log "$1: waiting for the run that holds $CACHE_DIR ($(cat "$CACHE_DIR/run.owner" 2>/dev/null || echo unknown)) to end"
		flock "$lock_fd"
	fi
	echo "$1, pid $$, since $(date +%T)" >"$CACHE_DIR/run.owner"
	export IOMAP_CACHE_LOCKED=$CACHE_DIR
}

# The harness's git identity for the commits it makes in kernel trees.
GIT_ID=(-c user.name="iomap-dio harness" -c user.email="harness@localhost")

# import_tarball DIR: extract linux-source-6.12 into DIR as a git repository
# of one commit, the baseline, the same commit on every machine: fixed dates
# make its hash depend only on the tarball, so the cover letters'
# base-commit names it.
import_tarball() {
	local dir=$1
	[ -f "$SRC_TARBALL" ] ||
		die "$SRC_TARBALL not found (apt-get install linux-source-6.12)"
	log "extracting $SRC_TARBALL into $dir"
	rm -rf "$dir"
	mkdir -p "$dir"
	tar -C "$dir" --strip-components=1 -xJf "$SRC_TARBALL"
	git -C "$dir" init -q -b base
	# Debian's top-level .gitignore ignores everything: add the pristine
	# tarball contents regardless.
	git -C "$dir" add -A -f
	GIT_AUTHOR_DATE=$BASELINE_DATE GIT_COMMITTER_DATE=$BASELINE_DATE \
		git -C "$dir" "${GIT_ID[@]}" commit -q -m "$BASELINE_SUBJECT"
	git -C "$dir" tag -f baseline >/dev/null
}

# boot_meta IMAGE LOGNAME: what a results folder records of a boot of
# IMAGE by host/boot.sh under LOGNAME, as KEY=VALUE lines: the image, its
# hash, the accelerator and the QEMU command.
boot_meta() {
	echo "bzimage=$1"
	echo "bzimage_sha256=$(sha256sum "$1" | cut -c1-16)"
	echo "accel=$(cat "$LOG_DIR/$2.accel")"
	echo "qemu_cmd=$(cat "$LOG_DIR/$2.qemu-cmd")"
}

# kernel_spec SETTING ITEM: split ITEM of SETTING, "LABEL=BZIMAGE", into
# label and image (the path; "lean" and "debug" name the kernels make
# builds), or die saying what is wrong with it. Only a named image must
# exist already: make builds the others.
kernel_spec() {
	label=${2%%=*} image=${2#*=}
	if ! [[ $label =~ ^[A-Za-z0-9._-]+$ ]] || [ "$image" = "$2" ]; then
		die "$1: '$2' is not LABEL=BZIMAGE"
	fi
	case "$image" in
	lean) image=$BUILT_KERNEL ;;
	debug) image=$DEBUG_KERNEL ;;
	*) [ -f "$image" ] || die "$1: $image not found" ;;
	esac
}

# bench_share RAW LABEL: make RAW/LABEL, the share of one kernel's boot,
# print its path, and list LABEL in RAW/order, the order the reports take
# the kernels in.
bench_share() {
	mkdir -p "$1/$2"
	echo "$2" >>"$1/order"
	echo "$1/$2"
}

# boot_bench RUN LABEL IMAGE SHARE: boot IMAGE for iomap.run=RUN (console
# log RUN-LABEL) with SHARE as the guest's "out" share; fail unless the
# guest wrote guest-meta.txt there and nothing to errors.txt, then add
# host-meta.txt: the boot's metadata and the host's load.
boot_bench() {
	local run=$1 label=$2 image=$3 share=$4
	KERNEL_IMAGE=$image GUEST_SHARE=$share \
		"$REPO_DIR/host/boot.sh" "$run" "$run-$label" >/dev/null
	[ -f "$share/guest-meta.txt" ] ||
		die "the guest wrote nothing; console log: $LOG_DIR/$run-$label.log"
	[ ! -s "$share/errors.txt" ] ||
		die "the guest failed: $(head -n 3 "$share/errors.txt")"
	{
		boot_meta "$image" "$run-$label"
		echo "host_loadavg=$(cut -d' ' -f1-3 /proc/loadavg)"
	} >"$share/host-meta.txt"
}

# series_topics: the topics patches/series names, in order.
series_topics() {
	awk '!/^[[:space:]]*(#|$)/ { print $1 }' "$PATCH_DIR/series"
}

# topic_deps TOPIC: the topics TOPIC depends on, as patches/series says.
topic_deps() {
	awk -v topic="$1" '!/^[[:space:]]*(#|$)/ && $1 == topic {
		for (i = 2; i <= NF; i++) print $i
	}' "$PATCH_DIR/series"
}

# topic_patches TOPIC...: the patches of those topics to apply, in order,
# as TOPIC/NNNN-name.patch under PATCH_DIR.
topic_patches() {
	local topic patch
	for topic; do
		[ -d "$PATCH_DIR/$topic" ] ||
			die "patches/series names topic $topic, which has no folder"
		for patch in "$PATCH_DIR/$topic"/[0-9][0-9][0-9][0-9]-*.patch; do
			[ -e "$patch" ] || continue
			[ "${patch##*/}" != 0000-cover-letter.patch ] || continue
			echo "$topic/${patch##*/}"
		done
	done
}

# prerequisite_ids TOPIC: the prerequisite-patch-id lines TOPIC's cover
# letter must carry: git patch-id --stable of each patch of the topics it
# depends on, in git am order, as b4 computes them from the patches
# themselves (git format-patch --base=... names other ids for commits
# picked onto a scratch branch).
prerequisite_ids() {
	local deps patch
	mapfile -t deps < <(topic_deps "$1")
	[ ${#deps[@]} -gt 0 ] || return 0
	while read -r patch; do
		printf 'prerequisite-patch-id: %s\n' \
			"$(git patch-id --stable <"$PATCH_DIR/$patch" | cut -d' ' -f1)"
	done < <(topic_patches "${deps[@]}")
}

# write_prerequisites TOPIC: rewrite TOPIC's cover letter with the
# prerequisite-patch-id lines prerequisite_ids gives, right after its
# base-commit line.
write_prerequisites() {
	local cover=$PATCH_DIR/$1/0000-cover-letter.patch ids
	ids=$(mktemp)
	prerequisite_ids "$1" >"$ids"
	awk -v ids="$ids" '
		/^prerequisite-patch-id: / { next }
		{ print }
		/^base-commit: / { while ((getline line <ids) > 0) print line }' \
		"$cover" >"$cover.tmp"
	mv "$cover.tmp" "$cover"
	rm -f "$ids"
}

# series_patches: the whole series' patches, in git am order.
series_patches() {
	local topics
	mapfile -t topics < <(series_topics)
	topic_patches "${topics[@]}"
}

# patch_subject FILE: the subject of a patch or cover letter, unfolded and
# without its [PATCH ...] prefix.
patch_subject() {
	awk '/^Subject: / { s = $0; folded = 1; next }
		folded && /^[ \t]/ { s = s $0; next }
		folded { exit }
		END { sub(/^Subject: (\[[^]]*\] )?/, "", s); gsub(/[ \t]+/, " ", s); print s }' "$1"
}

# Hash of what the series applies (names and contents; cover letters do
# not count): the tree is re-prepared whenever it changes. An empty series
# (the stock kernel) has a hash too.
series_hash() {
	local patches
	patches=$(series_patches)
	{
		echo "$patches"
		[ -z "$patches" ] || (cd "$PATCH_DIR" && echo "$patches" | xargs cat)
	} | sha256sum | cut -c1-16
}

# Filesystems are plug-ins: guest/tests/fs/NAME.sh describes one for the
# suite and the benches (guest/tests/lib.sh lists what it sets), and may
# come with guest/tests/fs/NAME.config, the kernel options it needs.
FS_PLUGIN_DIR=$REPO_DIR/guest/tests/fs

# fs_plugins: the filesystems with a plug-in, by name.
fs_plugins() {
	local plugin
	for plugin in "$FS_PLUGIN_DIR"/*.sh; do
		basename "$plugin" .sh
	done
}

# fs_plugin_values VAR: VAR as every plug-in sets it, one word a line,
# each word once. The plug-ins are read in a subshell: they only set
# variables and define the guest's hooks.
fs_plugin_values() {
	local fs
	for fs in $(fs_plugins); do
		fs_plugin_values_of "$fs" "$1"
	done | awk '!seen[$0]++'
}

# fs_plugin_values_of NAME VAR: VAR as plug-in NAME sets it, a word a line.
fs_plugin_values_of() {
	(
		set +u
		unset "$2"
		# shellcheck source=/dev/null
		. "$FS_PLUGIN_DIR/$1.sh"
		read -r -d '' -a words <<<"${!2}" || true
		[ ${#words[@]} -eq 0 ] || printf '%s\n' "${words[@]}"
	)
}

# kernel_fragments FRAGMENT...: the config fragments to build with: those
# given, with the filesystems' own (guest/tests/fs/*.config) right after
# config/guest.config wherever it is one of them.
kernel_fragments() {
	local given fs_fragment
	for given; do
		echo "$given"
		[ "$given" -ef "$REPO_DIR/config/guest.config" ] || continue
		for fs_fragment in "$FS_PLUGIN_DIR"/*.config; do
			[ ! -e "$fs_fragment" ] || echo "$fs_fragment"
		done
	done
}
