# shellcheck shell=sh
# shellcheck disable=SC2034 # the FS_ settings are read by tests/lib.sh and the tests
# XFS with 4 KiB blocks, on the whole test disk.
FS_TYPE=xfs
FS_VARIANTS=4k
FS_BLOCK=4096
FS_TOOLS="mkfs.xfs xfs_repair"

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
