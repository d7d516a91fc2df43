# shellcheck shell=sh
# exfat on iomap, with 512-byte, 4 KiB and 64 KiB clusters: buffered
# write, read and append, truncate (shrink with partial-block zeroing,
# grow), the clusters between valid_size and i_size reading as zeros
# (buffered, O_DIRECT through every engine, and the simple direct-I/O read
# path) although the volume under them holds a pattern, writes beyond
# valid_size, O_DIRECT writes (new file, overwrite, extending, beyond
# valid_size, misaligned), mmap write faults (also growing the file a byte
# at a time), SEEK_DATA/SEEK_HOLE, a buffered write raced by readers, data
# surviving a remount, fsck.exfat, and a fio verify run.  Then issue 14's
# exfat items: stale bytes past valid_size in its block on disk read as
# zeros every way (also after a truncate down into a block, and partial
# writes into it leave zeros behind them), a direct read into a shared
# mapping of the same file beyond valid_size completes, an O_DSYNC direct
# write flushes the disk cache once, and writes larger than the free space
# write what fits.  Each check compares data, sizes, offsets or counts,
# not just exit codes.
# shellcheck source=guest/tests/lib.sh
. ./lib.sh

EXFAT_SEED=0x3a7f
EXFAT_STALE=0x5e5e
EXFAT_ENGINES="psync libaio io_uring"
EXFAT_MNT=/mnt/exfat
EXFAT_SIMPLE=/sys/kernel/iomap/simple_read
# A 64 MiB slice of the test disk, so that mkfs and the pattern are quick.
EXFAT_SECTORS=131072
EXFAT_DEV=/dev/mapper/exfat
EXFAT_START=$(date +%s)

# exfat_seek FILE WHENCE OFFSET: the offset SEEK_DATA (-d) or SEEK_HOLE
# (-h) returns, or EOF when there is none.
exfat_seek() {
	xfs_io -c "seek $2 $3" "$1" | awk '$1 == "DATA" || $1 == "HOLE" { print $2 }'
}

# exfat_cut LABEL FILE CUT SIZE: FILE held the pattern, was cut to CUT
# bytes and grown back to SIZE: it reads the pattern up to CUT and zeros
# after, through the page cache and from disk, with every engine.
exfat_cut() {
	blk=$(($3 / 512 * 512))
	check "$1 truncate keeps the data before the cut (buffered)" \
		dio-check read "$2" 0 "$3" buffered pattern:$EXFAT_SEED
	check "$1 truncate leaves zeros past the cut (buffered)" \
		dio-check read "$2" "$3" $(($4 - $3)) buffered zero
	drop_caches
	for e in $EXFAT_ENGINES; do
		check "$1 $e cut block zeroed from the cut" \
			dio-check read "$2" $blk 512 "$e" \
			zerofrom:$(($3 - blk)):$EXFAT_SEED
		check "$1 $e zeros past the cut block" \
			dio-check read "$2" $((blk + 512)) $(($4 - blk - 512)) \
			"$e" zero
	done
	check "$1 data before the cut (direct)" \
		dio-check read "$2" 0 $blk psync pattern:$EXFAT_SEED
}

# exfat_tail_reads LABEL FILE VALID SIZE: FILE holds the pattern up to
# VALID (valid_size, inside a block whose bytes past it hold stale data on
# disk) and must read zeros from there to SIZE, read from disk every way:
# buffered, through mmap, with O_DIRECT through every engine (the whole
# first 4 KiB, the 512-byte block alone, and beyond it), and 16 times on
# the simple read path.
exfat_tail_reads() {
	blk=$(($3 / 512 * 512))
	drop_caches
	check "$1 buffered read of valid_size's block" \
		dio-check read "$2" 0 4096 buffered zerofrom:"$3":$EXFAT_SEED
	check "$1 buffered read past valid_size" \
		dio-check read "$2" "$3" $(($4 - $3)) buffered zero
	drop_caches
	check "$1 mmap read of valid_size's block" \
		dio-check read "$2" 0 4096 mmap zerofrom:"$3":$EXFAT_SEED
	check "$1 mmap read of the whole file" \
		dio-check read "$2" 0 "$4" mmap zerofrom:"$3":$EXFAT_SEED
	drop_caches
	for e in $EXFAT_ENGINES; do
		check "$1 $e direct read of the first 4k" \
			dio-check read "$2" 0 4096 "$e" zerofrom:"$3":$EXFAT_SEED
		check "$1 $e direct read of valid_size's block" \
			dio-check read "$2" $blk 512 "$e" \
			zerofrom:$(($3 - blk)):$EXFAT_SEED
		check "$1 $e direct read past it" \
			dio-check read "$2" $((blk + 512)) $(($4 - blk - 512)) \
			"$e" zero
	done
	hits "$1 psync simple-path reads of valid_size's block" 16 \
		dio-check read "$2" $blk 512 psync \
		zerofrom:$(($3 - blk)):$EXFAT_SEED 16
}

