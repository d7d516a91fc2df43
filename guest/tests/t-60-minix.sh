# shellcheck shell=sh
# What is particular to minix on iomap, for each of minix v1, v2 and v3
# (tests/fs/minix.sh; t-50-fs-generic.sh runs the generic checks on them):
# a write fault into a hole links a block that is already zero on disk,
# new blocks are zeroed on disk only inside i_size and a run at a time, an
# O_DSYNC write that falls back to the page cache part way syncs each part
# once, and directories spanning more blocks than the direct ones, renames and
# symlinks, which stay on buffer heads, checked after fsck and a remount
# and again once emptied. Each check compares data, listings or counts,
# not just exit codes.
# shellcheck source=guest/tests/lib.sh
. ./lib.sh

require_fs minix
SEED=0x3171

# fault_window LABEL: a write fault into a hole links its new block while
# the page is still clean: an O_DIRECT reader, which does not take the page
# lock, may read the block then, so it must already be zero on disk.  With
# writeback held off, the block on disk still holds what the fault linked,
# not the page.  FIBMAP writes dirty pages back, so the block is found
# beforehand: minix allocates the lowest free block, the one a probe file
# got and gave back (bmap prints its byte offset).
fault_window() {
	stale_blocks 262144
	dio-check fill "$FS_MNT/probe" 0 1024 $SEED
	at=$(dio-check bmap "$FS_MNT/probe" 0)
	rm -f "$FS_MNT/probe"
	w=$(cat /proc/sys/vm/dirty_writeback_centisecs)
	echo 0 >/proc/sys/vm/dirty_writeback_centisecs
	fh=$FS_MNT/fault-hole
	xfs_io -f -c "truncate 65536" -c "mmap -w 0 4k" \
		-c "mwrite -S 0x5a 0 16" "$fh"
	check "$1 block linked by a write fault is zero on disk" \
		dio-check read "$TEST_DEV" $((at + 512)) 512 psync zero
	check_eq "$1 write fault took the probe's block" \
		"$(dio-check bmap "$fh" 0)" "$at"
	echo "$w" >/proc/sys/vm/dirty_writeback_centisecs
	check "$1 write fault into a hole reaches the disk" sh -c \
		"sync && echo 3 >/proc/sys/vm/drop_caches &&
		 dio-check read $fh 0 16 buffered byte:0x5a &&
		 dio-check read $fh 16 1008 buffered zero"
}

# device_writes: the write requests the test disk has completed.
device_writes() {
	awk '{ print $5 }' "/sys/class/block/${FS_DEV##*/}/stat"
}

# writes_during COMMAND...: run COMMAND and print how many write requests
# reached the test disk meanwhile (run with writeback held off).
writes_during() {
	sync
	before=$(device_writes)
	"$@" || return
	echo $(($(device_writes) - before))
}

# zeroing LABEL: blocks appended at or beyond i_size are not zeroed on disk,
# since no reader can see them before they are written: 1 KiB appends write
# nothing before writeback.  Filling a hole inside i_size zeroes the new
# blocks first, a run per array of block pointers, one request each: 7
# direct blocks and 57 through the first indirect block for 64 KiB.
zeroing() {
	w=$(cat /proc/sys/vm/dirty_writeback_centisecs)
	echo 0 >/proc/sys/vm/dirty_writeback_centisecs
	# Creating a file writes to the disk, so the files exist beforehand.
	a=$FS_MNT/appends
	: >"$a"
	check_eq "$1 1 KiB appends write nothing before writeback" \
		"$(writes_during xfs_io -c "pwrite -q -b 1k 0 16k" "$a")" 0
	h=$FS_MNT/hole-fill
	xfs_io -f -c "truncate 64k" "$h"
	check_eq "$1 filling a 64 KiB hole zeroes two runs" \
		"$(writes_during xfs_io -c "pwrite -q -b 64k 0 64k" "$h")" 2
	echo "$w" >/proc/sys/vm/dirty_writeback_centisecs
	drop_caches
	check "$1 appends reach the disk" dio-check read "$a" 0 16384 buffered \
		byte:0xcd
	check "$1 filled hole reaches the disk" dio-check read "$h" 0 65536 \
		buffered byte:0xcd
	rm -f "$a" "$h"
}

