# shellcheck shell=sh
# The generic filesystem suite, run on every variant of every filesystem
# tests/fs/*.sh describes (ext4, XFS, ext2, minix v1/v2/v3, exfat with
# three cluster sizes): buffered create, write, read and append; O_DIRECT
# reads through every engine the filesystem serves (one block, several,
# misaligned, across and at EOF); files grown by truncate and sparse files
# reading zeros, with SEEK_HOLE/SEEK_DATA where the filesystem has them;
# the simple direct-I/O read path's hit counts; writes into the middle of
# a grown file; truncate (shrink with partial-block zeroing, grow);
# O_DIRECT writes (new file, overwrite, extending, into a hole, sub-block,
# misaligned); mmap write faults (also growing a file a byte at a time);
# stores through a mapping kept across a truncate down and up; a buffered
# write raced by readers; a fio verify run; fsck; and every file again
# after a remount. Blocks freed just before hold a pattern, so stale
# data showing through is caught. Each check compares data, sizes,
# offsets or counts, not just exit codes. The checks are grouped in named
# generic checks (GENERIC_CHECKS below) that a filesystem can skip, with
# its reason.
# time-limit: 2700
# shellcheck source=guest/tests/lib.sh
. ./lib.sh

SEED=0x3171
MB=1048576
FILESYSTEMS=$(filesystems)

# down N, up N: N rounded down, up to a multiple of the block size.
down() {
	echo $(($1 / FS_BLOCK * FS_BLOCK))
}
up() {
	echo $((($1 + FS_BLOCK - 1) / FS_BLOCK * FS_BLOCK))
}

# free_blocks: the free block count of the mounted filesystem.
free_blocks() {
	sync
	stat -f -c %f "$FS_MNT"
}

# cut_checks LABEL FILE CUT SIZE: FILE held the pattern, was cut to CUT
# bytes and grown back to SIZE: it reads the pattern up to CUT and zeros
# after, through the page cache and from disk with every engine.
cut_checks() {
	blk=$(down "$3")
	check "$1 truncate keeps the data before the cut (buffered)" \
		dio-check read "$2" 0 "$3" buffered pattern:$SEED
	check "$1 truncate leaves zeros past the cut (buffered)" \
		dio-check read "$2" "$3" $(($4 - $3)) buffered zero
	drop_caches
	for e in $FS_ENGINES; do
		check "$1 $e cut block zeroed from the cut" \
			dio-check read "$2" "$blk" "$FS_BLOCK" "$e" \
			zerofrom:$(($3 - blk)):$SEED
		check "$1 $e zeros past the cut block" \
			dio-check read "$2" $((blk + FS_BLOCK)) \
			$(($4 - blk - FS_BLOCK)) "$e" zero
	done
	check "$1 data before the cut (direct)" \
		dio-check read "$2" 0 "$blk" psync pattern:$SEED
}

# The generic checks, in the order they run: each is a function gc_NAME
# that works on files of its own on the filesystem mounted on FS_MNT,
# names with keep the ones the remount at the end must find intact, and
# registers with after_remount what else it checks then. A filesystem
# skips a check it cannot pass by naming it, with the reason, in
# FS_SKIP_CHECKS (tests/lib.sh).
GENERIC_CHECKS="buffered direct_reads grown_file seek_holes simple_hits
	append truncate hole_truncate sparse direct_writes mmap mapped_stores
	write_race fio_verify"

# keep FILE...: files of FS_MNT to compare after the remount.
keep() {
	kept="$kept $*"
}

# after_remount FUNCTION: run FUNCTION after the remount.
after_remount() {
	remount_hooks="$remount_hooks $1"
}

# Create, write and read back through the page cache and from disk.
gc_buffered() {
	f=$mnt/file
	check "$L buffered write" dio-check fill "$f" 0 $MB $SEED
	check_eq "$L file size" "$(stat -c %s "$f")" $MB
	check "$L buffered read" \
		dio-check read "$f" 12345 100000 buffered pattern:$SEED
	drop_caches
	check "$L buffered read from disk" \
		dio-check read "$f" 0 $MB buffered pattern:$SEED
	keep file
	after_remount gc_buffered_remount
}
gc_buffered_remount() {
	check "$L pattern intact after remount (direct)" \
		dio-check read "$mnt/file" 0 $MB psync pattern:$SEED
}

