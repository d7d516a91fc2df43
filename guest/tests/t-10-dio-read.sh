# shellcheck shell=sh
# O_DIRECT reads of a known pattern on the raw NVMe device, ext4 and XFS,
# through every engine: data, holes, unwritten extents, alignment errors
# and short reads at EOF.
# shellcheck source=guest/tests/lib.sh
. ./lib.sh

SEED=0x5eed

# dio_reads LABEL PATH: 4 KiB and 512 B reads at aligned offsets.
dio_reads() {
	for e in $DIO_ENGINES; do
		check "$1 $e 4k read" \
			dio-check read "$2" 8192 4096 "$e" pattern:$SEED 4
		check "$1 $e 512b read" \
			dio-check read "$2" 66048 512 "$e" pattern:$SEED
		check "$1 $e unaligned offset is EINVAL" \
			dio-check read "$2" 4097 4096 "$e" errno:EINVAL
		check "$1 $e unaligned length is EINVAL" \
			dio-check read "$2" 4096 100 "$e" errno:EINVAL
	done
}

# Raw device: the ceiling and the reference behaviour.
check "raw fill" dio-check fill "$TEST_DEV" 0 1048576 $SEED
drop_caches
dio_reads raw "$TEST_DEV"

for fs in ext4 xfs; do
	mnt=/mnt/$fs
	mkfs_mount $fs $mnt || continue
	f=$mnt/pattern
	check "$fs fill" dio-check fill $f 0 1048576 $SEED
	drop_caches
	dio_reads "$fs" $f

	# A sparse file: a hole in the middle reads as zeros.
	check "$fs sparse fill" dio-check fill $mnt/sparse 1048576 4096 $SEED
	drop_caches
	for e in $DIO_ENGINES; do
		check "$fs $e hole reads zero" \
			dio-check read $mnt/sparse 65536 4096 "$e" zero
		check "$fs $e data after hole" \
			dio-check read $mnt/sparse 1048576 4096 "$e" pattern:$SEED
	done

	# Preallocated (unwritten) extent reads as zeros.
	check "$fs fallocate" xfs_io -f -c "falloc 0 262144" $mnt/prealloc
	for e in $DIO_ENGINES; do
		check "$fs $e unwritten reads zero" \
			dio-check read $mnt/prealloc 4096 4096 "$e" zero
	done

	# A read across EOF is short; a read at EOF returns 0.
	check "$fs eof fill" dio-check fill $mnt/tail 0 5000 $SEED
	drop_caches
	for e in $DIO_ENGINES; do
		check "$fs $e read across eof is short" \
			dio-check read $mnt/tail 4096 4096 "$e" short:904:$SEED
		check "$fs $e read at eof returns 0" \
			dio-check read $mnt/tail 8192 4096 "$e" short:0:$SEED
	done
	umount $mnt
done
