# shellcheck shell=sh
# shellcheck disable=SC2034 # the FS_ settings are read by tests/lib.sh, the tests and host/
# ext4 with 4 KiB blocks, on the whole test disk.
FS_TYPE=ext4
FS_VARIANTS=4k
FS_BLOCK=4096
FS_TOOLS="mkfs.ext4 e2fsck"
FS_PACKAGES=e2fsprogs
FS_ENTRY_POINTS="fs/ext4/file.o:ext4_file_read_iter
	fs/ext4/file.o:ext4_dio_read_iter
	fs/ext4/file.o:ext4_file_write_iter
	fs/ext4/file.o:ext4_dio_write_iter"
# Buffered RWF_NOWAIT writes are refused (EOPNOTSUPP), reads and O_DIRECT
# writes are not.
FS_MODEL_CAPS="dio dioalign copy seek fiemap eofzero
	falloc=alloc,keep,punch,zero,zero-keep,collapse,insert
	nowait=read,dread,dwrite"

# What a power cut may expect (FS_CRASH in tests/lib.sh, tests/crash.sh).
FS_CRASH=names
fs_label() {
	echo ext4
}

fs_mkfs() {
	mkfs.ext4 -q -F -b 4096 "$FS_DEV"
}

fs_fsck() {
	e2fsck -f -n "$FS_DEV"
}

fs_mounted() {
	check_eq "$1 block size" "$(stat -f -c %S "$3")" 4096
}

# The benches (FS_BENCHES in tests/lib.sh): the inode tables and journal
# are written now, or ext4lazyinit would write them during the
# measurements; a file laid out by mkfrag gets no reserved blocks.
FS_BENCHES="dio db"
fs_bench_mkfs() {
	mkfs.ext4 -q -F -b 4096 ${2:+-m 0} \
		-E lazy_itable_init=0,lazy_journal_init=0 "$FS_DEV" ${2:+"${2}M"}
}

fs_bench_no_reserve() {
	echo 0 >"/sys/fs/ext4/${FS_DEV#/dev/}/reserved_clusters"
}