# O_DIRECT reads see buffered writes still in the page cache; then reads
# of one block near the start, at 100 KiB and at 1022 KiB (minix: a
# direct, an indirect and a double indirect block), of several blocks,
# misaligned, and across and at EOF.
gc_direct_reads() {
	check "$L buffered write, no sync" \
		dio-check fill "$mnt/fresh" 0 8192 $SEED
	check "$L direct read of unsynced buffered data" \
		dio-check read "$mnt/fresh" 0 8192 psync pattern:$SEED
	rm -f "$mnt/fresh"
	r=$mnt/dread
	dio-check fill "$r" 0 $MB $SEED
	drop_caches
	for e in $FS_ENGINES; do
		check "$L $e one-block direct read at 3 KiB" \
			dio-check read "$r" "$(down 3072)" "$B" "$e" pattern:$SEED 4
		check "$L $e one-block direct read at 100 KiB" \
			dio-check read "$r" "$(down 102400)" "$B" "$e" pattern:$SEED
		check "$L $e one-block direct read at 1022 KiB" \
			dio-check read "$r" "$(down 1046528)" "$B" "$e" pattern:$SEED
		check "$L $e 4k direct read" \
			dio-check read "$r" 102400 4096 "$e" pattern:$SEED
		check "$L $e 64k direct read" \
			dio-check read "$r" 65536 65536 "$e" pattern:$SEED
		check "$L $e 64k direct read at a 512-byte offset" \
			dio-check read "$r" 65024 65536 "$e" pattern:$SEED
		check "$L $e 512b direct read inside a block" \
			dio-check read "$r" 5632 512 "$e" pattern:$SEED
		check "$L $e unaligned direct read is EINVAL" \
			dio-check read "$r" 100 "$B" "$e" errno:EINVAL
		check "$L $e direct read across eof is short" \
			dio-check read "$r" 1047552 4096 "$e" short:1024:$SEED
		check "$L $e direct read at eof returns 0" \
			dio-check read "$r" $MB "$B" "$e" short:0:$SEED
	done
}

# A file grown by truncate: a hole (exfat: allocated clusters beyond
# valid_size, which hold the stale pattern) reading zeros every way; then
# a buffered write into its middle: zeros before it (exfat: it moves
# valid_size, zeroing the gap), its data, zeros after.
gc_grown_file() {
	g=$mnt/grown
	truncate -s $MB "$g"
	check_eq "$L grown size" "$(stat -c %s "$g")" $MB
	check "$L grown file reads zero (buffered)" \
		dio-check read "$g" 0 $MB buffered zero
	drop_caches
	for e in $FS_ENGINES; do
		check "$L $e grown file reads zero (one block)" \
			dio-check read "$g" 4096 "$B" "$e" zero 4
		check "$L $e grown file reads zero (64k)" \
			dio-check read "$g" 131072 65536 "$e" zero
	done
	check "$L grown file reads zero (1m direct)" \
		dio-check read "$g" 0 $MB psync zero

	xfs_io -c "pwrite -q -S 0x47 300000 100" "$g"
	check_eq "$L write into a grown file keeps the size" \
		"$(stat -c %s "$g")" $MB
	drop_caches
	wend=$(up 300100)
	check "$L zeros before a write into a grown file" \
		dio-check read "$g" 0 300000 buffered zero
	check "$L data written into a grown file" \
		dio-check read "$g" 300000 100 buffered byte:0x47
	check "$L rest of its block zero" \
		dio-check read "$g" 300100 $((wend - 300100)) buffered zero
	for e in $FS_ENGINES; do
		check "$L $e zeros before it (direct)" \
			dio-check read "$g" 0 "$(down 300000)" "$e" zero
		check "$L $e zeros after its block (direct)" \
			dio-check read "$g" "$wend" $((MB - wend)) "$e" zero
	done
	keep grown
	after_remount gc_grown_file_remount
}
gc_grown_file_remount() {
	check "$L zeros after the grown file's written block after remount" \
		dio-check read "$g" "$wend" $((MB - wend)) psync zero
}

