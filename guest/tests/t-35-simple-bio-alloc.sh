# shellcheck shell=sh
# A bio allocation failure on the simple direct-I/O read path, on ext4 and
# XFS: the path must not sleep for its bio, but fall back to the normal
# path.
# shellcheck source=guest/tests/lib.sh
. ./lib.sh

require_simple_read
require_dm_target delay
[ -d /sys/kernel/debug/failslab ] ||
	skip_test "no failslab in this kernel (CONFIG_FAILSLAB)"

SEED=0x51e0
# failslab fails every slab allocation that could not sleep anyway
# (ignore-gfp-wait) of tasks marked make-it-fail.  dm-delay holds each read
# for a second while the reads are checked, so a batch of 32 reads is in
# flight at once: the bio_set's reserve of 4 serves four of them and the
# other 28 must fall back to the normal path, whose allocations may sleep
# and so are not failed.  A simple path that slept in the allocator
# instead would serve all 32.  (With 50 ms, on a host shared with three
# other guests, the first reads completed before the last were submitted
# and their bios served four more.)
FAILSLAB=/sys/kernel/debug/failslab
SLOW_DISK=/dev/nvme1n1

# read_delay MS: hold each read of the slow device for MS ms from now on
# (resume swaps in the new table, suspending the device first).
read_delay() {
	dmsetup load slow --table \
		"0 $(sectors $SLOW_DISK) delay $SLOW_DISK 0 $1 $SLOW_DISK 0 0" &&
		dmsetup resume slow
}

# failing COMMAND...: run COMMAND with its non-sleeping slab allocations
# failed.
failing() {
	sh -c 'echo 1 >/proc/self/make-it-fail && exec "$@"' failing "$@"
}

if ! dm_create slow \
	"0 $(sectors $SLOW_DISK) delay $SLOW_DISK 0 50 $SLOW_DISK 0 0"; then
	fail "dm-delay device" "dmsetup create failed"
else
	echo Y >$FAILSLAB/task-filter
	echo Y >$FAILSLAB/ignore-gfp-wait
	echo 0 >$FAILSLAB/verbose
	echo -1 >$FAILSLAB/times
	echo 100 >$FAILSLAB/probability
	for fs in ext4 xfs; do
		mnt=/mnt/slow
		mkfs_mount $fs $mnt /dev/mapper/slow || continue
		f=$mnt/data
		check "$fs slow fill" dio-check fill $f 0 65536 $SEED
		drop_caches
		check "$fs reads held for a second" read_delay 1000
		hits "$fs 32 reads at once, allocations succeed: 32 of 32" 32 \
			dio-check read $f 8192 4096 libaio-batch pattern:$SEED 32
		hits "$fs 32 reads at once, non-sleeping allocations fail: 4 of 32" \
			4 failing dio-check read $f 8192 4096 libaio-batch \
			pattern:$SEED 32
		hits "$fs one read at a time, allocations fail: reserve serves 8 of 8" \
			8 failing dio-check read $f 8192 4096 libaio pattern:$SEED 8
		echo 0 >$SIMPLE_READ
		hits "$fs simple_read=0, allocations fail: 0 of 32" 0 \
			failing dio-check read $f 8192 4096 libaio-batch \
			pattern:$SEED 32
		echo 1 >$SIMPLE_READ
		check "$fs reads held for 50 ms" read_delay 50
		umount $mnt
	done
	echo 0 >$FAILSLAB/probability
	dmsetup remove slow
fi

