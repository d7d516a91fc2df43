# shellcheck shell=sh
# shellcheck disable=SC2034 # the FS_ settings are read by tests/lib.sh, the tests and host/
# An ext2-format volume with 4 KiB blocks mounted by ext2's own driver (its
# indirect-block mapping through iomap_dio_rw()), on the whole test disk.
# ext2 has no polled I/O.
FS_TYPE=ext2
FS_VARIANTS=4k
FS_BLOCK=4096
FS_ENGINES="psync libaio io_uring"
FS_SKIP_CHECKS="seek_holes: ext2 has no SEEK_HOLE/SEEK_DATA (generic_file_llseek)"
FS_TOOLS="mkfs.ext4 e2fsck"
FS_PACKAGES=e2fsprogs
FS_ENTRY_POINTS="fs/ext2/file.o:ext2_file_read_iter
	fs/ext2/file.o:ext2_file_write_iter"
# No fallocate, no RWF_NOWAIT, no STATX_DIOALIGN; SEEK_HOLE finds no holes.
# No eofzero: bytes stored through a mapping past EOF stay in the page and
# show once a write takes the file past them (its buffered writes, which
# the series leaves alone, do not zero the EOF block's tail), as in stock
# 6.12.
FS_MODEL_CAPS="dio copy seek fiemap"

# Stock 6.12's ext2_iomap_begin() marks a direct write IOMAP_F_DIRTY only
# past EOF, so iomap writes an O_DSYNC write over blocks an unsynced
# buffered write allocated with FUA alone and skips the sync: the size and
# block pointers that lead to the data are lost at a power cut (t-45). The
# series' ext2 topic fixes it (FS_KNOWN_DEFECTS_STOCK in tests/lib.sh).
FS_KNOWN_DEFECTS_STOCK="dsync_direct_write: an O_DSYNC or RWF_DSYNC O_DIRECT write over blocks an unsynced buffered write allocated loses the file's size at a power cut"
# What a power cut may expect (FS_CRASH in tests/lib.sh, tests/crash.sh).
FS_CRASH=unordered
FS_REPAIRED=1
fs_label() {
	echo ext2
}

fs_mkfs() {
	mkfs.ext4 -q -F -t ext2 -b 4096 "$FS_DEV"
}

fs_fsck() {
	e2fsck -f -n "$FS_DEV"
}

fs_mounted() {
	check_eq "$1 block size" "$(stat -f -c %S "$3")" 4096
}

fs_repair() {
	e2fsck -f -y "$FS_DEV"
}