# dsync_fallback LABEL: an O_DSYNC O_DIRECT write over blocks, then a hole
# inside i_size and on past it writes the blocks directly and the rest
# through the page cache.  As the write extends the file, iomap_dio_rw()
# syncs the first part rather than write it through, and the write the
# second, so fsync is asked for each byte once (a kprobe on
# minix_file_fsync() adds up the ranges).  xfs_io passes RWF_DSYNC only to
# vectored writes (-V).
dsync_fallback() {
	f=$FS_MNT/dsync
	xfs_io -f -c "pwrite -q 0 4k" -c "truncate 6k" -c fsync "$f"
	echo 'p:minix_fsync minix_file_fsync start=%si:s64 end=%dx:s64' \
		>>$TRACING/kprobe_events
	echo 1 >$TRACING/events/kprobes/minix_fsync/enable
	trace_start
	xfs_io -d -c "pwrite -V 1 -D -b 8k -q -S 0x3c 0 8k" "$f"
	echo 0 >$TRACING/tracing_on
	synced=$(sed -n 's/.* minix_fsync: .* start=\([0-9]*\) end=\([0-9]*\)$/\1 \2/p' \
		$TRACING/trace | awk '{ n += $2 - $1 + 1 } END { print n + 0 }')
	echo 0 >$TRACING/events/kprobes/minix_fsync/enable
	echo '-:minix_fsync' >>$TRACING/kprobe_events
	check_eq "$1 O_DSYNC write falling back part way syncs each byte once" \
		"$synced bytes" "8192 bytes"
	drop_caches
	check "$1 O_DSYNC write falling back part way" dio-check read "$f" 0 \
		8192 buffered byte:0x3c
	rm -f "$f"
}

# directories LABEL: a directory spanning more blocks than the direct
# ones, renames within it and into a subdirectory, and a symlink.
directories() {
	mnt=$FS_MNT
	mkdir "$mnt/dir"
	i=0
	while [ $i -lt 300 ]; do
		echo "file $i" >"$mnt/dir/f$i"
		i=$((i + 1))
	done
	mkdir "$mnt/dir/sub"
	ln -s dir/f42 "$mnt/link"
	check_eq "$1 directory lists its entries" "$(entries "$mnt/dir")" 301
	check_eq "$1 file in a directory" "$(cat "$mnt/dir/f257")" "file 257"
	check_eq "$1 symlink" "$(cat "$mnt/link")" "file 42"
	mv "$mnt/dir/f7" "$mnt/dir/renamed"
	mv "$mnt/dir/f8" "$mnt/dir/sub/moved"
	check_eq "$1 rename" \
		"$(cat "$mnt/dir/renamed"; ls "$mnt/dir/f7" 2>/dev/null)" "file 7"
	check_eq "$1 rename into a subdirectory" \
		"$(cat "$mnt/dir/sub/moved"; ls "$mnt/dir/f8" 2>/dev/null)" "file 8"
	check_eq "$1 directory after renames" "$(entries "$mnt/dir")" 300
	if rmdir "$mnt/dir/sub" 2>/dev/null; then
		fail "$1 rmdir of a non-empty directory fails" "it succeeded"
	else
		pass "$1 rmdir of a non-empty directory fails"
	fi
}

unmount_test_dev
for v in $FS_VARIANTS; do
	fs=$(fs_label "$v")
	mnt=$FS_MNT
	fs_mkfs_mount "$fs" "$v" || continue
	fault_window "$fs"
	zeroing "$fs"
	dsync_fallback "$fs"
	directories "$fs"

	# Everything survives an unmount, fsck and a fresh mount.
	cp "$mnt/fault-hole" /tmp/minix-fault-hole.ref
	umount "$mnt"
	check "$fs fsck after unmount" fs_fsck
	if ! mount -t minix "$FS_DEV" "$mnt"; then
		fail "$fs remount" "could not mount minix v$v again"
		continue
	fi
	check "$fs fault-hole intact after remount" \
		cmp /tmp/minix-fault-hole.ref "$mnt/fault-hole"
	check_eq "$fs directory after remount" "$(entries "$mnt/dir")" 300
	check_eq "$fs file in a directory after remount" \
		"$(cat "$mnt/dir/f299")" "file 299"
	check_eq "$fs renamed file after remount" \
		"$(cat "$mnt/dir/sub/moved")" "file 8"
	check_eq "$fs symlink after remount" "$(cat "$mnt/link")" "file 42"

	# Emptying and removing the directories.
	rm -f "$mnt"/dir/f* "$mnt/dir/renamed" "$mnt/dir/sub/moved"
	rmdir "$mnt/dir/sub"
	check_eq "$fs directory emptied" "$(entries "$mnt/dir")" 0
	rmdir "$mnt/dir"
	check_eq "$fs rmdir" \
		"$(if [ -e "$mnt/dir" ]; then echo present; else echo gone; fi)" \
		gone
	rm -f "$mnt/link" "$mnt/fault-hole"
	check_eq "$fs everything removed" "$(entries "$mnt")" 0
	umount "$mnt"
	check "$fs fsck after removing everything" fs_fsck
	rm -f /tmp/minix-fault-hole.ref
done