# SEEK_DATA and SEEK_HOLE in a file grown by truncate, before and after a
# buffered write into its middle: the data starts at the written block,
# or at 0 without holes.
gc_seek_holes() {
	k=$mnt/seek
	truncate -s $MB "$k"
	check_eq "$L SEEK_DATA in a grown file" "$(seek_result "$k" d 0)" EOF
	check_eq "$L SEEK_HOLE in a grown file" "$(seek_result "$k" h 0)" 0
	xfs_io -c "pwrite -q -S 0x47 300000 100" "$k"
	kend=$(up 300100)
	kstart=0
	fs_can sparse && kstart=$(down 300000)
	# Folios read in beyond exfat's valid_size count as data.
	drop_caches
	check_eq "$L SEEK_HOLE after the written block" \
		"$(seek_result "$k" h "$kstart")" "$kend"
	check_eq "$L SEEK_DATA beyond it" "$(seek_result "$k" d "$kend")" EOF
	check_eq "$L SEEK_DATA from 4096" \
		"$(seek_result "$k" d 4096)" $((kstart > 4096 ? kstart : 4096))
	keep seek
	after_remount gc_seek_holes_remount
}
gc_seek_holes_remount() {
	drop_caches
	check_eq "$L SEEK_HOLE after remount" \
		"$(seek_result "$k" h "$kstart")" "$kend"
}

# The simple read path serves one-block O_DIRECT reads of data and of a
# file grown by truncate, two-block reads of contiguous blocks where the
# filesystem lets it, and nothing when off.
gc_simple_hits() {
	if ! have_simple_read; then
		skip "$L simple read path hits" "no $SIMPLE_READ in this kernel"
		return
	fi
	s=$mnt/simple
	sg=$mnt/simple-grown
	dio-check fill "$s" 0 65536 $SEED
	dio-check fill "$s" 131072 1024 $SEED
	truncate -s $MB "$sg"
	drop_caches
	multi=0
	if fs_can simple_multi_block; then
		check "$L blocks read two at a time are contiguous" \
			contiguous "$s" 8192 $((8 * B)) "$B"
		multi=4
	fi
	for sr in 1 0; do
		echo $sr >"$SIMPLE_READ"
		n=0
		[ $sr = 1 ] && n=16
		for e in $FS_ENGINES; do
			hits "$L simple_read=$sr $e one-block reads" $n \
				dio-check read "$s" "$(down 7168)" "$B" "$e" \
				pattern:$SEED 16
			hits "$L simple_read=$sr $e one-block reads of a grown file" \
				$n dio-check read "$sg" "$(down 99328)" "$B" \
				"$e" zero 16
			hits "$L simple_read=$sr $e two-block reads" \
				$((sr * multi)) \
				dio-check read "$s" 8192 $((2 * B)) "$e" \
				pattern:$SEED 4
		done
	done
	echo 1 >"$SIMPLE_READ"
}

# Append through O_APPEND: to new blocks, then within the last one.
gc_append() {
	a=$mnt/append
	dio-check fill "$a" 0 $MB $SEED
	xfs_io -a -c "pwrite -q -S 0x61 0 3000" "$a"
	check_eq "$L append size" "$(stat -c %s "$a")" 1051576
	xfs_io -a -c "pwrite -q -S 0x62 0 100" "$a"
	check_eq "$L append within a block size" "$(stat -c %s "$a")" 1051676
	drop_caches
	check "$L appended data" \
		dio-check read "$a" $MB 3000 buffered byte:0x61
	check "$L data appended within a block" \
		dio-check read "$a" 1051576 100 buffered byte:0x62
	check "$L data before the append intact" \
		dio-check read "$a" 1044480 4096 psync pattern:$SEED
	keep append
}