# exfat_stale_tail FILE VALID: unmount, write the stale pattern on the
# device over FILE's bytes from VALID to the end of their block (as another
# implementation, or a crash before the zeroes were written back, leaves
# them), and mount again.
exfat_stale_tail() {
	off=$(dio-check bmap "$1" "$2")
	umount "$EXFAT_MNT" &&
		dio-check fill "$EXFAT_DEV" "$off" $((512 - $2 % 512)) \
			$EXFAT_STALE >/dev/null &&
		mount -t exfat "$EXFAT_DEV" "$EXFAT_MNT"
}

# The flush requests the test disk has completed.
exfat_flushes() {
	awk '{ print $16 }' "/sys/block/${TEST_DEV##*/}/stat"
}

# exfat_dsync_flushes FILE OFFSET: the flushes one 4 KiB O_DSYNC O_DIRECT
# write at OFFSET issues.
exfat_dsync_flushes() {
	before=$(exfat_flushes)
	xfs_io -d -c "pwrite -D -V 1 -q -S 0x44 $2 4096" "$1"
	echo $(($(exfat_flushes) - before))
}

# exfat_issue14 LABEL: the volume, freshly mounted and empty, and what
# issue 14 found.  The block valid_size falls into reads zero past it every
# way although it holds stale data on disk, also after a truncate down into
# a block; partial writes into it leave zeros after them.  A write larger
# than the free space writes what fits.  An O_DSYNC direct write flushes
# the disk cache once.  A direct read into a shared mapping of the same
# file beyond valid_size completes.
exfat_issue14() {
	mnt=$EXFAT_MNT
	zt=$mnt/zero-tail
	dio-check fill "$zt" 0 3000 $EXFAT_SEED
	truncate -s 200000 "$zt"
	if ! exfat_stale_tail "$zt" 3000; then
		fail "$1 stale tail" "could not write it or remount"
		return
	fi
	exfat_tail_reads "$1 stale tail" "$zt" 3000 200000
	# A write inside valid data in that block, then one across
	# valid_size, each ending inside it: the page cache holds zeros past
	# them, as the disk does after writeback.
	drop_caches
	xfs_io -c "pwrite -q -S 0x66 2600 10" "$zt"
	check "$1 write before valid_size leaves zeros past it" \
		dio-check read "$zt" 3000 1096 buffered zero
	check "$1 write before valid_size keeps the data around it" \
		dio-check read "$zt" 2610 390 buffered pattern:$EXFAT_SEED
	exfat_stale_tail "$zt" 3000
	xfs_io -c "pwrite -q -S 0x67 2990 20" "$zt"
	check "$1 write across valid_size leaves zeros past it" \
		dio-check read "$zt" 3010 1086 buffered zero
	check "$1 data written across valid_size" \
		dio-check read "$zt" 2990 20 buffered byte:0x67
	drop_caches
	check "$1 zeros past it from disk" \
		dio-check read "$zt" 3010 196990 buffered zero

	# Truncate down into a block, lose the zeroing (as a crash before
	# writeback would), remount and grow the file again.
	tz=$mnt/trunc-tail
	dio-check fill "$tz" 0 65536 $EXFAT_SEED
	truncate -s 3000 "$tz"
	if ! exfat_stale_tail "$tz" 3000; then
		fail "$1 truncated tail" "could not write it or remount"
		return
	fi
	truncate -s 65536 "$tz"
	exfat_tail_reads "$1 truncated tail" "$tz" 3000 65536

	# A direct read into a shared writable mapping of the same file
	# beyond valid_size must complete: its fault extends valid_size.
	md=$mnt/mmap-dio
	xfs_io -f -c "pwrite -q -S 0x77 0 8192" -c "truncate 1048576" "$md"
	dst=524288
	for e in psync libaio; do
		for len in 512 8192; do
			check "$1 $e $len-byte direct read into a shared mapping beyond valid_size" \
				timeout -s KILL 15 dio-check mmap-dio "$md" 0 \
				$len $dst $e
			check "$1 $e $len-byte direct read into the mapping, data" \
				dio-check read "$md" $dst $len buffered byte:0x77
			dst=$((dst + 65536))
		done
	done
	drop_caches
	check "$1 zeros between valid data and the mappings" \
		dio-check read "$md" 8192 516096 psync zero
	check "$1 mapped data from disk" \
		dio-check read "$md" 720896 8192 psync byte:0x77

	# O_DSYNC direct writes: the disk cache is flushed once per write.
	if [ "$(cat "/sys/block/${TEST_DEV##*/}/queue/write_cache")" != \
	     "write back" ]; then
		fail "$1 O_DSYNC flush count" "the test disk has no write cache"
	else
		ds=$mnt/dsync
		truncate -s 1048576 "$ds"
		# The first write sets the volume dirty, with a flush of its own.
		exfat_dsync_flushes "$ds" 0 >/dev/null
		check_eq "$1 O_DSYNC direct write extending valid_size flushes once" \
			"$(exfat_dsync_flushes "$ds" 4096)" 1
		check_eq "$1 O_DSYNC direct write beyond valid_size flushes once" \
			"$(exfat_dsync_flushes "$ds" 16384)" 1
		n=$(exfat_dsync_flushes "$ds" 0)
		check_eq "$1 O_DSYNC direct overwrite flushes at most once" \
			"$((n <= 1))" 1
		drop_caches
		check "$1 O_DSYNC direct writes, data" \
			dio-check read "$ds" 0 8192 psync byte:0x44
		check "$1 O_DSYNC direct writes, zeros between" \
			dio-check read "$ds" 8192 8192 psync zero
		check "$1 O_DSYNC direct writes, data beyond valid_size" \
			dio-check read "$ds" 16384 4096 psync byte:0x44
	fi

	# A full volume with 256 KiB set free: writes larger than the free
	# space write what fits, buffered and direct.  Each gets its own
	# spare clusters: exfat_find_free_bitmap() does not look again at the
	# clusters before its starting point in that bitmap word when it wraps
	# around, so those the buffered write had would not all be found.
	dio-check fill "$mnt/spare-buffered" 0 262144 $EXFAT_SEED
	dio-check fill "$mnt/spare-psync" 0 262144 $EXFAT_SEED
	dd if=/dev/zero of="$mnt/filler" bs=1M 2>/dev/null
	for e in buffered psync; do
		rm -f "$mnt/spare-$e"
		touch "$mnt/enospc-$e"
		sync
		free=$(($(stat -f -c %a "$mnt") * $(stat -f -c %S "$mnt")))
		check_eq "$1 $e write larger than the free space is short" \
			"$(dio-check write "$mnt/enospc-$e" 0 $((free + 1048576)) \
				"$e" $EXFAT_SEED)" "$free"
		check_eq "$1 $e short write size" \
			"$(stat -c %s "$mnt/enospc-$e")" "$free"
		check_eq "$1 $e short write fills the volume" \
			"$(stat -f -c %a "$mnt")" 0
		drop_caches
		check "$1 $e short write data" \
			dio-check read "$mnt/enospc-$e" 0 "$free" psync \
			pattern:$EXFAT_SEED
	done
	umount "$mnt"
	check "$1 fsck after the issue 14 checks" fsck.exfat -n "$EXFAT_DEV"
}

awk -v d="$TEST_DEV" '$1 == d { print $2 }' /proc/mounts |
	while read -r m; do
		umount "$m"
	done
echo 1 >$EXFAT_SIMPLE
if ! simple_read_events 1; then
	fail "exfat iomap_dio_simple_read trace point" "cannot enable it"
fi
dmsetup remove exfat 2>/dev/null
if ! dmsetup create exfat --table "0 $EXFAT_SECTORS linear $TEST_DEV 0" ||
   ! dmsetup mknodes exfat; then
	fail "exfat dm-linear device" "dmsetup create failed"
	EXFAT_CLUSTERS=
else
	EXFAT_CLUSTERS="512 4096 65536"
fi

for cs in $EXFAT_CLUSTERS; do
	fs="exfat ${cs}b clusters"
	mnt=$EXFAT_MNT
	umount "$mnt" 2>/dev/null
	mkdir -p "$mnt"
	# The whole volume holds a pattern before mkfs, so that any cluster a
	# file gets holds stale data that must never show through.
	if ! dio-check fill "$EXFAT_DEV" 0 $((EXFAT_SECTORS * 512)) \
		$EXFAT_STALE >/dev/null ||
	   ! mkfs.exfat -c "$cs" "$EXFAT_DEV" >/dev/null 2>&1 ||
	   ! mount -t exfat "$EXFAT_DEV" "$mnt"; then
		fail "$fs mkfs and mount" "could not make or mount exfat"
		continue
	fi
	check_eq "$fs cluster size" "$(stat -f -c %s "$mnt")" "$cs"

	# Create, write and read back through the page cache and from disk.
	f=$mnt/file
	check "$fs buffered write" dio-check fill "$f" 0 1048576 $EXFAT_SEED
	check_eq "$fs file size" "$(stat -c %s "$f")" 1048576
	check "$fs buffered read" \
		dio-check read "$f" 12345 100000 buffered pattern:$EXFAT_SEED
	drop_caches
	check "$fs buffered read from disk" \
		dio-check read "$f" 0 1048576 buffered pattern:$EXFAT_SEED

	# O_DIRECT reads see buffered writes still in the page cache.
	xfs_io -f -c "pwrite -q -S 0x21 0 8192" "$mnt/fresh"
	check "$fs direct read of unsynced buffered data" \
		dio-check read "$mnt/fresh" 0 8192 psync byte:0x21
	rm -f "$mnt/fresh"

	for e in $EXFAT_ENGINES; do
		check "$fs $e 512b direct read" \
			dio-check read "$f" 3072 512 "$e" pattern:$EXFAT_SEED 4
		check "$fs $e 4k direct read" \
			dio-check read "$f" 102400 4096 "$e" pattern:$EXFAT_SEED
		check "$fs $e 64k direct read across clusters" \
			dio-check read "$f" 65024 65536 "$e" pattern:$EXFAT_SEED
		check "$fs $e unaligned direct read is EINVAL" \
			dio-check read "$f" 100 512 "$e" errno:EINVAL
		check "$fs $e direct read across eof is short" \
			dio-check read "$f" 1047552 4096 "$e" \
			short:1024:$EXFAT_SEED
		check "$fs $e direct read at eof returns 0" \
			dio-check read "$f" 1048576 512 "$e" short:0:$EXFAT_SEED
	done

	# A file grown by truncate: allocated clusters, valid_size 0.  They
	# hold the volume's pattern and must read as zeros every way.
	g=$mnt/grown
	truncate -s 1048576 "$g"
	check_eq "$fs grown size" "$(stat -c %s "$g")" 1048576
	check "$fs grown file reads zero (buffered)" \
		dio-check read "$g" 0 1048576 buffered zero
	drop_caches
	for e in $EXFAT_ENGINES; do
		check "$fs $e grown file reads zero (512b)" \
			dio-check read "$g" 4096 512 "$e" zero 4
		check "$fs $e grown file reads zero (64k)" \
			dio-check read "$g" 131072 65536 "$e" zero
	done
	check "$fs grown file reads zero (1m direct)" \
		dio-check read "$g" 0 1048576 psync zero
	check_eq "$fs SEEK_DATA in a grown file" "$(exfat_seek "$g" -d 0)" EOF
	check_eq "$fs SEEK_HOLE in a grown file" "$(exfat_seek "$g" -h 0)" 0

	# The simple read path serves 512-byte (one block) O_DIRECT reads of
	# data and of the part beyond valid_size, not two-block reads, and
	# nothing when it is off.
	for sr in 1 0; do
		echo $sr >$EXFAT_SIMPLE
		n=0
		[ $sr = 1 ] && n=16
		for e in $EXFAT_ENGINES; do
			hits "$fs simple_read=$sr $e 512b reads" $n \
				dio-check read "$f" 7168 512 "$e" \
				pattern:$EXFAT_SEED 16
			hits "$fs simple_read=$sr $e 512b reads beyond valid_size" \
				$n dio-check read "$g" 99328 512 "$e" zero 16
			hits "$fs simple_read=$sr $e 1k reads" 0 \
				dio-check read "$f" 8192 1024 "$e" \
				pattern:$EXFAT_SEED 4
		done
	done
	echo 1 >$EXFAT_SIMPLE

	# A buffered write beyond valid_size zeroes the gap before it.
	xfs_io -c "pwrite -q -S 0x47 300000 100" "$g"
	check_eq "$fs write beyond valid_size keeps the size" \
		"$(stat -c %s "$g")" 1048576
	drop_caches
	check "$fs gap before a write beyond valid_size is zero" \
		dio-check read "$g" 0 300000 buffered zero
	check "$fs data written beyond valid_size" \
		dio-check read "$g" 300000 100 buffered byte:0x47
	check "$fs rest of the block after it zero" \
		dio-check read "$g" 300100 412 buffered zero
	for e in $EXFAT_ENGINES; do
		check "$fs $e gap zero (direct)" \
			dio-check read "$g" 0 299520 "$e" zero
		check "$fs $e beyond the new valid_size zero (direct)" \
			dio-check read "$g" 300544 748032 "$e" zero
	done
	# Folios read in beyond valid_size count as data: drop them first.
	drop_caches
	check_eq "$fs SEEK_HOLE after the new valid_size" \
		"$(exfat_seek "$g" -h 0)" 300544
	check_eq "$fs SEEK_DATA beyond it" "$(exfat_seek "$g" -d 300544)" EOF
	check_eq "$fs SEEK_DATA inside valid data" \
		"$(exfat_seek "$g" -d 4096)" 4096

	# Append through O_APPEND: new clusters, then within the last block.
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
		dio-check read "$f" 1044480 4096 psync pattern:$EXFAT_SEED

	# Truncate into a block zeroes its tail; growing again reads zeros
	# past the cut, although the clusters kept there held the pattern.
	t=$mnt/trunc
	dio-check fill "$t" 0 16384 $EXFAT_SEED
	truncate -s 5000 "$t"
	check_eq "$fs truncate shrinks" "$(stat -c %s "$t")" 5000
	check "$fs shrunk file reads the data up to the cut" \
		dio-check read "$t" 0 8192 buffered short:5000:$EXFAT_SEED
	truncate -s 16384 "$t"
	check_eq "$fs truncate grows" "$(stat -c %s "$t")" 16384
	exfat_cut "$fs" "$t" 5000 16384
	tl=$mnt/trunc-large
	dio-check fill "$tl" 0 1048576 $EXFAT_SEED
	truncate -s 300001 "$tl"
	truncate -s 1048576 "$tl"
	exfat_cut "$fs large" "$tl" 300001 1048576

	# O_DIRECT writes: a new file, read back both ways.
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
	# A direct write past EOF leaves zeros behind it.
	xfs_io -d -c "pwrite -q -S 0x7c 20480 2048" "$d"
	check_eq "$fs extending direct write size" "$(stat -c %s "$d")" 22528
	drop_caches
	check "$fs extending direct write data" \
		dio-check read "$d" 20480 2048 psync byte:0x7c
	check "$fs extending direct write leaves zeros" \
		dio-check read "$d" 8192 12288 io_uring zero
	# A direct write beyond valid_size inside i_size.
	dv=$mnt/dvalid
	truncate -s 1048576 "$dv"
	xfs_io -d -c "pwrite -q -S 0x4d 65536 4096" "$dv"
	check_eq "$fs direct write beyond valid_size keeps the size" \
		"$(stat -c %s "$dv")" 1048576
	drop_caches
	check "$fs direct write beyond valid_size" \
		dio-check read "$dv" 65536 4096 psync byte:0x4d
	check "$fs zeros before it" dio-check read "$dv" 0 65536 libaio zero
	check "$fs zeros after it" \
		dio-check read "$dv" 69632 978944 buffered zero
	# A direct write that is not aligned to the device's blocks.
	check_eq "$fs misaligned direct write is EINVAL" \
		"$(xfs_io -d -c "pwrite -q 100 512" "$dv" 2>&1 |
			grep -c 'Invalid argument')" 1
	check "$fs misaligned direct write changed nothing" \
		dio-check read "$dv" 0 65536 psync zero

	# Write faults through mmap reach the disk; a fault beyond
	# valid_size zeroes up to it first.
	m=$mnt/mmap
	xfs_io -f -c "truncate 65536" -c "mmap -w 0 64k" \
		-c "mwrite -S 0x5a 0 64k" -c "msync -s 0 64k" -c "munmap" "$m"
	drop_caches
	check "$fs mmap write fault" dio-check read "$m" 0 65536 psync byte:0x5a
	mp=$mnt/mmap-part
	xfs_io -f -c "truncate 65536" -c "mmap -w 0 64k" \
		-c "mwrite -S 0x58 40000 100" -c "msync -s 0 64k" -c "munmap" \
		"$mp"
	drop_caches
	check "$fs zeros before an mmap write beyond valid_size" \
		dio-check read "$mp" 0 40000 buffered zero
	check "$fs mmap write beyond valid_size" \
		dio-check read "$mp" 40000 100 buffered byte:0x58
	check "$fs zeros after it" \
		dio-check read "$mp" 40100 25436 buffered zero
	# Grow the file a byte at a time, writing each new byte through mmap.
	mb=$mnt/mmap-bytes
	xfs_io -f -c "pwrite -q -S 0x41 0 500" "$mb"
	i=501
	while [ $i -le 540 ]; do
		xfs_io -c "truncate $i" -c "mmap -w 0 4k" \
			-c "mwrite -S 0x41 $((i - 1)) 1" -c "munmap" "$mb"
		i=$((i + 1))
	done
	check_eq "$fs mmap bytes size" "$(stat -c %s "$mb")" 540
	drop_caches
	check "$fs mmap bytes intact" \
		dio-check read "$mb" 0 540 buffered byte:0x41

	# Buffered writes beyond valid_size raced by readers that drop and
	# reread each page: only zeros and the written bytes may show.
	check "$fs buffered writes beyond valid_size raced by readers" \
		dio-check hole-race "$mnt/race" 1024
	rm -f "$mnt/race"

	# A bounded fio verify run of 4 KiB O_DIRECT random writes.
	check "$fs fio direct randwrite verify" \
		fio --name=exfat-verify --filename="$mnt/fio" --size=4m \
		--bs=4k --rw=randwrite --direct=1 --ioengine=psync \
		--verify=crc32c --verify_fatal=1 --fallocate=none --runtime=120
	fio_sum=$(md5sum <"$mnt/fio")

	# Everything survives an unmount and a fresh mount.
	files="file grown dwrite dvalid mmap mmap-part mmap-bytes trunc trunc-large"
	for x in $files; do
		cp "$mnt/$x" "/tmp/exfat-$x.ref"
	done
	umount "$mnt"
	check "$fs fsck after unmount" fsck.exfat -n "$EXFAT_DEV"
	if ! mount -t exfat "$EXFAT_DEV" "$mnt"; then
		fail "$fs remount" "could not mount exfat again"
		continue
	fi
	for x in $files; do
		check "$fs $x intact after remount" \
			cmp "/tmp/exfat-$x.ref" "$mnt/$x"
	done
	check_eq "$fs sizes after remount" \
		"$(stat -c %s "$f" "$g" "$d" "$t" "$mb" | tr '\n' ' ')" \
		"1051676 1048576 22528 16384 540 "
	check "$fs pattern intact after remount" \
		dio-check read "$f" 8192 1040384 psync pattern:$EXFAT_SEED
	check "$fs valid_size kept across remount" \
		dio-check read "$g" 300544 748032 psync zero
	drop_caches
	check_eq "$fs SEEK_HOLE after remount" "$(exfat_seek "$g" -h 0)" 300544
	check_eq "$fs fio data intact after remount" \
		"$(md5sum <"$mnt/fio")" "$fio_sum"
	rm -f "$mnt"/*
	check_eq "$fs everything removed" \
		"$(find "$mnt" -mindepth 1 -maxdepth 1 | wc -l | tr -d " ")" 0
	umount "$mnt"
	check "$fs fsck after removing everything" fsck.exfat -n "$EXFAT_DEV"
	rm -f /tmp/exfat-*.ref
	if mount -t exfat "$EXFAT_DEV" "$mnt"; then
		exfat_issue14 "$fs"
	else
		fail "$fs mount for the issue 14 checks" "could not mount exfat"
	fi
done
dmsetup remove exfat 2>/dev/null
simple_read_events 0
echo "t-70-exfat: $(($(date +%s) - EXFAT_START)) s"
