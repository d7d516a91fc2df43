# shellcheck shell=sh
# The iomap operations the iomap_next conversion touches, on ext4 and XFS:
# buffered I/O, SEEK_HOLE/SEEK_DATA, FIEMAP, reads of every kind of
# mapping, past EOF into reserved blocks and of a file whose extents are
# read in after a mount, atime and ext4's IOMAP_F_DIRTY around direct I/O,
# truncate zeroing, mmap write faults, swapfile activation and O_DIRECT
# writes. Each checks data or offsets, not just exit codes.
# shellcheck source=guest/tests/lib.sh
. ./lib.sh

SEED=0x10ad

# extents FILE: the file's extents as "first-last" 4 KiB blocks (FIEMAP).
extents() {
	filefrag -v -b4096 "$1" |
		sed -n 's/^ *[0-9]*: *\([0-9]*\)\.\. *\([0-9]*\):.*/\1-\2/p' |
		tr '\n' ' '
}

for fs in ext4 xfs; do
	mnt=/mnt/$fs
	mkfs_mount $fs $mnt || continue

	# Buffered write, then buffered and direct reads after a cache drop.
	check "$fs buffered write" dio-check fill $mnt/buf 0 1048576 $SEED
	drop_caches
	check "$fs buffered read" \
		dio-check read $mnt/buf 12345 100000 buffered pattern:$SEED
	check "$fs direct read of buffered write" \
		dio-check read $mnt/buf 0 1048576 psync pattern:$SEED

	# Two 64 KiB data ranges with a hole between them.
	f=$mnt/sparse
	xfs_io -f -c "pwrite -q 0 64k" -c "pwrite -q 1m 64k" -c fsync $f
	check_eq "$fs SEEK_HOLE from 0" "$(seek_result $f h 0)" 65536
	check_eq "$fs SEEK_DATA from the hole" "$(seek_result $f d 65536)" 1048576
	check_eq "$fs SEEK_HOLE at the end" "$(seek_result $f h 1048576)" 1114112
	check_eq "$fs FIEMAP extents" "$(extents $f)" "0-15 256-271 "

	# An O_DIRECT read that ends past EOF is short, also where the blocks
	# past EOF are reserved for later writes and hold nothing: XFS's
	# speculative preallocation for the buffered write, cut off past the
	# new EOF by the fallocate (the model tester's reduced failure). The
	# file stays open for the read, as XFS trims the reservation when
	# the last descriptor that wrote it is closed.
	f=$mnt/eof-reserved
	check_eq "$fs direct read past EOF into reserved blocks is short" \
		"$(xfs_io -f -c "truncate 100757" \
			-c "pwrite -q -S 0x45 143727 59603" \
			-c "falloc 204857 2227" -c "open -d $f" \
			-c "pread -b 50688 159744 50688" $f 2>&1 | head -1)" \
		"read 47340/50688 bytes at offset 159744"
	check "$fs its data" \
		dio-check read $f 159744 43586 buffered byte:0x45
	check "$fs its zeros up to EOF" \
		dio-check read $f 203330 3754 buffered zero

	# Unwritten preallocation is a hole to SEEK_DATA.
	f=$mnt/falloc
	xfs_io -f -c "falloc 0 1m" -c "pwrite -q 2m 64k" -c fsync $f
	check_eq "$fs SEEK_DATA skips unwritten" "$(seek_result $f d 0)" 2097152
	check "$fs unwritten reads zero" \
		dio-check read $f 0 1048576 io_uring zero

	# One file of every kind of mapping a read meets, each read alone
	# and across the boundaries of the data, through the page cache (from
	# disk: a read_folio/readahead mapping) and O_DIRECT: a hole before
	# the first extent, data, a hole, an unwritten extent, a hole, data,
	# and blocks past the last extent below i_size.
	f=$mnt/layout
	dio-check fill $f 65536 65536 $SEED
	dio-check fill $f 327680 65536 $SEED
	xfs_io -c "falloc 192k 64k" -c "truncate 512k" -c fsync $f
	check_eq "$fs FIEMAP of the layout" "$(extents $f)" "16-31 48-63 80-95 "
	for engine in buffered psync io_uring; do
		drop_caches
		for range in "0 65536 zero" "32768 65536 patternfrom:32768:$SEED" \
			"65536 65536 pattern:$SEED" \
			"98304 65536 zerofrom:32768:$SEED" "131072 131072 zero" \
			"294912 65536 patternfrom:32768:$SEED" \
			"327680 65536 pattern:$SEED" \
			"360448 65536 zerofrom:32768:$SEED" "393216 131072 zero"; do
			# shellcheck disable=SC2086 # OFFSET LENGTH EXPECT
			set -- $range
			check "$fs $engine read of the layout at $1+$2" \
				dio-check read $f "$1" "$2" $engine "$3"
		done
	done

	# A file of 300 extents, more than the inode holds: its mapping is
	# a tree the filesystem reads in when the file is first mapped after
	# a mount (XFS: the btree-format fork's extents, each read in traced
	# as xfs_read_extent). Then reads of data, of a hole and across both,
	# which take one mapping and two.
	f=$mnt/extents
	dio-check fill $f 0 2457600 $SEED
	set --
	block=4096
	while [ $block -lt 2457600 ]; do
		set -- "$@" -c "fpunch $block 4k"
		block=$((block + 8192))
	done
	xfs_io "$@" -c fsync $f
	check_eq "$fs FIEMAP of 300 extents" "$(extents $f | wc -w | tr -d " ")" 300
	umount $mnt
	mount -t $fs "$FS_DEV" $mnt
	[ $fs = ext4 ] ||
		echo 1 >$TRACING/events/xfs/xfs_read_extent/enable
	trace_start
	check "$fs direct read of the last extent after a mount" \
		dio-check read $f 2449408 4096 psync pattern:$SEED
	echo 0 >$TRACING/tracing_on
	if [ $fs = xfs ]; then
		echo 0 >$TRACING/events/xfs/xfs_read_extent/enable
		check_eq "$fs extents read in by that read" \
			"$(grep -c xfs_read_extent: $TRACING/trace)" 300
	fi
	for engine in psync io_uring; do
		for range in "0 4096 pattern:$SEED" "1232896 4096 zero" \
			"1228800 8192 zerofrom:4096:$SEED" \
			"1232896 8192 patternfrom:4096:$SEED"; do
			# shellcheck disable=SC2086 # OFFSET LENGTH EXPECT
			set -- $range
			check "$fs $engine read of 300 extents at $1+$2" \
				dio-check read $f "$1" "$2" $engine "$3"
		done
	done

	# atime after an O_DIRECT read: moved on relatime (atime not after
	# mtime) and strictatime mounts, kept on noatime and for a noatime
	# inode (atime_needs_update() tests those flags before the ids).
	f=$mnt/atime
	dio-check fill $f 0 4096 $SEED
	for how in relatime:moved strictatime:moved noatime:kept \
		strictatime+A:kept; do
		opt=${how%%:*}
		mount -o "remount,${opt%+A}" $mnt
		[ "$opt" = "${opt%+A}" ] || xfs_io -c "chattr +A" $f
		touch -d "2000-01-01 00:00:00" $f
		dio-check read $f 0 4096 psync pattern:$SEED
		if [ "$(stat -c %X $f)" -gt 946684800 ]; then got=moved; else got=kept; fi
		check_eq "$fs atime after a direct read ($opt)" $got "${how#*:}"
	done
	xfs_io -c "chattr -A" $f
	mount -o remount,relatime $mnt

	# IOMAP_F_DIRTY on ext4: set for an O_DSYNC direct overwrite while
	# the inode has uncommitted metadata (without it the write would go
	# out as FUA and skip the journal commit), not for a direct read,
	# which never acts on it. A direct write past EOF leaves the new
	# size uncommitted until the journal's next commit, a minute away
	# with commit=60 however slow the guest.
	if [ $fs = ext4 ]; then
		mount -o remount,commit=60 $mnt
		f=$mnt/dsync
		xfs_io -f -c "pwrite -q 0 64k" -c fsync $f
		ino=$(printf '%x' "$(stat -c %i $f)")
		echo 1 >$TRACING/events/iomap/iomap_iter_dstmap/enable
		for op in overwrite:1 read:0; do
			name="$fs IOMAP_F_DIRTY on a ${op%:*} of a dirty inode"
			xfs_io -d -c "pwrite -q $(stat -c %s $f) 4k" $f
			trace_start
			case $op in
			overwrite*) xfs_io -d -c "pwrite -q -D 0 4k" $f ;;
			read*) dio-check read $f 0 65536 psync byte:0xcd ;;
			esac
			echo 0 >$TRACING/tracing_on
			maps=$(grep -c "iomap_iter_dstmap:.* ino 0x$ino " $TRACING/trace)
			dirty=$(grep -c "iomap_iter_dstmap:.* ino 0x$ino .*DIRTY" $TRACING/trace)
			if [ "$maps" -eq 0 ]; then
				fail "$name" "no iomap_iter_dstmap line for it"
			else
				check_eq "$name" "$dirty of $maps" \
					"$((${op#*:} * maps)) of $maps"
			fi
		done
		echo 0 >$TRACING/events/iomap/iomap_iter_dstmap/enable
		mount -o remount,commit=5 $mnt
	fi

	# Truncate into a block zeroes its tail: extend again and look.
	f=$mnt/trunc
	dio-check fill $f 0 16384 $SEED
	truncate -s 5000 $f
	truncate -s 16384 $f
	check "$fs truncate zeroes the partial block (buffered)" \
		dio-check read $f 4096 4096 buffered zerofrom:904:$SEED
	drop_caches
	check "$fs truncate zeroes the partial block (direct)" \
		dio-check read $f 4096 4096 psync zerofrom:904:$SEED
	check "$fs truncate leaves zeros past the old end" \
		dio-check read $f 8192 8192 psync zero

	# A write fault through mmap reaches the disk.
	f=$mnt/mmap
	xfs_io -f -c "truncate 65536" -c "mmap -w 0 64k" \
		-c "mwrite -S 0x5a 0 64k" -c "msync -s 0 64k" -c "munmap" $f
	drop_caches
	check "$fs mmap write fault" dio-check read $f 0 65536 psync byte:0x5a

	# O_DIRECT write, read back both ways.
	f=$mnt/dwrite
	xfs_io -f -d -c "pwrite -q -S 0x3c 0 64k" -c "pwrite -q -S 0x3d 64k 4k" $f
	drop_caches
	check "$fs direct write, direct read" \
		dio-check read $f 0 65536 libaio byte:0x3c
	check "$fs direct write, buffered read" \
		dio-check read $f 65536 4096 buffered byte:0x3d

	# Swapfile activation walks the mapping with iomap_swapfile_activate.
	f=$mnt/swap
	xfs_io -f -c "pwrite -q 0 16m" -c fsync $f
	chmod 600 $f
	if mkswap $f >/dev/null && swapon $f; then
		if grep -q "^$f " /proc/swaps; then
			pass "$fs swapon of a swapfile"
		else
			fail "$fs swapon of a swapfile" "not listed in /proc/swaps"
		fi
		swapoff $f
	else
		fail "$fs swapon of a swapfile" "mkswap or swapon failed"
	fi
	# A file with a hole cannot be a swapfile.
	xfs_io -f -c "pwrite -q 0 4m" -c "pwrite -q 12m 4m" -c fsync $mnt/holey
	chmod 600 $mnt/holey
	mkswap $mnt/holey >/dev/null
	if swapon $mnt/holey 2>/dev/null; then
		swapoff $mnt/holey
		fail "$fs swapon refuses a file with holes" "swapon succeeded"
	else
		pass "$fs swapon refuses a file with holes"
	fi

	umount $mnt
done