# Truncate into a block zeroes its tail: extend again and look, near the
# start and (minix: in the indirect blocks) 300 KiB in.
gc_truncate() {
	stale_blocks 262144
	t=$mnt/trunc
	dio-check fill "$t" 0 16384 $SEED
	truncate -s 5000 "$t"
	check_eq "$L truncate shrinks" "$(stat -c %s "$t")" 5000
	check "$L shrunk file reads the data up to the cut" \
		dio-check read "$t" 0 8192 buffered short:5000:$SEED
	truncate -s 16384 "$t"
	check_eq "$L truncate grows" "$(stat -c %s "$t")" 16384
	check "$L truncate zeroes the partial block (buffered)" \
		dio-check read "$t" 4096 4096 buffered zerofrom:904:$SEED
	cut_checks "$L" "$t" 5000 16384
	tl=$mnt/trunc-large
	dio-check fill "$tl" 0 $MB $SEED
	truncate -s 300001 "$tl"
	truncate -s $MB "$tl"
	cut_checks "$L large" "$tl" 300001 $MB
	keep trunc trunc-large
}

# Cutting a file inside a hole zeroes nothing, so it allocates nothing.
gc_hole_truncate() {
	th=$mnt/trunc-hole
	truncate -s $MB "$th"
	free0=$(free_blocks)
	truncate -s 500000 "$th"
	check_eq "$L truncate into a hole allocates no block" \
		"$(free_blocks)" "$free0"
	drop_caches
	check "$L truncate into a hole reads zero" \
		dio-check read "$th" 0 500000 buffered zero
	keep trunc-hole
}

# A sparse file: a hole up to 1 MiB (exfat: zeros), then data; then an
# O_DIRECT write into the hole.
gc_sparse() {
	sp=$mnt/sparse
	check "$L sparse fill" dio-check fill "$sp" $MB 4096 $SEED
	check_eq "$L sparse size" "$(stat -c %s "$sp")" 1052672
	drop_caches
	check "$L hole reads zero (buffered)" \
		dio-check read "$sp" 0 $MB buffered zero
	for e in $FS_ENGINES; do
		check "$L $e hole reads zero" \
			dio-check read "$sp" 65536 "$B" "$e" zero
		check "$L $e 64k hole reads zero" \
			dio-check read "$sp" 131072 65536 "$e" zero
		check "$L $e data after the hole" \
			dio-check read "$sp" $MB 4096 "$e" pattern:$SEED
	done

	stale_blocks 262144
	xfs_io -d -c "pwrite -q -S 0x44 65536 4096" "$sp"
	drop_caches
	check "$L direct write into a hole" \
		dio-check read "$sp" 65536 4096 psync byte:0x44
	check "$L hole before the direct write still zero" \
		dio-check read "$sp" 61440 4096 psync zero
	check "$L hole after the direct write still zero" \
		dio-check read "$sp" 69632 4096 psync zero
	check "$L data after the hole still intact" \
		dio-check read "$sp" $MB 4096 psync pattern:$SEED
	keep sparse
}

