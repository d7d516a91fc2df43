# shellcheck shell=sh
# shellcheck disable=SC2034 # the FS_ settings are read by tests/lib.sh, the tests and host/
# minix v1, v2 and v3 in 1 KiB blocks on the first 32 MiB of the test
# disk: small and quick, and within what v1 can address. minix has no
# polled I/O.
FS_TYPE=minix
FS_VARIANTS="1 2 3"
FS_BLOCK=1024
FS_ENGINES="psync libaio io_uring"
FS_SKIP_CHECKS="seek_holes: minix has no SEEK_HOLE/SEEK_DATA (generic_file_llseek)"
FS_TOOLS="mkfs.minix fsck.minix"
FS_PACKAGES=util-linux
FS_ENTRY_POINTS="fs/minix/file.o:minix_file_read_iter=mm/filemap.o:generic_file_read_iter
	fs/minix/file.o:minix_file_write_iter=mm/filemap.o:generic_file_write_iter"
# No fallocate, RWF_NOWAIT, STATX_DIOALIGN or FIEMAP, no copy_file_range
# (no splice_write); SEEK_HOLE finds no holes. No eofzero: bytes stored
# through a mapping past EOF show once a write takes the file past them,
# with the series as in stock 6.12. Stock 6.12's minix has no direct I/O
# either: the series adds it.
FS_MODEL_CAPS="dio seek"
FS_MODEL_CAPS_STOCK=seek

# What a power cut may expect (FS_CRASH in tests/lib.sh, tests/crash.sh).
FS_CRASH="unordered sync-frees"
FS_REPAIRED=3
fs_label() {
	echo "minix v$1"
}

fs_mkfs() {
	mkfs.minix -"$1" "$FS_DEV" 32768 >/dev/null 2>&1
}

fs_fsck() {
	fsck.minix -f "$FS_DEV"
}

# The superblock magic statfs reports: v1 and v2 each with 14- or 30-byte
# names, v3 one.
fs_mounted() {
	case $2 in
	1) want="137f 138f" ;;
	2) want="2468 2478" ;;
	*) want="4d5a" ;;
	esac
	got=$(stat -f -c %t "$3")
	case " $want " in
	*" $got "*) pass "$1 mounted as v$2" ;;
	*) fail "$1 mounted as v$2" "f_type $got, want one of $want" ;;
	esac
}

fs_repair() {
	fsck.minix -a -f "$FS_DEV"
}

# The benches (FS_BENCHES in tests/lib.sh): on the whole device.
FS_BENCHES=seq
FS_BENCH_VARIANT=3
FS_BENCH_SECTOR=1024
fs_bench_mkfs() {
	mkfs.minix -"$1" "$FS_DEV" >/dev/null 2>&1
}
