# shellcheck shell=bash
# Paths shared by every harness script. Sourced, not executed.

# The repository root, wherever the clone lives.
REPO_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# Everything large (kernel tree, build output, disk images, logs) lives
# here, outside the repository.
CACHE_DIR=${IOMAP_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/iomap-dio}
SRC_TARBALL=${LINUX_SOURCE:-/usr/src/linux-source-6.12.tar.xz}
SRC_DIR=$CACHE_DIR/linux
BUILD_DIR=$CACHE_DIR/build
BUILT_KERNEL=$BUILD_DIR/arch/x86/boot/bzImage
# The kernel qemu/boot.sh boots: the one built here unless a saved image is
# named (to compare two builds of the series in separate boots).
KERNEL_IMAGE=${KERNEL_IMAGE:-$BUILT_KERNEL}
# The debug kernel (qemu/guest.config + qemu/debug.config) the suite also
# runs on, built in its own directory so that neither build undoes the other.
DEBUG_BUILD_DIR=$CACHE_DIR/build-debug
DEBUG_KERNEL=$DEBUG_BUILD_DIR/arch/x86/boot/bzImage
IMAGE_DIR=$CACHE_DIR/images
LOG_DIR=$CACHE_DIR/logs
# The series: patches/ unless a directory with its own series file is
# named (make ladder boots prefixes of the series that way).
PATCH_DIR=${PATCH_DIR:-$REPO_DIR/patches}

export REPO_DIR CACHE_DIR SRC_TARBALL SRC_DIR BUILD_DIR IMAGE_DIR LOG_DIR \
	PATCH_DIR DEBUG_BUILD_DIR DEBUG_KERNEL

log() {
	printf '[%s] %s\n' "$(date +%H:%M:%S)" "$*" >&2
}

die() {
	printf 'error: %s\n' "$*" >&2
	exit 1
}

# Hash of the series: the tree is re-prepared whenever it changes. An
# empty series (the stock kernel) has a hash too: grep finding no patch
# name is not an error.
series_hash() {
	(cd "$PATCH_DIR" && cat series &&
		{ grep -v '^[[:space:]]*\(#\|$\)' series || true; } | xargs -r cat) |
		sha256sum | cut -c1-16
}
