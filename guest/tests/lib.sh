# shellcheck shell=sh
# Helpers for the guest test suite: result reporting, device discovery,
# filesystem setup and simple-path hit counting. Sourced by run-suite.sh
# and every tests/t-*.sh, each of which runs in a shell of its own.
#
# A test reports in KTAP (Documentation/dev-tools/ktap.rst in the kernel
# tree), which run-suite.sh nests in its own: a header, then one result
# line a check, "ok N name", "not ok N name # reason", and
# "ok N name # SKIP reason" for what cannot run here. Other output is
# diagnostics, best as lines starting with "#". The header has no plan
# ("1..N"), which ktap.rst allows: how many checks a test makes depends on
# the kernel and the guest (filesystems, variants, tools, features).

# The test's name, for the lines it prints about itself.
TEST_NAME=$(basename "$0" .sh)

# The number of the test's last result line.
RESULT_NUMBER=0

# result ok|"not ok" NAME [DIRECTIVE]: print the test's next result line;
# DIRECTIVE is "SKIP reason" or, for a failure, the reason.
result() {
	RESULT_NUMBER=$((RESULT_NUMBER + 1))
	echo "$1 $RESULT_NUMBER $2${3:+ # $3}"
}

pass() {
	result ok "$1"
}

# fail NAME REASON: REASON goes on the result line, so it is made one line
# without blanks at its ends (a line ending in "#" is no KTAP result line).
fail() {
	result "not ok" "$1" "$(printf '%s' "$2" | tr '\n' ' ' |
		sed 's/^ *//; s/ *$//')"
}

skip() {
	result ok "$1" "SKIP $2"
}

# known_failure NAME DEFECT: a check that fails through a defect found and
# not fixed yet, which DEFECT describes: KTAP's TODO directive, counted
# with the skipped (run-suite.sh) and listed by the host after every run,
# so that it is neither a failure nor out of sight.
known_failure() {
	result "not ok" "$1" "TODO $2"
}

# known_defect NAME: what the loaded filesystem's plug-in says of defect
# NAME in FS_KNOWN_DEFECTS, or on stock 6.12 (no simple_read switch) in
# FS_KNOWN_DEFECTS_STOCK where it sets that, or nothing.
known_defect() {
	if [ -n "${FS_KNOWN_DEFECTS_STOCK+set}" ] && [ ! -e $SIMPLE_READ ]; then
		set -- "$1" "$FS_KNOWN_DEFECTS_STOCK"
	else
		set -- "$1" "$FS_KNOWN_DEFECTS"
	fi
	printf '%s\n' "$2" | sed -n "s/^[[:space:]]*$1: //p"
}

# skip_test REASON: the rest of the test cannot run here: report the checks
# it leaves out as one skipped result, with REASON, and stop.
skip_test() {
	if [ $RESULT_NUMBER = 0 ]; then
		skip "every check of $TEST_NAME" "$1"
	else
		skip "the remaining checks of $TEST_NAME" "$1"
	fi
	exit 0
}

# A test's output starts with its KTAP header (run-suite.sh and soak.sh,
# which source this file too, are not tests). Without a plan, a parser
# finds where the test's results end by its name, which the "# Subtest:"
# line gives and run-suite.sh's result line for the test repeats.
case $TEST_NAME in
t-*)
	echo "KTAP version 1"
	echo "# Subtest: $TEST_NAME"
	;;
esac

# require_fs NAME: load tests/fs/NAME.sh, and skip the test unless the
# kernel has that filesystem and the guest its tools.
require_fs() {
	fs_load "$1"
	why=$(fs_unusable)
	[ -z "$why" ] || skip_test "$why"
}

# require_dm_target TARGET: skip the test unless device-mapper has TARGET.
require_dm_target() {
	dmsetup targets 2>/dev/null | grep -qw "$1" ||
		skip_test "no dm-$1 target in this kernel"
}

# have_simple_read: whether the kernel has the simple read path's switch
# and trace point (the series before the simple path, or stock 6.12, has
# neither); turns the trace point on.
have_simple_read() {
	[ -w $SIMPLE_READ ] && simple_read_events 1
}

# require_simple_read: skip the test unless have_simple_read.
require_simple_read() {
	have_simple_read ||
		skip_test "no simple read path (/sys/kernel/iomap/simple_read, its trace point) in this kernel"
}

# check NAME COMMAND...: run the command; pass when it exits 0, otherwise
# fail with the command's own words as the reason, or its exit status when
# it said nothing.
check() {
	name=$1
	shift
	if out=$("$@" 2>&1); then
		pass "$name"
	else
		rc=$?
		[ -n "$out" ] || out="exit status $rc"
		fail "$name" "$(echo "$out" | tail -n 3)"
	fi
}

