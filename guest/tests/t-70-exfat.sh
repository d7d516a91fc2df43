# shellcheck shell=sh
# What is particular to exfat on iomap, with 512-byte, 4 KiB and
# 64 KiB clusters (tests/fs/exfat.sh; t-50-fs-generic.sh runs the generic
# checks on them): stale bytes past valid_size in its block on disk read as
# zeros every way (also after a truncate down into a block, and partial
# writes into it leave zeros behind them), a direct read into a shared
# mapping of the same file beyond valid_size completes, an O_DSYNC direct
# write flushes the disk cache once, and writes larger than the free space
# write what fits.  Each check compares data, sizes or counts, not just
# exit codes.
# shellcheck source=guest/tests/lib.sh
. ./lib.sh

require_fs exfat
SEED=0x3a7f

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
		dio-check read "$2" 0 4096 buffered zerofrom:"$3":$SEED
	check "$1 buffered read past valid_size" \
		dio-check read "$2" "$3" $(($4 - $3)) buffered zero
	drop_caches
	check "$1 mmap read of valid_size's block" \
		dio-check read "$2" 0 4096 mmap zerofrom:"$3":$SEED
	check "$1 mmap read of the whole file" \
		dio-check read "$2" 0 "$4" mmap zerofrom:"$3":$SEED
	drop_caches
	for e in $FS_ENGINES; do
		check "$1 $e direct read of the first 4k" \
			dio-check read "$2" 0 4096 "$e" zerofrom:"$3":$SEED
		check "$1 $e direct read of valid_size's block" \
			dio-check read "$2" $blk 512 "$e" \
			zerofrom:$(($3 - blk)):$SEED
		check "$1 $e direct read past it" \
			dio-check read "$2" $((blk + 512)) $(($4 - blk - 512)) \
			"$e" zero
	done
	if have_simple_read; then
		hits "$1 psync simple-path reads of valid_size's block" 16 \
			dio-check read "$2" $blk 512 psync \
			zerofrom:$(($3 - blk)):$SEED 16
	else
		skip "$1 simple-path reads" "no $SIMPLE_READ in this kernel"
	fi
}

