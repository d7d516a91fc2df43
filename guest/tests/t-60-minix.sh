# shellcheck shell=sh
# minix on iomap, for each of minix v1, v2 and v3: buffered create, write,
# read and append, truncate (shrink with partial-block zeroing, grow),
# holes, mmap write faults, O_DIRECT reads through every engine and
# O_DIRECT writes (extending, overwriting, into holes, sub-block), the
# simple direct-I/O read path, data surviving a remount, directories and
# symlinks still on buffer heads, fsck, and a fio verify run.  Each check
# compares data, sizes, listings or counts, not just exit codes.
# shellcheck source=guest/tests/lib.sh
. ./lib.sh

MINIX_SEED=0x3171
MINIX_ENGINES="psync libaio io_uring"
# 32 MiB in 1 KiB blocks: small and quick, and within what v1 can address.
MINIX_BLOCKS=32768
MINIX_MNT=/mnt/minix
MINIX_SIMPLE=/sys/kernel/iomap/simple_read
MINIX_START=$(date +%s)

# minix_stale [BYTES]: leave BYTES (default 256 KiB) of freed blocks
# holding the pattern, so that blocks allocated next start out with stale
# data that must not show through.
minix_stale() {
	dio-check fill "$MINIX_MNT/stale" 0 "${1:-262144}" $MINIX_SEED
	rm -f "$MINIX_MNT/stale"
	sync
}

# minix_count DIR: the number of entries in DIR, not counting DIR itself.
minix_count() {
	find "$1" -mindepth 1 -maxdepth 1 | wc -l | tr -d ' '
}

# minix_free: the free block count of the mounted filesystem.
minix_free() {
	sync
	stat -f -c %f "$MINIX_MNT"
}

# cut_checks LABEL FILE CUT SIZE: FILE held the pattern, was cut to CUT
# bytes and grown back to SIZE. O_DIRECT sees the pattern before CUT's
# 1 KiB block, that block zeroed from CUT on, and zeros up to SIZE.
cut_checks() {
	blk=$(($3 / 1024 * 1024))
	check "$1 truncate zeroes the partial block (direct)" \
		dio-check read "$2" $blk 1024 psync \
		zerofrom:$(($3 - blk)):$MINIX_SEED
	check "$1 truncate leaves zeros past the old end" \
		dio-check read "$2" $((blk + 1024)) $(($4 - blk - 1024)) psync zero
	check "$1 truncate keeps the data before the cut" \
		dio-check read "$2" 0 $blk psync pattern:$MINIX_SEED
}

# Nothing else may hold the test disk.
awk -v d="$TEST_DEV" '$1 == d { print $2 }' /proc/mounts |
	while read -r m; do
		umount "$m"
	done
echo 1 >$MINIX_SIMPLE
if ! simple_read_events 1; then
	fail "minix iomap_dio_simple_read trace point" "cannot enable it"
fi