# check_eq NAME GOT WANT
check_eq() {
	if [ "$2" = "$3" ]; then
		pass "$1"
	else
		fail "$1" "got '$2', want '$3'"
	fi
}

# The test disk: the first NVMe namespace the host attached.
TEST_DEV=/dev/nvme0n1

# The O_DIRECT read engines, DIO_ENGINES: dio-check's, named as fio's.
# shellcheck source=guest/lib/engines.sh
. /lib/iomap/engines.sh

# The simple direct-I/O read path's switch: 1 on (the default), 0 off.
SIMPLE_READ=/sys/kernel/iomap/simple_read

# Filesystem hooks, as xfstests has a config per filesystem: tests/fs/NAME.sh
# describes how to make, check and mount filesystem NAME and what it cannot
# do, for the generic suite (t-50-fs-generic.sh) and every test that needs
# one. Each sets
#   FS_TYPE      the type to mount
#   FS_VARIANTS  its variants (mkfs options), one word each
#   FS_BLOCK     its block size: the simple path serves reads of one block
#   FS_TOOLS     the programs its hooks run (host/build-initramfs.sh
#                copies them into the guest)
#   FS_PACKAGES  the Debian packages they come from (host/install-deps.sh)
#   FS_ENTRY_POINTS  its direct-I/O entry points, as object:function, or
#                PATCHED=STOCK where stock 6.12 ran another function in
#                its place: make stack-check compares their stack frames
#   FS_MODEL_CAPS  what the model tester may rely on with the series, in
#                fsmodel -F's words (dio, dioalign, copy, falloc=MODE,...,
#                nowait=KIND,..., seek, fiemap, eofzero; tools/fsmodel.c):
#                what is
#                declared is tested and must work, what is not is never
#                tried; t-40 checks it against fsmodel -P
# and may set
#   FS_ENGINES   the O_DIRECT engines it serves (default: DIO_ENGINES)
#   FS_CANNOT    what it cannot do, which changes what checks expect:
#                sparse (no holes: every block up to i_size is allocated),
#                simple_multi_block (O_DIRECT reads of more than one block
#                may stop early: IOMAP_DIO_PARTIAL keeps them off the simple
#                read path)
#   FS_SKIP_CHECKS  the generic checks of t-50-fs-generic.sh it skips, one
#                per line as "NAME: reason" (the reason the result gives)
#   FS_KNOWN_DEFECTS  defects found in it and not fixed yet, one per line
#                as "NAME: what goes wrong": a check for NAME reports a
#                known failure (known_failure) while it fails, and fails
#                once it passes, so that the entry goes with the fix
#   FS_KNOWN_DEFECTS_STOCK  the same for stock 6.12, where that differs
#   FS_CRASH     what a power cut (tests/crash.sh) may expect of it, words
#                of: names (a file's fsync makes its new name durable),
#                unordered (no journal, no order between data and the
#                metadata that links it), sync-frees (its fsck may give a
#                block a truncate freed to the wrong file: truncates are
#                made durable at once); none: a journal, names not durable
#   FS_REPAIRED  the exit status of fs_repair that means "repaired" (a
#                crash leaves a filesystem without a journal to repair)
# and may define fs_repair (repair FS_DEV after a power cut; by default
# nothing: a journal is replayed at mount)
#   FS_FIO_BS    the block size of the fio verify run (default: FS_BLOCK)
#   FS_DEV       the device it is made on (default: TEST_DEV)
#   FS_MODEL_CAPS_STOCK  what fsmodel may rely on in stock 6.12, where that
#                differs from FS_MODEL_CAPS (see fs_model_caps)
#   FS_MODEL_SIZE  how large fsmodel's files grow now and then (its -X;
#                default 64m): a filesystem without sparse files allocates
#                all of it
#   FS_BENCHES   the benches that run on it, words of: dio (make bench's
#                O_DIRECT reads, TARGETS), db (make bench-db, FSES), seq
#                (make bench-seq, FS); with fs_bench_mkfs VARIANT [MB]
#                (make it on FS_DEV for a bench, all of it or its first MB
#                MiB, with nothing left to do in the background) and, for
#                dio, fs_bench_no_reserve MOUNTPOINT (keep no space back
#                from files: mkfrag fills all of it) when it keeps some
#   FS_BENCH_VARIANT  the variant the benches make unless told (default:
#                the first of FS_VARIANTS); ../lib/bench-fs.sh loads a
#                plug-in for them
#   FS_BENCH_SECTOR  with seq: the logical block size of the bench's
#                null_blk, no larger than the variants' blocks
# and defines fs_label VARIANT (the name its checks carry), fs_mkfs VARIANT
# (make it on FS_DEV), fs_fsck (check FS_DEV) and fs_mounted LABEL VARIANT
# MOUNTPOINT (one check that the variant is what got mounted), and may
# define fs_setup and fs_teardown (make and remove FS_DEV). The kernel
# options it needs are in tests/fs/NAME.config, a config fragment that
# host/build-kernel.sh merges right after config/guest.config.

