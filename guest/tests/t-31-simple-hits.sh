# shellcheck shell=sh
# When the simple direct-I/O read path is taken and when not, counted with
# the iomap_dio_simple_read trace point, on ext4 and XFS with the switch at
# 1 and 0, the data checked every time: 512 B, 4 KiB, block-crossing and
# 8 KiB / 16 KiB reads inside one extent, holes and unwritten extents
# through every engine (with the per-cpu bio cache for io_uring and the bio
# on the stack for synchronous reads), and not for reads over 16 KiB, reads
# across an extent boundary, from written data into a hole or an unwritten
# extent, or across EOF, nor for misaligned, buffered or write I/O, nor for
# the raw block device. A read the simple path maps but hands to the normal
# path is mapped once, not again from its start.
# About 380 checks: past the default limit on a host running other guests
# beside it (627 s seen with three).
# time-limit: 1200
# shellcheck source=guest/tests/lib.sh
. ./lib.sh

require_simple_read

SEED=0x51e0
DSTMAP=$TRACING/events/iomap/iomap_iter_dstmap/enable

# mappings NAME WANT COMMAND...: run COMMAND (a dio-check read, which
# verifies its data); pass when it succeeds and the filesystem handed out
# exactly WANT mappings meanwhile, as iomap_iter_dstmap counts them (both
# paths trace every mapping they get).
mappings() {
	echo 1 >$DSTMAP
	traced_count iomap_iter_dstmap "" mappings "$@"
	echo 0 >$DSTMAP
}
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
	check "$fs reads below are inside one extent" contiguous $f 0 131072 4096
	# Written data then a hole: blocks 0-1 written, 2-5 a hole.
	check "$fs data then hole" dio-check fill $mnt/mixed 0 8192 $SEED
	check "$fs data after the hole" dio-check fill $mnt/mixed 24576 4096 $SEED
	# Written data then an unwritten extent: block 1 written, 2-15 not.
	check "$fs fallocate for written then unwritten" \
		xfs_io -f -c "falloc 0 65536" $mnt/unwritten
	check_eq "$fs write into the unwritten extent" \
		"$(dio-check write $mnt/unwritten 4096 4096 psync $SEED)" 4096
	# An extent boundary on each side of block 2: insert a hole there,
	# which shifts the blocks after it on, then fill it; its block cannot
	# be the one after block 1's, which block 3 now holds.
	check "$fs fill to fragment" dio-check fill $mnt/frag 0 65536 $SEED
	check "$fs insert a hole at block 2" \
		xfs_io -c "finsert 8192 4096" $mnt/frag
	check "$fs refill around and into the hole" \
		dio-check fill $mnt/frag 0 69632 $SEED
	check_eq "$fs extent boundary before block 2" \
		"$(contiguous $mnt/frag 4096 8192 4096 && echo no || echo yes)" yes
	check_eq "$fs extent boundary after block 2" \
		"$(contiguous $mnt/frag 8192 8192 4096 && echo no || echo yes)" yes
	check "$fs blocks 3-6 inside one extent" contiguous $mnt/frag 12288 16384 4096
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
			hits "$on $e 8k reads" "$(expect_hits 4)" \
				dio-check read $f 8192 8192 "$e" pattern:$SEED 4
			hits "$on $e 16k reads" "$(expect_hits 4)" \
				dio-check read $f 16384 16384 "$e" pattern:$SEED 4
			hits "$on $e block-crossing 4k reads" "$(expect_hits 4)" \
				dio-check read $f 10240 4096 "$e" pattern:$SEED 4
			hits "$on $e 16k hole reads zero" "$(expect_hits 4)" \
				dio-check read $mnt/sparse 65536 16384 "$e" zero 4
			hits "$on $e 16k unwritten reads zero" "$(expect_hits 2)" \
				dio-check read $mnt/prealloc 16384 16384 "$e" zero 2
			hits "$on $e 8k reads beside an extent boundary" \
				"$(expect_hits 1)" \
				dio-check read $mnt/frag 12288 8192 "$e" pattern:$SEED
			hits "$on $e 32k reads take the normal path" 0 \
				dio-check read $f 32768 32768 "$e" pattern:$SEED 2
			hits "$on $e 8k reads across an extent boundary take the normal path" 0 \
				dio-check read $mnt/frag 4096 8192 "$e" pattern:$SEED
			hits "$on $e 16k reads across two extent boundaries take the normal path" 0 \
				dio-check read $mnt/frag 0 16384 "$e" pattern:$SEED
			mappings "$on $e 16k read across two extent boundaries maps each of its 3 extents once" 3 \
				dio-check read $mnt/frag 0 16384 "$e" pattern:$SEED
			mappings "$on $e 16k read from data into a hole maps data and hole once" 2 \
				dio-check read $mnt/mixed 0 16384 "$e" zerofrom:8192:$SEED
			hits "$on $e 16k reads from data into a hole take the normal path" 0 \
				dio-check read $mnt/mixed 0 16384 "$e" zerofrom:8192:$SEED
			hits "$on $e 16k reads from data into unwritten take the normal path" 0 \
				dio-check read $mnt/unwritten 4096 16384 "$e" zerofrom:4096:$SEED
			hits "$on $e read across eof takes the normal path" 0 \
				dio-check read $mnt/tail 4096 4096 "$e" short:904:$SEED
			hits "$on $e 16k read across eof takes the normal path" 0 \
				dio-check read $mnt/tail 0 16384 "$e" short:5000:$SEED
			hits "$on $e unaligned length is EINVAL" 0 \
				dio-check read $f 4096 100 "$e" errno:EINVAL
		done
		# 16 KiB into a buffer 512 bytes into a page span five pages:
		# a synchronous read (preadv2) still builds its bio on the stack.
		hits_matching "on_stack 1" \
			"$on 16k reads into five pages with the bio on the stack: 4 of 4" \
			"$(expect_hits 4)" \
			dio-check read $f 16384 16384 nowait512 pattern:$SEED 4
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