for v in 1 2 3; do
	fs="minix v$v"
	mnt=$MINIX_MNT
	umount "$mnt" 2>/dev/null
	mkdir -p "$mnt"
	if ! mkfs.minix -"$v" "$TEST_DEV" "$MINIX_BLOCKS" >/dev/null 2>&1 ||
	   ! mount -t minix "$TEST_DEV" "$mnt"; then
		fail "$fs mkfs and mount" "could not make or mount minix v$v"
		continue
	fi
	case $v in
	1) want="137f 138f" ;;
	2) want="2468 2478" ;;
	*) want="4d5a" ;;
	esac
	got=$(stat -f -c %t "$mnt")
	case " $want " in
	*" $got "*) pass "$fs mounted as v$v" ;;
	*) fail "$fs mounted as v$v" "f_type $got, want one of $want" ;;
	esac

	# Create, write and read back through the page cache and from disk.
	# 1 MiB reaches the double indirect blocks of every version.
	f=$mnt/file
	check "$fs buffered write" dio-check fill "$f" 0 1048576 $MINIX_SEED
	check_eq "$fs file size" "$(stat -c %s "$f")" 1048576
	check "$fs buffered read" \
		dio-check read "$f" 12345 100000 buffered pattern:$MINIX_SEED
	drop_caches
	check "$fs buffered read from disk" \
		dio-check read "$f" 0 1048576 buffered pattern:$MINIX_SEED

	# O_DIRECT reads see buffered writes still in the page cache.
	check "$fs buffered write, no sync" \
		dio-check fill "$mnt/fresh" 0 8192 $MINIX_SEED
	check "$fs direct read of unsynced buffered data" \
		dio-check read "$mnt/fresh" 0 8192 psync pattern:$MINIX_SEED
	rm -f "$mnt/fresh"

	# O_DIRECT reads of 1 KiB blocks in the direct, single and double
	# indirect ranges, a multi-block read, misalignment and EOF.
	for e in $MINIX_ENGINES; do
		check "$fs $e 1k direct read, direct block" \
			dio-check read "$f" 3072 1024 "$e" pattern:$MINIX_SEED 4
		check "$fs $e 1k direct read, indirect block" \
			dio-check read "$f" 102400 1024 "$e" pattern:$MINIX_SEED
		check "$fs $e 1k direct read, double indirect block" \
			dio-check read "$f" 1046528 1024 "$e" pattern:$MINIX_SEED
		check "$fs $e 64k direct read" \
			dio-check read "$f" 65536 65536 "$e" pattern:$MINIX_SEED
		check "$fs $e 512b direct read inside a block" \
			dio-check read "$f" 5632 512 "$e" pattern:$MINIX_SEED
		check "$fs $e unaligned direct read is EINVAL" \
			dio-check read "$f" 100 1024 "$e" errno:EINVAL
		check "$fs $e direct read across eof is short" \
			dio-check read "$f" 1047552 4096 "$e" \
			short:1024:$MINIX_SEED
		check "$fs $e direct read at eof returns 0" \
			dio-check read "$f" 1048576 1024 "$e" short:0:$MINIX_SEED
	done

	# The simple read path serves 1 KiB (one block) O_DIRECT reads of
	# data and of holes, not reads of two blocks, and nothing when off.
	s=$mnt/simple
	dio-check fill "$s" 0 65536 $MINIX_SEED
	dio-check fill "$s" 131072 1024 $MINIX_SEED
	drop_caches
	for sr in 1 0; do
		echo $sr >$MINIX_SIMPLE
		n=0
		[ $sr = 1 ] && n=16
		for e in $MINIX_ENGINES; do
			hits "$fs simple_read=$sr $e 1k reads" $n \
				dio-check read "$s" 7168 1024 "$e" \
				pattern:$MINIX_SEED 16
			hits "$fs simple_read=$sr $e 1k hole reads" $n \
				dio-check read "$s" 99328 1024 "$e" zero 16
			hits "$fs simple_read=$sr $e 2k reads" 0 \
				dio-check read "$s" 8192 2048 "$e" \
				pattern:$MINIX_SEED 4
		done
	done
	echo 1 >$MINIX_SIMPLE

	# Append through O_APPEND: to new blocks, then within the last one.
	xfs_io -a -c "pwrite -q -S 0x61 0 3000" "$f"
	check_eq "$fs append size" "$(stat -c %s "$f")" 1051576
	xfs_io -a -c "pwrite -q -S 0x62 0 100" "$f"
	check_eq "$fs append within a block size" "$(stat -c %s "$f")" 1051676
	drop_caches
	check "$fs appended data" \
		dio-check read "$f" 1048576 3000 buffered byte:0x61
	check "$fs data appended within a block" \
		dio-check read "$f" 1051576 100 buffered byte:0x62
	check "$fs data before the append intact" \
		dio-check read "$f" 1044480 4096 psync pattern:$MINIX_SEED

	# Truncate into a block zeroes its tail: extend again and look, in
	# the direct blocks and in the indirect ones.
	minix_stale
	t=$mnt/trunc
	dio-check fill "$t" 0 16384 $MINIX_SEED
	truncate -s 5000 "$t"
	check_eq "$fs truncate shrinks" "$(stat -c %s "$t")" 5000
	check "$fs shrunk file reads the data up to the cut" \
		dio-check read "$t" 0 8192 buffered short:5000:$MINIX_SEED
	truncate -s 16384 "$t"
	check_eq "$fs truncate grows" "$(stat -c %s "$t")" 16384
	check "$fs truncate zeroes the partial block (buffered)" \
		dio-check read "$t" 4096 4096 buffered zerofrom:904:$MINIX_SEED
	drop_caches
	cut_checks "$fs" "$t" 5000 16384
	ti=$mnt/trunc-ind
	dio-check fill "$ti" 0 1048576 $MINIX_SEED
	truncate -s 300001 "$ti"
	truncate -s 1048576 "$ti"
	drop_caches
	cut_checks "$fs indirect" "$ti" 300001 1048576
	# Cutting a file inside a hole zeroes nothing, so it allocates nothing.
	th=$mnt/trunc-hole
	truncate -s 1048576 "$th"
	free0=$(minix_free)
	truncate -s 500000 "$th"
	check_eq "$fs truncate into a hole allocates no block" \
		"$(minix_free)" "$free0"
	drop_caches
	check "$fs truncate into a hole reads zero" \
		dio-check read "$th" 0 500000 buffered zero

	# A sparse file: a hole up to 1 MiB, then data.
	sp=$mnt/sparse
	check "$fs sparse fill" dio-check fill "$sp" 1048576 4096 $MINIX_SEED
	check_eq "$fs sparse size" "$(stat -c %s "$sp")" 1052672
	drop_caches
	check "$fs hole reads zero (buffered)" \
		dio-check read "$sp" 0 1048576 buffered zero
	for e in $MINIX_ENGINES; do
		check "$fs $e hole reads zero" \
			dio-check read "$sp" 65536 1024 "$e" zero
		check "$fs $e 64k hole reads zero" \
			dio-check read "$sp" 131072 65536 "$e" zero
		check "$fs $e data after the hole" \
			dio-check read "$sp" 1048576 4096 "$e" pattern:$MINIX_SEED
	done

	# O_DIRECT write into a hole inside the file (filled through the
	# page cache, then written back).
	minix_stale
	xfs_io -d -c "pwrite -q -S 0x44 65536 4096" "$sp"
	drop_caches
	check "$fs direct write into a hole" \
		dio-check read "$sp" 65536 4096 psync byte:0x44
	check "$fs hole before the direct write still zero" \
		dio-check read "$sp" 61440 4096 psync zero
	check "$fs hole after the direct write still zero" \
		dio-check read "$sp" 69632 4096 psync zero
	check "$fs data after the hole still intact" \
		dio-check read "$sp" 1048576 4096 psync pattern:$MINIX_SEED

	# O_DIRECT write of a new file, read back both ways.
	minix_stale
	d=$mnt/dwrite
	xfs_io -f -d -c "pwrite -q -S 0x5a 0 8192" "$d"
	check_eq "$fs direct write size" "$(stat -c %s "$d")" 8192
	drop_caches
	check "$fs direct write, direct read" \
		dio-check read "$d" 0 8192 libaio byte:0x5a
	check "$fs direct write, buffered read" \
		dio-check read "$d" 0 8192 buffered byte:0x5a
	# A direct overwrite replaces what the page cache holds.
	xfs_io -d -c "pwrite -q -S 0x6b 1024 2048" "$d"
	check "$fs buffered read after direct overwrite" \
		dio-check read "$d" 1024 2048 buffered byte:0x6b
	check "$fs direct overwrite keeps the rest" \
		dio-check read "$d" 3072 5120 buffered byte:0x5a
	# A direct write past EOF leaves a hole behind it.
	xfs_io -d -c "pwrite -q -S 0x7c 20480 2048" "$d"
	check_eq "$fs extending direct write size" "$(stat -c %s "$d")" 22528
	drop_caches
	check "$fs extending direct write data" \
		dio-check read "$d" 20480 2048 psync byte:0x7c
	check "$fs extending direct write leaves a hole" \
		dio-check read "$d" 8192 12288 psync zero

	# O_DIRECT overwrite in the middle of the patterned file.
	xfs_io -d -c "pwrite -q -S 0x33 4096 2048" "$f"
	drop_caches
	check "$fs direct overwrite" dio-check read "$f" 4096 2048 psync byte:0x33
	check "$fs direct overwrite keeps the data before" \
		dio-check read "$f" 0 4096 psync pattern:$MINIX_SEED
	check "$fs direct overwrite keeps the data after" \
		dio-check read "$f" 6144 2048 psync pattern:$MINIX_SEED

	# A 512-byte O_DIRECT write into a new block zeroes the rest of it.
	minix_stale
	h=$mnt/half
	xfs_io -f -d -c "pwrite -q -S 0x77 0 512" "$h"
	truncate -s 1024 "$h"
	{
		head -c 512 /dev/zero | tr '\0' 'w'
		head -c 512 /dev/zero
	} >/tmp/minix-half.ref
	drop_caches
	check "$fs sub-block direct write zeroes the rest of the block" \
		cmp /tmp/minix-half.ref "$h"

	# A buffered write into a hole allocates the block before it locks
	# the page: a reader that brings the page in between must read
	# zeros, not the block's old contents, and so must the disk after.
	minix_stale 8388608
	check "$fs buffered writes into holes raced by readers" \
		dio-check hole-race "$mnt/race" 2048
	rm -f "$mnt/race"

	# A write fault through mmap reaches the disk.
	minix_stale
	m=$mnt/mmap
	xfs_io -f -c "truncate 65536" -c "mmap -w 0 64k" \
		-c "mwrite -S 0x5a 0 64k" -c "msync -s 0 64k" -c "munmap" "$m"
	drop_caches
	check "$fs mmap write fault" dio-check read "$m" 0 65536 psync byte:0x5a

	# A write fault into a hole links its new block while the page is
	# still clean: an O_DIRECT reader, which does not take the page lock,
	# may read the block then, so it must already be zero on disk.  With
	# writeback held off, the block on disk still holds what the fault
	# linked, not the page.  FIBMAP writes dirty pages back, so the block
	# is found beforehand: minix allocates the lowest free block, the one
	# a probe file got and gave back (bmap prints its byte offset).
	minix_stale
	dio-check fill "$mnt/probe" 0 1024 $MINIX_SEED
	at=$(dio-check bmap "$mnt/probe" 0)
	rm -f "$mnt/probe"
	w=$(cat /proc/sys/vm/dirty_writeback_centisecs)
	echo 0 >/proc/sys/vm/dirty_writeback_centisecs
	fh=$mnt/fault-hole
	xfs_io -f -c "truncate 65536" -c "mmap -w 0 4k" \
		-c "mwrite -S 0x5a 0 16" "$fh"
	check "$fs block linked by a write fault is zero on disk" \
		dio-check read "$TEST_DEV" $((at + 512)) 512 psync zero
	check_eq "$fs write fault took the probe's block" \
		"$(dio-check bmap "$fh" 0)" "$at"
	echo "$w" >/proc/sys/vm/dirty_writeback_centisecs
	check "$fs write fault into a hole reaches the disk" sh -c \
		"sync && echo 3 >/proc/sys/vm/drop_caches &&
		 dio-check read $fh 0 16 buffered byte:0x5a &&
		 dio-check read $fh 16 1008 buffered zero"

	# Directories spanning more blocks than the direct ones, rename, and
	# a symlink.
	mkdir "$mnt/dir"
	i=0
	while [ $i -lt 300 ]; do
		echo "file $i" >"$mnt/dir/f$i"
		i=$((i + 1))
	done
	mkdir "$mnt/dir/sub"
	ln -s dir/f42 "$mnt/link"
	check_eq "$fs directory lists its entries" "$(minix_count "$mnt/dir")" 301
	check_eq "$fs file in a directory" "$(cat "$mnt/dir/f257")" "file 257"
	check_eq "$fs symlink" "$(cat "$mnt/link")" "file 42"
	mv "$mnt/dir/f7" "$mnt/dir/renamed"
	mv "$mnt/dir/f8" "$mnt/dir/sub/moved"
	check_eq "$fs rename" \
		"$(cat "$mnt/dir/renamed"; ls "$mnt/dir/f7" 2>/dev/null)" "file 7"
	check_eq "$fs rename into a subdirectory" \
		"$(cat "$mnt/dir/sub/moved"; ls "$mnt/dir/f8" 2>/dev/null)" "file 8"
	check_eq "$fs directory after renames" "$(minix_count "$mnt/dir")" 300
	if rmdir "$mnt/dir/sub" 2>/dev/null; then
		fail "$fs rmdir of a non-empty directory fails" "it succeeded"
	else
		pass "$fs rmdir of a non-empty directory fails"
	fi

	# A bounded fio verify run of 1 KiB O_DIRECT random writes.
	check "$fs fio direct randwrite verify" \
		fio --name=minix-verify --filename="$mnt/fio" --size=4m \
		--bs=1k --rw=randwrite --direct=1 --ioengine=psync \
		--verify=crc32c --verify_fatal=1 --fallocate=none --runtime=120
	fio_sum=$(md5sum <"$mnt/fio")

	# Everything survives an unmount and a fresh mount.
	for x in file sparse dwrite half mmap fault-hole trunc trunc-ind trunc-hole; do
		cp "$mnt/$x" "/tmp/minix-$x.ref"
	done
	umount "$mnt"
	check "$fs fsck after unmount" fsck.minix -f "$TEST_DEV"
	if ! mount -t minix "$TEST_DEV" "$mnt"; then
		fail "$fs remount" "could not mount minix v$v again"
		continue
	fi
	for x in file sparse dwrite half mmap fault-hole trunc trunc-ind trunc-hole; do
		check "$fs $x intact after remount" \
			cmp "/tmp/minix-$x.ref" "$mnt/$x"
	done
	check_eq "$fs sizes after remount" \
		"$(stat -c %s "$f" "$d" "$t" "$th" | tr '\n' ' ')" \
		"1051676 22528 16384 500000 "
	check "$fs pattern intact after remount" \
		dio-check read "$f" 8192 1040384 psync pattern:$MINIX_SEED
	check_eq "$fs fio data intact after remount" \
		"$(md5sum <"$mnt/fio")" "$fio_sum"
	check_eq "$fs directory after remount" "$(minix_count "$mnt/dir")" 300
	check_eq "$fs file in a directory after remount" \
		"$(cat "$mnt/dir/f299")" "file 299"
	check_eq "$fs renamed file after remount" \
		"$(cat "$mnt/dir/sub/moved")" "file 8"
	check_eq "$fs symlink after remount" "$(cat "$mnt/link")" "file 42"

	# Emptying and removing the directories.
	rm -f "$mnt"/dir/f* "$mnt/dir/renamed" "$mnt/dir/sub/moved"
	rmdir "$mnt/dir/sub"
	check_eq "$fs directory emptied" "$(minix_count "$mnt/dir")" 0
	rmdir "$mnt/dir"
	check_eq "$fs rmdir" \
		"$(if [ -e "$mnt/dir" ]; then echo present; else echo gone; fi)" \
		gone
	rm -f "$mnt/link" "$mnt/fio" "$f" "$s" "$sp" "$d" "$h" "$m" "$fh" \
		"$t" "$ti" "$th"
	check_eq "$fs everything removed" "$(minix_count "$mnt")" 0
	umount "$mnt"
	check "$fs fsck after removing everything" fsck.minix -f "$TEST_DEV"
	rm -f /tmp/minix-*.ref
done
simple_read_events 0
echo "t-60-minix: $(($(date +%s) - MINIX_START)) s"
