# shellcheck shell=sh
# The simple read path through iomap_dio_rw() with an indirect mapping call:
# ext2-format volumes, read by ext2's own driver and by ext4's (which serves
# ext2 volumes through its indirect-block mapping).  Counted with the
# iomap_dio_simple_read trace point, the data checked every time.
# shellcheck source=guest/tests/lib.sh
. ./lib.sh

require_simple_read
require_fs ext2

SEED=0xe2e2
MNT=/mnt/ext2

for drv in ext2 ext4; do
	umount $MNT 2>/dev/null
	mkdir -p $MNT
	if ! fs_mkfs "$FS_VARIANTS" || ! mount -t $drv "$FS_DEV" $MNT; then
		fail "ext2 volume mounted by $drv" "mke2fs or mount failed"
		continue
	fi
	pass "ext2 volume mounted by $drv"
	f=$MNT/data
	check "$drv ext2 fill" dio-check fill $f 0 1048576 $SEED
	check "$drv ext2 sparse fill" dio-check fill $MNT/sparse 1048576 4096 $SEED
	check "$drv ext2 blocks 2-9 are contiguous" contiguous $f 8192 32768 4096
	drop_caches
	for s in 1 0; do
		echo $s >$SIMPLE_READ
		on="$drv ext2 simple_read=$s"
		for e in psync libaio io_uring; do
			hits "$on $e 4k reads" "$(expect_hits 8)" \
				dio-check read $f 61440 4096 $e pattern:$SEED 8
			hits "$on $e 512b reads" "$(expect_hits 8)" \
				dio-check read $f 66048 512 $e pattern:$SEED 8
			hits "$on $e hole reads zero" "$(expect_hits 8)" \
				dio-check read $MNT/sparse 65536 4096 $e zero 8
			hits "$on $e 8k reads of contiguous blocks" \
				"$(expect_hits 4)" \
				dio-check read $f 8192 8192 $e pattern:$SEED 4
			hits "$on $e 32k reads take the normal path" 0 \
				dio-check read $f 65536 32768 $e pattern:$SEED 2
		done
	done
	echo 1 >$SIMPLE_READ
	umount $MNT
done
