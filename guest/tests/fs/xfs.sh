# shellcheck shell=sh
# shellcheck disable=SC2034 # the FS_ settings are read by tests/lib.sh, the tests and host/
# XFS with 4 KiB blocks, on the whole test disk.
FS_TYPE=xfs
FS_VARIANTS=4k
FS_BLOCK=4096
FS_TOOLS="mkfs.xfs xfs_repair"
FS_PACKAGES=xfsprogs
FS_ENTRY_POINTS="fs/xfs/xfs_file.o:xfs_file_read_iter
	fs/xfs/xfs_file.o:xfs_file_dio_read
	fs/xfs/xfs_file.o:xfs_file_write_iter
	fs/xfs/xfs_file.o:xfs_file_dio_write_aligned
	fs/xfs/xfs_file.o:xfs_file_dio_write_unaligned"
FS_MODEL_CAPS="dio dioalign copy seek fiemap eofzero
	falloc=alloc,keep,punch,zero,zero-keep,collapse,insert
	nowait=read,write,dread,dwrite"

# What a power cut may expect (FS_CRASH in tests/lib.sh, tests/crash.sh).
FS_CRASH=names
fs_label() {
	echo xfs
}

fs_mkfs() {
	mkfs.xfs -q -f -b size=4096 "$FS_DEV"
}

fs_fsck() {
	xfs_repair -n "$FS_DEV"
}

fs_mounted() {
	check_eq "$1 block size" "$(stat -f -c %S "$3")" 4096
}

# The benches (FS_BENCHES in tests/lib.sh).
FS_BENCHES="dio db"
fs_bench_mkfs() {
	mkfs.xfs -q -f -b size=4096 ${2:+-d} ${2:+"size=${2}m"} "$FS_DEV"
}

fs_bench_no_reserve() {
	xfs_io -x -c "resblks 0" "$1" >/dev/null
}
