# shellcheck shell=sh
# Power cuts (crash.sh, tools/fscrash.c) on the first variant of every
# filesystem tests/fs/*.sh describes, on a dm-flakey device: workloads of
# buffered, vectored, O_DSYNC, RWF_DSYNC and O_DIRECT writes, truncates,
# fallocate where there is one, fsync and fdatasync on a few files, cut
# after an op (the device drops every write from then on, the workload
# goes on, the unmount is lost too). After repair (ext2, minix, exfat) or
# journal replay (ext4, XFS), every byte and size must be one that fsync,
# fdatasync, O_DSYNC and RWF_DSYNC allow, nothing written after the cut
# may show, every file the setup made durable must exist (on ext4, XFS
# and exfat, one made after it and only fsynced too), and fsck must find
# the filesystem clean. For each filesystem: cuts at two points two seeds
# pick; a cut right after an fsync of every file, after which everything
# must come back exactly; O_DSYNC and RWF_DSYNC direct writes over blocks
# an unsynced buffered write allocated. The check can fail: one byte of
# an expectation corrupted is reported, and so are, on ext4, the losses of
# a workload that records syncs it leaves out.
# time-limit: 900
# shellcheck source=guest/tests/lib.sh
. ./lib.sh
# shellcheck source=guest/tests/crash.sh
. ./crash.sh

require_dm_target flakey
command -v fscrash >/dev/null || skip_test "no fscrash in this guest"

# Workload ops per cycle and the seeds of the cycles cut where the seed
# says; the filesystems the lying workload runs on ("all" for every one).
# A longer run sets them before this runs.
CRASH_OPS=${CRASH_OPS:-120}
CRASH_SEEDS=${CRASH_SEEDS:-"1 2"}
CRASH_LIE_ON=${CRASH_LIE_ON:-ext4}

unmount_test_dev
test_start=$(date +%s)
for fsname in $(filesystems); do
	lie=
	case " $CRASH_LIE_ON " in
	" all " | *" $fsname "*) lie=1 ;;
	esac
	crash_fs "$fsname" "$CRASH_SEEDS" "$CRASH_OPS" $lie
done
echo "# $TEST_NAME took $(($(date +%s) - test_start)) s"
