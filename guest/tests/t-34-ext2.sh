# shellcheck shell=sh
# The simple read path through iomap_dio_rw() with an indirect mapping call:
# ext2-format volumes, read by ext2's own driver and by ext4's (which serves
# ext2 volumes through its indirect-block mapping).  Counted with the
# iomap_dio_simple_read trace point, the data checked every time.

E2_SEED=0xe2e2
E2_SIMPLE=/sys/kernel/iomap/simple_read
E2_MNT=/mnt/ext2

simple_read_events 1
for drv in ext2 ext4; do
	umount $E2_MNT 2>/dev/null
	mkdir -p $E2_MNT
	if ! mkfs.ext4 -q -F -t ext2 -b 4096 "$TEST_DEV" ||
		! mount -t $drv "$TEST_DEV" $E2_MNT; then
		fail "ext2 volume mounted by $drv" "mke2fs or mount failed"
		continue
	fi
	pass "ext2 volume mounted by $drv"
	f=$E2_MNT/data
	check "$drv ext2 fill" dio-check fill $f 0 1048576 $E2_SEED
	check "$drv ext2 sparse fill" dio-check fill $E2_MNT/sparse 1048576 4096 $E2_SEED
	drop_caches
	for s in 1 0; do
		echo $s >$E2_SIMPLE
		on="$drv ext2 simple_read=$s"
		for e in psync libaio io_uring; do
			hits "$on $e 4k reads" "$(expect_hits 8)" \
				dio-check read $f 61440 4096 $e pattern:$E2_SEED 8
			hits "$on $e 512b reads" "$(expect_hits 8)" \
				dio-check read $f 66048 512 $e pattern:$E2_SEED 8
			hits "$on $e hole reads zero" "$(expect_hits 8)" \
				dio-check read $E2_MNT/sparse 65536 4096 $e zero 8
			hits "$on $e 8k reads take the normal path" 0 \
				dio-check read $f 8192 8192 $e pattern:$E2_SEED 4
		done
	done
	echo 1 >$E2_SIMPLE
	umount $E2_MNT
done
