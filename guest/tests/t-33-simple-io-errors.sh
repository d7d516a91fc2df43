# shellcheck shell=sh
# I/O errors under the simple direct-I/O read path, on ext4 and XFS: a
# dm-dust device fails reads of one block; every read of it must fail
# with EIO and reads of its neighbour succeed, each read reporting its own
# bio's status, also with four tasks at once, and the block reads again
# once the error is gone.
# shellcheck source=guest/tests/lib.sh
. ./lib.sh

require_simple_read
require_dm_target dust

SEED=0x51e0
# The second NVMe disk carries the dm-dust device.
DUST_DISK=/dev/nvme1n1

# sync_storm FILE: two tasks read FILE's bad first block and two its good
# second block, 200 synchronous reads each, at the same time.  Each read
# must report its own bio's status: EIO for every bad read, the pattern
# for every good one.
sync_storm() {
	storm_errs=/tmp/storm-errs
	: >$storm_errs
	for t in 1 2; do
		{ dio-check read "$1" 0 4096 psync errno:EIO 200 ||
			echo "bad-block task $t" ; } >>$storm_errs 2>&1 &
		{ dio-check read "$1" 4096 4096 psync pattern:$SEED 200 ||
			echo "good-block task $t" ; } >>$storm_errs 2>&1 &
	done
	wait
	[ ! -s $storm_errs ] || { head -n 2 $storm_errs; return 1; }
}

# first_block FILE: the physical 4 KiB block of the file's first byte.
first_block() {
	filefrag -v -b4096 "$1" |
		sed -n 's/^ *0: *[0-9]*\.\. *[0-9]*: *\([0-9]*\)\.\..*/\1/p'
}

if ! dm_create dust "0 $(sectors $DUST_DISK) dust $DUST_DISK 0 4096"; then
	fail "dm-dust device" "dmsetup create failed"
else
	for fs in ext4 xfs; do
		mnt=/mnt/dust
		mkfs_mount $fs $mnt /dev/mapper/dust || continue
		f=$mnt/bad
		check "$fs dust fill" dio-check fill $f 0 65536 $SEED
		drop_caches
		blk=$(first_block $f)
		check "$fs dust mark block $blk bad" \
			dmsetup message dust 0 addbadblock "$blk"
		check "$fs dust enable bad blocks" \
			dmsetup message dust 0 enable
		for s in 1 0; do
			echo $s >$SIMPLE_READ
			for e in psync libaio io_uring; do
				hits "$fs simple_read=$s $e bad block is EIO" \
					"$(expect_hits 1)" \
					dio-check read $f 0 4096 "$e" errno:EIO
				hits "$fs simple_read=$s $e good block still reads" \
					"$(expect_hits 1)" \
					dio-check read $f 4096 4096 "$e" pattern:$SEED
			done
		done
		echo 1 >$SIMPLE_READ
		hits_matching "on_stack 1" \
			"$fs 4 tasks x 200 sync reads of a bad and a good block" \
			800 sync_storm $f
		check "$fs dust disable bad blocks" \
			dmsetup message dust 0 disable
		hits "$fs bad block reads again after the error" 4 \
			dio-check read $f 0 4096 io_uring pattern:$SEED 4
		umount $mnt
	done
	dmsetup remove dust
fi

