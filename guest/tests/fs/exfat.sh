# shellcheck shell=sh
# shellcheck disable=SC2034 # the FS_ settings are read by tests/lib.sh, the tests and host/
# exfat with 512-byte, 4 KiB and 64 KiB clusters on a 64 MiB dm-linear
# slice of the test disk, so that mkfs and the pattern are quick. The whole
# slice holds a stale pattern before mkfs, so that any cluster a file gets
# holds stale data that must never show through. exfat has no sparse
# files (its clusters up to i_size are allocated; those beyond valid_size
# read as zeros) and no polled I/O. Its O_DIRECT reads of more than one
# block may stop early (IOMAP_DIO_PARTIAL), so only one-block reads take
# the simple path.
FS_TYPE=exfat
FS_VARIANTS="512 4096 65536"
FS_BLOCK=512
FS_ENGINES="psync libaio io_uring"
FS_CANNOT="sparse simple_multi_block"
FS_SKIP_CHECKS="hole_truncate: exfat has no holes to cut a file inside"
FS_FIO_BS=4k
FS_TOOLS="mkfs.exfat fsck.exfat dmsetup"
FS_PACKAGES=exfatprogs
FS_ENTRY_POINTS="fs/exfat/file.o:exfat_file_read_iter=mm/filemap.o:generic_file_read_iter
	fs/exfat/file.o:exfat_file_write_iter"
# No fallocate, RWF_NOWAIT, STATX_DIOALIGN or FIEMAP. With the series
# SEEK_HOLE finds the unwritten clusters past valid_size. Every cluster up
# to i_size is allocated: four model files of 4 MiB fit the volume.
FS_MODEL_CAPS="dio copy seek eofzero"
FS_MODEL_SIZE=4m
FS_DEV=/dev/mapper/exfat
EXFAT_SECTORS=131072
EXFAT_STALE=0x5e5e

# What a power cut may expect (FS_CRASH in tests/lib.sh, tests/crash.sh).
FS_CRASH="names unordered"
FS_REPAIRED=1
fs_label() {
	echo "exfat ${1}b clusters"
}

fs_setup() {
	dmsetup remove exfat 2>/dev/null
	dm_create exfat "0 $EXFAT_SECTORS linear $TEST_DEV 0"
}

fs_teardown() {
	dmsetup remove exfat
}

fs_mkfs() {
	dio-check fill "$FS_DEV" 0 $((EXFAT_SECTORS * 512)) $EXFAT_STALE \
		>/dev/null && mkfs.exfat -c "$1" "$FS_DEV" >/dev/null 2>&1
}

fs_fsck() {
	fsck.exfat -n "$FS_DEV"
}

fs_mounted() {
	check_eq "$1 cluster size" "$(stat -f -c %s "$3")" "$2"
}

fs_repair() {
	fsck.exfat -y "$FS_DEV"
}

# The benches (FS_BENCHES in tests/lib.sh): on the whole device, its
# clusters of VARIANT bytes, in 4 KiB sectors.
FS_BENCHES=seq
FS_BENCH_VARIANT=4096
FS_BENCH_SECTOR=4096
fs_bench_mkfs() {
	mkfs.exfat -c "$1" "$FS_DEV" >/dev/null 2>&1
}
