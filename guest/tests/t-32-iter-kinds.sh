# shellcheck shell=sh
# Every kind of iterator an O_DIRECT read on ext4 and XFS can carry into the
# simple read path, with the data checked and the simple path's hits
# counted, the switch at 1 and at 0: user memory (pread: ITER_UBUF; preadv
# with one segment, and with two whose first crosses a page boundary:
# ITER_IOVEC; preadv2 RWF_NOWAIT) and kernel pages (ITER_BVEC: splice into
# a pipe, sendfile, copy_file_range between O_DIRECT files, all through
# copy_splice_read(); io_uring fixed buffers; a loop device doing direct
# I/O to a file on the filesystem).  A synchronous bvec read used to build
# its bio on the stack with vectors of its own and hit
# WARN_ON_ONCE(bio->bi_max_vecs) in bio_iov_bvec_set(), so the kernel log
# must gain no warning here.  ITER_KVEC (kernel_read()) does not reach an
# O_DIRECT read in this guest: none of its callers opens a file O_DIRECT.
# shellcheck source=guest/tests/lib.sh
. ./lib.sh

require_simple_read

SEED=0x17e4
ENGINES="psync readv readv2 nowait io_uring_fixed splice sendfile cfr"

# kernel_warnings: how many warnings the kernel log holds.
kernel_warnings() {
	dmesg | grep -c 'WARNING:'
}

warnings_before=$(kernel_warnings)
for fs in ext4 xfs; do
	mnt=/mnt/$fs
	mkfs_mount $fs $mnt || continue
	f=$mnt/data
	check "$fs iter fill" dio-check fill $f 0 4194304 $SEED
	drop_caches
	for s in 1 0; do
		echo $s >$SIMPLE_READ
		on="$fs simple_read=$s"
		for e in $ENGINES; do
			want=8
			# XFS clones a block-aligned copy_file_range instead
			# of reading it; a 512-byte one it copies by reading.
			[ $fs = xfs ] && [ "$e" = cfr ] && want=0
			hits "$on $e 4k reads" "$(expect_hits $want)" \
				dio-check read $f 8192 4096 "$e" pattern:$SEED 8
			hits "$on $e 16k reads" "$(expect_hits $((want / 2)))" \
				dio-check read $f 16384 16384 "$e" pattern:$SEED 4
			# Two segments need at least 1 KiB.
			[ "$e" = readv2 ] && continue
			hits "$on $e 512b reads" "$(expect_hits 8)" \
				dio-check read $f 66048 512 "$e" pattern:$SEED 8
		done
		hits "$on readv2 8k reads" "$(expect_hits 4)" \
			dio-check read $f 8192 8192 readv2 pattern:$SEED 4
	done
	echo 1 >$SIMPLE_READ

	# The loop driver reads its backing file with an asynchronous kiocb
	# over the request's own bio_vecs.
	# util-linux losetup: busybox's, which the shell prefers, has no --direct-io.
	if loop=$(/usr/sbin/losetup --direct-io=on -f --show $f); then
		check_eq "$fs loop device does direct I/O" \
			"$(cat "/sys/block/${loop#/dev/}/loop/dio")" 1
		for e in psync io_uring; do
			hits "$fs loop $e 4k reads" 8 \
				dio-check read "$loop" 8192 4096 "$e" pattern:$SEED 8
		done
		hits "$fs loop psync 16k reads" 4 \
			dio-check read "$loop" 16384 16384 psync pattern:$SEED 4
		hits "$fs loop psync 64k reads take the normal path" 0 \
			dio-check read "$loop" 65536 65536 psync pattern:$SEED 2
		/usr/sbin/losetup -d "$loop"
	else
		fail "$fs loop device" "losetup --direct-io=on failed"
	fi
	umount $mnt
done
check_eq "iterator kinds: no kernel warning" "$(kernel_warnings)" "$warnings_before"
