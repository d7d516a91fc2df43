# shellcheck shell=sh
# RWF_NOWAIT on the simple read path: a read that would have to wait for a
# request fails with EAGAIN at once, as a block device read does, instead
# of sleeping.  The device is a null_blk; first, with tags free, RWF_NOWAIT
# reads on ext4 and XFS take the simple path and return the data.  Then the
# device has one tag and completes each request after a second, and a raw
# read of the device holds the tag while a read of an ext4 file
# is tried (ext4 only: the logic is iomap's, and XFS's mount alone would
# cost dozens of slow requests).  io_uring retries such a read from a
# worker without RWF_NOWAIT, so there the data must arrive; with RWF_NOWAIT
# in the sqe io_uring hands the EAGAIN back.  Last, on a null_blk that
# takes at most 4 KiB a request and has a virtual boundary, RWF_NOWAIT reads
# that the block layer must split (16 KiB, and reads into a buffer that is
# not page aligned) return their data, as on the normal path, which sets no
# REQ_NOWAIT: a REQ_NOWAIT bio that must be split fails with EAGAIN on every
# try.
# shellcheck source=guest/tests/lib.sh
. ./lib.sh

require_simple_read

SEED=0x0a17
NULLB_CFG=/sys/kernel/config/nullb/nowait

# nw_blocked NAME ENGINE PATH EXPECT: with the only tag held by a raw read
# of the device, a 4 KiB read of PATH through ENGINE meets EXPECT.
nw_blocked() {
	xfs_io -d -r -c "pread -q 0 4096" "$nw_dev" &
	holder=$!
	tries=0
	while [ "$(awk '{ print $1 }' "$nw_inflight")" = 0 ] &&
		[ $tries -lt 100 ]; do
		sleep 0.01
		tries=$((tries + 1))
	done
	check "$1" dio-check read "$3" 8192 4096 "$2" "$4"
	wait $holder
}

# nw_power_on: bring the configured null_blk up, with no scheduler queue
# in front of its one tag.
nw_power_on() {
	echo 1 >$NULLB_CFG/power
	# A null_blk made through configfs is named after its directory.
	nw_dev=/dev/${NULLB_CFG##*/}
	nw_inflight="/sys/block/${nw_dev#/dev/}/inflight"
	echo none >"/sys/block/${nw_dev#/dev/}/queue/scheduler" 2>/dev/null
}

# nw_mkfs_fill FS: make FS on the null_blk, mount it on $mnt and fill its
# file $f with the pattern.
nw_mkfs_fill() {
	mnt=/mnt/nowait
	f=$mnt/data
	mkfs_mount "$1" $mnt "$nw_dev" &&
		check "$1 nowait fill" dio-check fill $f 0 65536 $SEED
}

# nw_config ATTR=VALUE...: set each configfs attribute of the null_blk.
nw_config() {
	for setting; do
		echo "${setting#*=}" >"$NULLB_CFG/${setting%%=*}"
	done
}

nw_main() {
	# mkfs.xfs wants at least 300 MiB.  Tags to spare while "the tag is
	# free": ext4's journal may write at any time, and a NOWAIT read that
	# finds its only tag taken by that fails with EAGAIN, as it should.
	nw_config size=320 memory_backed=1 blocksize=4096 submit_queues=1 \
		hw_queue_depth=64 irqmode=0
	nw_power_on

	# ext4 last: the slow part below reads its file.
	for fs in xfs ext4; do
		nw_mkfs_fill $fs || continue
		for s in 1 0; do
			echo $s >$SIMPLE_READ
			for e in nowait io_uring_nowait; do
				hits "$fs simple_read=$s $e 4k reads, tag free" "$(expect_hits 8)" \
					dio-check read $f 8192 4096 $e pattern:$SEED 8
			done
		done
		echo 1 >$SIMPLE_READ
		umount $mnt
	done
	echo 0 >$NULLB_CFG/power

	# The same device, now slow and with one tag: every request holds
	# it for a second.
	nw_config hw_queue_depth=1 irqmode=2 completion_nsec=1000000000
	nw_power_on
	mnt=/mnt/nowait
	if mount -t ext4 "$nw_dev" $mnt; then
		f=$mnt/data
		# Map the file before the tag is taken.
		check "ext4 nowait warm-up read" \
			dio-check read $f 8192 4096 psync pattern:$SEED
		nw_blocked "raw device RWF_NOWAIT read, tag held: EAGAIN" \
			nowait "$nw_dev" errno:EAGAIN
		nw_blocked "ext4 RWF_NOWAIT read, tag held: EAGAIN" \
			nowait $f errno:EAGAIN
		nw_blocked "ext4 io_uring RWF_NOWAIT read, tag held: EAGAIN" \
			io_uring_nowait $f errno:EAGAIN
		nw_blocked "ext4 io_uring read, tag held: retried, data" \
			io_uring $f pattern:$SEED
		nw_blocked "ext4 read, tag held: waits, data" \
			psync $f pattern:$SEED
		umount $mnt
	else
		fail "ext4 nowait remount" "mount failed"
	fi
	echo 0 >$NULLB_CFG/power
	rmdir $NULLB_CFG
}

# nw_split: RWF_NOWAIT reads that the block layer must split succeed, on
# the simple path and the normal path, with sync and io_uring reads.
nw_split() {
	# 512-byte blocks: memory-backed null_blk only finds data that a
	# request starting at the same block offset wrote, and a read into a
	# buffer that is not page aligned starts segments mid-page.
	nw_config size=320 memory_backed=1 blocksize=512 max_sectors=8 \
		virt_boundary=1 irqmode=0
	nw_power_on
	for fs in ext4 xfs; do
		nw_mkfs_fill $fs || continue
		for s in 1 0; do
			echo $s >$SIMPLE_READ
			n="$fs simple_read=$s, 4 KiB requests:"
			hits "$n 16k RWF_NOWAIT reads that must be split" \
				"$(expect_hits 8)" \
				dio-check read $f 16384 16384 nowait pattern:$SEED 8
			check "$n 16k io_uring RWF_NOWAIT read that must be split" \
				dio-check read $f 16384 16384 io_uring_nowait \
				pattern:$SEED
			check "$n 16k RWF_NOWAIT read into a buffer 512 bytes into a page" \
				dio-check read $f 16384 16384 nowait512 pattern:$SEED
			check "$n 4k RWF_NOWAIT read into a buffer 512 bytes into a page" \
				dio-check read $f 8192 4096 nowait512 pattern:$SEED
			hits "$n 4k RWF_NOWAIT reads within a page" \
				"$(expect_hits 8)" \
				dio-check read $f 8192 4096 nowait pattern:$SEED 8
		done
		echo 1 >$SIMPLE_READ
		umount $mnt
	done
	echo 0 >$NULLB_CFG/power
	rmdir $NULLB_CFG
}

mount -t configfs configfs /sys/kernel/config 2>/dev/null
mkdir $NULLB_CFG 2>/dev/null ||
	skip_test "cannot make a null_blk through configfs ($NULLB_CFG)"
nw_main
mkdir $NULLB_CFG 2>/dev/null ||
	skip_test "cannot make a second null_blk through configfs ($NULLB_CFG)"
nw_split