# O_DIRECT writes: a new file, read back both ways; an overwrite of what
# the page cache holds; past EOF; into a file grown by truncate;
# misaligned; in the middle of a patterned file; and 512 bytes into a new
# block.
gc_direct_writes() {
	stale_blocks 262144
	d=$mnt/dwrite
	xfs_io -f -d -c "pwrite -q -S 0x5a 0 8192" "$d"
	check_eq "$L direct write size" "$(stat -c %s "$d")" 8192
	drop_caches
	check "$L direct write, direct read" \
		dio-check read "$d" 0 8192 libaio byte:0x5a
	check "$L direct write, buffered read" \
		dio-check read "$d" 0 8192 buffered byte:0x5a
	# A direct overwrite replaces what the page cache holds.
	xfs_io -d -c "pwrite -q -S 0x6b 1024 2048" "$d"
	check "$L buffered read after direct overwrite" \
		dio-check read "$d" 1024 2048 buffered byte:0x6b
	check "$L direct overwrite keeps the rest" \
		dio-check read "$d" 3072 5120 buffered byte:0x5a
	# A direct write past EOF leaves zeros behind it.
	xfs_io -d -c "pwrite -q -S 0x7c 20480 2048" "$d"
	check_eq "$L extending direct write size" "$(stat -c %s "$d")" 22528
	drop_caches
	check "$L extending direct write data" \
		dio-check read "$d" 20480 2048 psync byte:0x7c
	for e in psync io_uring; do
		check "$L $e extending direct write leaves zeros" \
			dio-check read "$d" 8192 12288 "$e" zero
	done

	# A direct write into the grown-file range of a file.
	dg=$mnt/dgrown
	truncate -s $MB "$dg"
	xfs_io -d -c "pwrite -q -S 0x4d 65536 4096" "$dg"
	check_eq "$L direct write into a grown file keeps the size" \
		"$(stat -c %s "$dg")" $MB
	drop_caches
	check "$L direct write into a grown file" \
		dio-check read "$dg" 65536 4096 psync byte:0x4d
	check "$L zeros before it" dio-check read "$dg" 0 65536 libaio zero
	check "$L zeros after it" \
		dio-check read "$dg" 69632 978944 buffered zero
	# A direct write that is not aligned to the device's blocks, into
	# allocated blocks (minix and ext2 write into a hole through the page
	# cache instead, where no alignment is needed).
	check_eq "$L misaligned direct write is EINVAL" \
		"$(xfs_io -d -c "pwrite -q 65636 512" "$dg" 2>&1 |
			grep -c 'Invalid argument')" 1
	check "$L misaligned direct write changed nothing" \
		dio-check read "$dg" 65536 4096 psync byte:0x4d

	# O_DIRECT overwrite in the middle of a patterned file.
	o=$mnt/doverwrite
	dio-check fill "$o" 0 16384 $SEED
	xfs_io -d -c "pwrite -q -S 0x33 4096 2048" "$o"
	drop_caches
	check "$L direct overwrite" dio-check read "$o" 4096 2048 psync byte:0x33
	check "$L direct overwrite keeps the data before" \
		dio-check read "$o" 0 4096 psync pattern:$SEED
	check "$L direct overwrite keeps the data after" \
		dio-check read "$o" 6144 2048 psync pattern:$SEED

	# A 512-byte O_DIRECT write into a new block zeroes the rest of it.
	stale_blocks 262144
	h=$mnt/half
	xfs_io -f -d -c "pwrite -q -S 0x77 0 512" "$h"
	truncate -s "$B" "$h"
	{
		head -c 512 /dev/zero | tr '\0' 'w'
		head -c $((B - 512)) /dev/zero
	} >/tmp/generic-half.ref
	drop_caches
	check "$L sub-block direct write zeroes the rest of the block" \
		cmp /tmp/generic-half.ref "$h"
	keep dwrite dgrown doverwrite half
}

# Write faults through mmap reach the disk; one into the middle of a
# grown file leaves zeros around it; a file grown a byte at a time, each
# new byte written through mmap.
gc_mmap() {
	stale_blocks 262144
	m=$mnt/mmap
	xfs_io -f -c "truncate 65536" -c "mmap -w 0 64k" \
		-c "mwrite -S 0x5a 0 64k" -c "msync -s 0 64k" -c "munmap" "$m"
	drop_caches
	check "$L mmap write fault" dio-check read "$m" 0 65536 psync byte:0x5a
	mp=$mnt/mmap-part
	xfs_io -f -c "truncate 65536" -c "mmap -w 0 64k" \
		-c "mwrite -S 0x58 40000 100" -c "msync -s 0 64k" -c "munmap" \
		"$mp"
	drop_caches
	check "$L zeros before an mmap write into a grown file" \
		dio-check read "$mp" 0 40000 buffered zero
	check "$L mmap write into a grown file" \
		dio-check read "$mp" 40000 100 buffered byte:0x58
	check "$L zeros after the mmap write" \
		dio-check read "$mp" 40100 25436 buffered zero
	mb=$mnt/mmap-bytes
	xfs_io -f -c "pwrite -q -S 0x41 0 500" "$mb"
	i=501
	while [ $i -le 540 ]; do
		xfs_io -c "truncate $i" -c "mmap -w 0 4k" \
			-c "mwrite -S 0x41 $((i - 1)) 1" -c "munmap" "$mb"
		i=$((i + 1))
	done
	check_eq "$L mmap bytes size" "$(stat -c %s "$mb")" 540
	drop_caches
	check "$L mmap bytes intact" \
		dio-check read "$mb" 0 540 buffered byte:0x41
	keep mmap mmap-part mmap-bytes
}