# fs_load NAME: read tests/fs/NAME.sh over the defaults.
fs_load() {
	# shellcheck disable=SC2034 # read by the tests
	FS_ENGINES=$DIO_ENGINES
	FS_CANNOT=
	# shellcheck disable=SC2034 # read by t-50-fs-generic.sh
	FS_SKIP_CHECKS=
	FS_KNOWN_DEFECTS=
	unset FS_KNOWN_DEFECTS_STOCK
	# shellcheck disable=SC2034 # read by tests/crash.sh
	FS_CRASH=
	# shellcheck disable=SC2034 # read by tests/crash.sh
	FS_REPAIRED=
	# shellcheck disable=SC2317 # called by tests/crash.sh
	fs_repair() { :; }
	# shellcheck disable=SC2034 # read by the tests
	FS_FIO_BS=
	FS_DEV=$TEST_DEV
	unset FS_MODEL_CAPS FS_MODEL_CAPS_STOCK
	# shellcheck disable=SC2034 # read by the model tests
	FS_MODEL_SIZE=64m
	# shellcheck disable=SC2317 # called by the tests
	fs_setup() { :; }
	# shellcheck disable=SC2317 # called by the tests
	fs_teardown() { :; }
	# shellcheck source=/dev/null
	. "./fs/$1.sh"
	FS_MNT=/mnt/$FS_TYPE
}

