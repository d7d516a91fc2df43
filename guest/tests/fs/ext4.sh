# shellcheck shell=sh
# shellcheck disable=SC2034 # the FS_ settings are read by tests/lib.sh and the tests
# ext4 with 4 KiB blocks, on the whole test disk.
FS_TYPE=ext4
FS_VARIANTS=4k
FS_BLOCK=4096
FS_TOOLS="mkfs.ext4 e2fsck"

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