# Stores through a mapping kept while the file is cut and grown back, at
# 5 KiB (the mapping kept whole) and past 5 MiB (remapped along with the
# file), with and without a store below the cut in between: every byte
# reads back as the last one stored there, also after the remount.
gc_mapped_stores() {
	i=0
	for shape in "2048 5120" "-f 2048 5120" "-g -r 5137408 5140480" \
		"-g -r -f 5137408 5140480"; do
		i=$((i + 1))
		# shellcheck disable=SC2086 # the shape's words are arguments
		check "$L mapped stores across a cut and regrowth ($shape)" \
			mmap-trunc $shape "$mnt/kept-map$i" /tmp/generic-kept-map$i.ref
		keep kept-map$i
	done
}

# Buffered writes into holes raced by readers that drop and reread each
# page: a block allocated before its page is locked must read zeros, not
# its old contents, during the race and from disk after.
gc_write_race() {
	stale_blocks 8388608
	check "$L buffered writes into holes raced by readers" \
		dio-check hole-race "$mnt/race" 2048
	rm -f "$mnt/race"
}

# A bounded fio verify run of small O_DIRECT random writes.
gc_fio_verify() {
	check "$L fio direct randwrite verify" \
		fio --name=generic-verify --filename="$mnt/fio" --size=4m \
		--bs="${FS_FIO_BS:-$B}" --rw=randwrite --direct=1 \
		--ioengine=psync --verify=crc32c --verify_fatal=1 \
		--fallocate=none --runtime=120
	keep fio
}

# skipped_check NAME: the reason the loaded filesystem gives in
# FS_SKIP_CHECKS for skipping generic check NAME, or nothing.
skipped_check() {
	printf '%s\n' "$FS_SKIP_CHECKS" | sed -n "s/^$1: //p"
}

# generic_checks LABEL: every generic check the filesystem mounted on
# FS_MNT does not skip, then an unmount, fsck and fresh mount that
# everything kept survives, and the removal of it all; leaves FS_MNT
# unmounted.
generic_checks() {
	L=$1
	mnt=$FS_MNT
	B=$FS_BLOCK
	kept=
	remount_hooks=
	# What a fresh filesystem holds already (ext2 and ext4: lost+found).
	fresh_entries=$(entries "$mnt")
	# A skip that names no check, misspelt, would skip nothing.
	for name in $(printf '%s\n' "$FS_SKIP_CHECKS" | sed -n 's/:.*//p'); do
		known=0
		for c in $GENERIC_CHECKS; do
			[ "$c" = "$name" ] && known=1
		done
		[ $known = 1 ] ||
			fail "$L FS_SKIP_CHECKS" "no generic check '$name'"
	done
	for name in $GENERIC_CHECKS; do
		why=$(skipped_check "$name")
		if [ -n "$why" ]; then
			skip "$L $name" "$why"
		else
			"gc_$name"
		fi
	done

	for x in $kept; do
		cp "$mnt/$x" "/tmp/generic-$x.ref"
	done
	umount "$mnt"
	check "$L fsck after unmount" fs_fsck
	if ! mount -t "$FS_TYPE" "$FS_DEV" "$mnt"; then
		fail "$L remount" "could not mount $L again"
		return
	fi
	for x in $kept; do
		check "$L $x intact after remount" \
			cmp "/tmp/generic-$x.ref" "$mnt/$x"
	done
	for hook in $remount_hooks; do
		"$hook"
	done
	rm -f "$mnt"/*
	check_eq "$L everything removed" "$(entries "$mnt")" "$fresh_entries"
	umount "$mnt"
	check "$L fsck after removing everything" fs_fsck
	rm -f /tmp/generic-*.ref
}

unmount_test_dev
for fsname in $FILESYSTEMS; do
	fs_open "$fsname" || continue
	for v in $FS_VARIANTS; do
		label=$(fs_label "$v")
		fs_mkfs_mount "$label" "$v" || continue
		fs_mounted "$label" "$v" "$FS_MNT"
		generic_checks "$label"
	done
	fs_teardown
done
