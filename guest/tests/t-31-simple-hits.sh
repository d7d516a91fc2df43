# shellcheck shell=sh
# When the simple direct-I/O read path is taken and when not, counted with
# the iomap_dio_simple_read trace point, on ext4 and XFS with the switch at
# 1 and 0, the data checked every time: 4 KiB and 512 B reads, holes and
# unwritten extents through every engine (with the per-cpu bio cache for
# io_uring and the bio on the stack for synchronous reads), and not for
# larger, block-crossing, EOF-crossing, misaligned, buffered or write I/O,
# nor for the raw block device.
# shellcheck source=guest/tests/lib.sh
. ./lib.sh

require_simple_read

SEED=0x51e0
# The raw device read at the end: the second NVMe disk.
RAW_DISK=/dev/nvme1n1

for fs in ext4 xfs; do
	mnt=/mnt/$fs
	mkfs_mount $fs $mnt || continue
	f=$mnt/data
	check "$fs fill" dio-check fill $f 0 1048576 $SEED
	check "$fs sparse fill" dio-check fill $mnt/sparse 1048576 4096 $SEED
	check "$fs fallocate" xfs_io -f -c "falloc 0 65536" $mnt/prealloc
	check "$fs eof fill" dio-check fill $mnt/tail 0 5000 $SEED
	drop_caches

	for s in 1 0; do
		echo $s >$SIMPLE_READ
		on="$fs simple_read=$s"
		for e in $DIO_ENGINES; do
			hits "$on $e 4k reads" "$(expect_hits 8)" \
				dio-check read $f 8192 4096 "$e" pattern:$SEED 8
			hits "$on $e 512b reads" "$(expect_hits 8)" \
				dio-check read $f 66048 512 "$e" pattern:$SEED 8
			hits "$on $e hole reads zero" "$(expect_hits 4)" \
				dio-check read $mnt/sparse 65536 4096 "$e" zero 4
			hits "$on $e unwritten reads zero" "$(expect_hits 4)" \
				dio-check read $mnt/prealloc 4096 4096 "$e" zero 4
			# Only io_uring asks for the per-cpu bio cache.
			cached=0
			case $e in io_uring*) cached=8 ;; esac
			hits_matching "alloc_cache 1" \
				"$on $e 4k reads with the bio cache: $cached of 8" \
				"$(expect_hits $cached)" \
				dio-check read $f 8192 4096 "$e" pattern:$SEED 8
			# Only synchronous reads wait in the caller's frame.
			stacked=0
			[ "$e" = psync ] && stacked=8
			hits_matching "on_stack 1" \
				"$on $e 4k reads with the bio on the stack: $stacked of 8" \
				"$(expect_hits $stacked)" \
				dio-check read $f 8192 4096 "$e" pattern:$SEED 8
			hits "$on $e 8k reads take the normal path" 0 \
				dio-check read $f 8192 8192 "$e" pattern:$SEED 4
			hits "$on $e block-crossing 4k reads take the normal path" 0 \
				dio-check read $f 10240 4096 "$e" pattern:$SEED 4
			hits "$on $e read across eof takes the normal path" 0 \
				dio-check read $mnt/tail 4096 4096 "$e" short:904:$SEED
			hits "$on $e unaligned length is EINVAL" 0 \
				dio-check read $f 4096 100 "$e" errno:EINVAL
		done
		hits "$on buffered reads do not take it" 0 \
			dio-check read $f 8192 4096 buffered pattern:$SEED 8
		hits "$on 4k O_DIRECT writes do not take it" 0 \
			xfs_io -f -d -c "pwrite -q 0 4096" $mnt/written
	done
	echo 1 >$SIMPLE_READ
	umount $mnt
done

# The block device's own direct I/O does not go through iomap.
check "raw device fill" dio-check fill $RAW_DISK 0 65536 $SEED
hits "raw device reads do not take it" 0 \
	dio-check read $RAW_DISK 4096 4096 psync pattern:$SEED 4