# filesystems: the filesystems tests/fs has a plug-in for, by name: adding
# a plug-in adds the filesystem to every test that runs on them all.
filesystems() {
	for plugin in ./fs/*.sh; do
		basename "$plugin" .sh
	done
}

# fs_unusable: why the loaded filesystem cannot be tested here, or nothing.
fs_unusable() {
	if ! grep -qw "$FS_TYPE" /proc/filesystems; then
		echo "no $FS_TYPE filesystem in this kernel"
		return
	fi
	for tool in $FS_TOOLS; do
		if ! command -v "$tool" >/dev/null; then
			echo "no $tool in this guest"
			return
		fi
	done
}

# fs_open NAME: load tests/fs/NAME.sh and make its device; says why (a
# skipped or a failed result, and in $why when it is unusable) and returns 1
# when the filesystem cannot be tested.
fs_open() {
	fs_load "$1"
	why=$(fs_unusable)
	if [ -n "$why" ]; then
		skip "$1" "$why"
		return 1
	fi
	fs_setup && return 0
	fail "$1 device" "could not make $FS_DEV"
	return 1
}

# fs_model_caps: the loaded filesystem's capabilities for fsmodel -F:
# FS_MODEL_CAPS, or FS_MODEL_CAPS_STOCK (where the plug-in sets it) on a
# kernel without the series' simple read switch, taken for stock 6.12. A
# kernel this picks wrongly for (a step of the series without the simple
# read path) fails t-40's check of the declaration against fsmodel -P,
# loudly, rather than testing less.
fs_model_caps() {
	if [ -n "${FS_MODEL_CAPS_STOCK+set}" ] && [ ! -e $SIMPLE_READ ]; then
		set -- "$FS_MODEL_CAPS_STOCK"
	else
		set -- "$FS_MODEL_CAPS"
	fi
	# On one line, the words as they are.
	# shellcheck disable=SC2086
	set -- $1
	echo "$*"
}

# fs_remount_cmd: a command that unmounts and mounts again the loaded
# filesystem, for fsmodel -R.
fs_remount_cmd() {
	echo "umount $FS_MNT && mount -t $FS_TYPE $FS_DEV $FS_MNT"
}

# fs_can WHAT: whether the loaded filesystem can do WHAT (see FS_CANNOT).
fs_can() {
	case " $FS_CANNOT " in
	*" $1 "*) return 1 ;;
	esac
}

# fs_mkfs_mount LABEL VARIANT: make a fresh filesystem of the loaded type
# on FS_DEV and mount it on FS_MNT; a failure is reported as a failed test
# and returns 1, so callers can skip the variant.
fs_mkfs_mount() {
	umount "$FS_MNT" 2>/dev/null
	mkdir -p "$FS_MNT"
	fs_mkfs "$2" && mount -t "$FS_TYPE" "$FS_DEV" "$FS_MNT" && return 0
	fail "$1 mkfs and mount on $FS_DEV" "could not make or mount $1"
	return 1
}

# mkfs_mount FS MOUNTPOINT [DEVICE]: make a fresh filesystem FS (tests/fs/
# FS.sh, its first variant) on DEVICE (default $TEST_DEV) and mount it; a
# failure is reported as a failed test and returns 1, so callers can skip
# the fs.
mkfs_mount() {
	fs_load "$1"
	FS_DEV=${3:-$TEST_DEV}
	FS_MNT=$2
	fs_mkfs_mount "$1" "${FS_VARIANTS%% *}"
}

# stale_blocks BYTES: leave BYTES of freed blocks on the filesystem mounted
# on FS_MNT holding a pattern, so that blocks it allocates next start out
# with stale data that must not show through.
stale_blocks() {
	dio-check fill "$FS_MNT/stale" 0 "$1" 0x57a1e
	rm -f "$FS_MNT/stale"
	sync
}

# entries DIR: the number of entries in DIR, not counting DIR itself.
entries() {
	find "$1" -mindepth 1 -maxdepth 1 | wc -l | tr -d ' '
}

# dm_create NAME TABLE: make device-mapper device /dev/mapper/NAME from
# TABLE (without udev, dmsetup mknodes makes the node).
dm_create() {
	dmsetup create "$1" --table "$2" && dmsetup mknodes "$1"
}

# sectors DEVICE: the size of DEVICE in 512-byte sectors.
sectors() {
	cat "/sys/block/${1#/dev/}/size"
}

# unmount_test_dev: unmount whatever holds the test disk, so that it can be
# formatted or mapped.
unmount_test_dev() {
	awk -v d="$TEST_DEV" '$1 == d { print $2 }' /proc/mounts |
		while read -r m; do
			umount "$m"
		done
}

# seek_result FILE h|d OFFSET: the offset SEEK_HOLE (h) or SEEK_DATA (d)
# returns from OFFSET, as xfs_io reports it (EOF when there is none).
seek_result() {
	xfs_io -c "seek -$2 $3" "$1" | awk '$1 == "DATA" || $1 == "HOLE" { print $2 }'
}

# contiguous FILE OFFSET LENGTH BLOCK: succeed when the BLOCK-sized blocks
# holding FILE's bytes [OFFSET, OFFSET + LENGTH) lie one after the other on
# the device (FIBMAP), so that a filesystem that maps extents, or runs of
# blocks, can map the range at once.
contiguous() {
	first=$(dio-check bmap "$1" "$2") || return 1
	at=$4
	while [ "$at" -lt "$3" ]; do
		[ "$(dio-check bmap "$1" $(($2 + at)))" = $((first + at)) ] ||
			return 1
		at=$((at + $4))
	done
}

# kernel_reports: the lines of a kernel log on standard input that start a
# warning, oops, lockdep, KASAN or debug-objects report (lockdep and
# "sleeping function called from invalid context" reports start with
# WARNING: or BUG:), or that say a direct write found the page cache in its
# way: iomap's "Direct I/O collision" and the page cache's invalidation
# failure both mean a reader may have seen stale data.
kernel_reports() {
	grep -E 'WARNING:|BUG:|Oops|general protection|possible recursive locking|circular locking|INFO: task .* blocked|KASAN|ODEBUG|list_(add|del) corruption|Direct I/O collision|Page cache invalidation failure'
}

# Drop the page cache so buffered data cannot mask what O_DIRECT reads.
drop_caches() {
	sync
	echo 3 >/proc/sys/vm/drop_caches
}

# shellcheck source=guest/lib/trace.sh
. /lib/iomap/trace.sh

# expect_hits N: the simple path's hits for N reads it qualifies for: N when
# /sys/kernel/iomap/simple_read is 1, else 0.
expect_hits() {
	if [ "$(cat $SIMPLE_READ)" = 1 ]; then
		echo "$1"
	else
		echo 0
	fi
}

# hits NAME WANT COMMAND...: run COMMAND (a dio-check read, which verifies
# its data) with the trace buffer cleared; pass when it succeeds and the
# simple path served exactly WANT reads meanwhile.
hits() {
	hits_matching "" "$@"
}

# hits_matching TEXT NAME WANT COMMAND...: the same, counting only the
# simple path's trace lines that also contain TEXT.
hits_matching() {
	match=$1
	shift
	traced_count iomap_dio_simple_read "$match" hits "$@"
}

# traced_count EVENT TEXT UNIT NAME WANT COMMAND...: run COMMAND with the
# trace buffer cleared; pass when it succeeds and exactly WANT lines of the
# enabled trace point EVENT that contain TEXT were traced meanwhile (UNIT
# names them in the result).
traced_count() {
	event=$1
	match=$2
	unit=$3
	name=$4
	want=$5
	shift 5
	trace_start
	out=$("$@" 2>&1)
	rc=$?
	got=$(trace_stop_count "$match" "$event")
	if [ $rc -ne 0 ]; then
		fail "$name" "$(echo "$out" | tail -n 2 | tr '\n' ' ')"
		return
	fi
	check_eq "$name" "$got $unit" "$want $unit"
}