# exfat_stale_tail FILE VALID: unmount, write the stale pattern on the
# device over FILE's bytes from VALID to the end of their block (as another
# implementation, or a crash before the zeroes were written back, leaves
# them), and mount again.
exfat_stale_tail() {
	off=$(dio-check bmap "$1" "$2")
	umount "$FS_MNT" &&
		dio-check fill "$FS_DEV" "$off" $((512 - $2 % 512)) \
			"$EXFAT_STALE" >/dev/null &&
		mount -t exfat "$FS_DEV" "$FS_MNT"
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

# exfat_volume_checks LABEL: on the volume, freshly mounted and empty, the
# cases valid_size makes particular to exfat.  The block valid_size falls
# into reads zero past it every way although it holds stale data on disk,
# also after a truncate down into a block; partial writes into it leave
# zeros after them.  A write larger than the free space writes what fits.
# An O_DSYNC direct write flushes the disk cache once.  A direct read into
# a shared mapping of the same file beyond valid_size completes.
exfat_volume_checks() {
	mnt=$FS_MNT
	zt=$mnt/zero-tail
	dio-check fill "$zt" 0 3000 $SEED
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
		dio-check read "$zt" 2610 390 buffered pattern:$SEED
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
	dio-check fill "$tz" 0 65536 $SEED
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
	for e in psync libaio io_uring; do
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
	dio-check fill "$mnt/spare-buffered" 0 262144 $SEED
	dio-check fill "$mnt/spare-psync" 0 262144 $SEED
	dd if=/dev/zero of="$mnt/filler" bs=1M 2>/dev/null
	for e in buffered psync; do
		rm -f "$mnt/spare-$e"
		touch "$mnt/enospc-$e"
		sync
		free=$(($(stat -f -c %a "$mnt") * $(stat -f -c %S "$mnt")))
		check_eq "$1 $e write larger than the free space is short" \
			"$(dio-check write "$mnt/enospc-$e" 0 $((free + 1048576)) \
				"$e" $SEED)" "$free"
		check_eq "$1 $e short write size" \
			"$(stat -c %s "$mnt/enospc-$e")" "$free"
		check_eq "$1 $e short write fills the volume" \
			"$(stat -f -c %a "$mnt")" 0
		drop_caches
		check "$1 $e short write data" \
			dio-check read "$mnt/enospc-$e" 0 "$free" psync \
			pattern:$SEED
	done
	umount "$mnt"
	check "$1 fsck after the volume checks" fsck.exfat -n "$FS_DEV"
}

# exfat_fat_region_table ERRORS: the device-mapper table of the exfat slice
# with its first FAT mapped linear (ERRORS 0) or through dm-flakey failing
# every write to it (ERRORS 1), one line per target.  The FAT's place comes
# from the boot sector: FatOffset and FatLength (in sectors of
# 2^BytesPerSectorShift bytes) at bytes 80, 84 and 108.
exfat_fat_region_table() {
	read -r fat fat_len <<EOF
$(od -A n -t u4 -j 80 -N 8 "$FS_DEV")
EOF
	to_512=$(($(od -A n -t u1 -j 108 -N 1 "$FS_DEV") - 9))
	fat=$((fat << to_512)) fat_len=$((fat_len << to_512))
	end=$((fat + fat_len))
	echo "0 $fat linear $TEST_DEV 0"
	if [ "$1" = 1 ]; then
		echo "$fat $fat_len flakey $TEST_DEV $fat 0 1 1 error_writes"
	else
		echo "$fat $fat_len linear $TEST_DEV $fat"
	fi
	echo "$end $((EXFAT_SECTORS - end)) linear $TEST_DEV $end"
}

# exfat_swap_table ERRORS: load exfat_fat_region_table ERRORS under the
# mounted volume (read before the suspend, which holds all I/O).  The
# suspend does not freeze the volume, whose sync would fail while writes
# to the FAT fail.
exfat_swap_table() {
	table=$(exfat_fat_region_table "$1") &&
		dmsetup suspend --nolockfs exfat &&
		echo "$table" | dmsetup reload exfat &&
		dmsetup resume exfat
}

# exfat_truncate_fat_error LABEL: on a volume mounted -o sync, a truncate
# that cannot write the FAT entry ending the file's cluster chain fails with
# EIO rather than reporting success, the volume goes read-only
# (errors=remount-ro) with its dirty flag left set on disk, and nothing is
# lost: after the writes work again, fsck repairs the chain, and both
# files hold their data.
exfat_truncate_fat_error() {
	umount "$FS_MNT" 2>/dev/null
	mkdir -p "$FS_MNT"
	if ! fs_mkfs 4096 || ! mount -t exfat -o sync "$FS_DEV" "$FS_MNT"; then
		fail "$1 mkfs and mount -o sync" "could not make or mount it"
		return
	fi
	# Clusters given to two files in turn: each file's chain is in the
	# FAT, which the truncate must then cut.
	for i in 0 1 2 3 4 5 6 7; do
		xfs_io -f -c "pwrite -q -S 0x61 $((i * 4096)) 4096" \
			"$FS_MNT/chain-a"
		xfs_io -f -c "pwrite -q -S 0x62 $((i * 4096)) 4096" \
			"$FS_MNT/chain-b"
	done
	a0=$(dio-check bmap "$FS_MNT/chain-a" 0)
	check_eq "$1 the file's clusters are chained in the FAT" \
		"$(dio-check bmap "$FS_MNT/chain-a" 4096)" $((a0 + 8192))
	if ! exfat_swap_table 1; then
		fail "$1 dm-flakey over the FAT" "could not load the table"
		return
	fi
	got=$(truncate -s 4096 "$FS_MNT/chain-a" 2>&1)
	check_eq "$1 truncate whose FAT write fails reports EIO" \
		"$(echo "$got" | grep -c 'Input/output error')" 1
	got=$(touch "$FS_MNT/after-the-error" 2>&1)
	check_eq "$1 the volume takes no writes after it" \
		"$(echo "$got" | grep -c 'Read-only file system')" 1
	exfat_swap_table 0
	umount "$FS_MNT"
	# Map the device again, as a reboot would, so that fsck does not see
	# the old device's write error.
	fs_teardown && fs_setup
	# VolumeFlags, bit 1: VolumeDirty.
	flags=$(od -A n -t u2 -j 106 -N 2 "$FS_DEV")
	check_eq "$1 the volume is left dirty for fsck" $((flags & 2)) 2
	# fsck exits 1 when it corrected errors: here the chain longer than
	# the new size in the directory entry.
	fsck.exfat -y "$FS_DEV" >/tmp/exfat-fsck.out 2>&1
	check_eq "$1 fsck repairs the chain" \
		"$?:$(grep -c 'more clusters are allocated' /tmp/exfat-fsck.out)" 1:1
	check "$1 fsck finds the volume clean after the repair" \
		fsck.exfat -n "$FS_DEV"
	mount -t exfat "$FS_DEV" "$FS_MNT"
	size=$(stat -c %s "$FS_MNT/chain-a")
	check_eq "$1 size after the failed truncate is the old or the new" \
		"$((size == 4096 || size == 32768))" 1
	check "$1 data below the size after the failed truncate" \
		dio-check read "$FS_MNT/chain-a" 0 "$size" psync byte:0x61
	check "$1 the other file's data" \
		dio-check read "$FS_MNT/chain-b" 0 32768 psync byte:0x62
	umount "$FS_MNT"
}

unmount_test_dev
if ! fs_setup; then
	fail "exfat dm-linear device" "dmsetup create failed"
	exit 0
fi
for cs in $FS_VARIANTS; do
	fs=$(fs_label "$cs")
	fs_mkfs_mount "$fs" "$cs" || continue
	exfat_volume_checks "$fs"
done
exfat_truncate_fat_error "exfat 4096b clusters"
fs_teardown
