#!/usr/bin/env bash
# Build the guest's initramfs from this host's own binaries: busybox-static
# for the shell and core tools, the I/O and filesystem tools the tests and
# the bench drive (each with the shared libraries ldd names), the project's
# test programs and the test suite itself. Nothing is downloaded.
set -euo pipefail
# shellcheck source=host/common.sh
. "$(dirname "$0")/common.sh"

out=$CACHE_DIR/initramfs.cpio.gz
root=$CACHE_DIR/initramfs-root

# The tools every test may run, and those each filesystem's plug-in names
# (FS_TOOLS).
host_tools=(
	fio perf nvme xfs_io filefrag dmsetup mkswap swapon swapoff losetup
)
mapfile -t -O ${#host_tools[@]} host_tools < <(fs_plugin_values FS_TOOLS)

rm -rf "$root"
mkdir -p "$root"/{bin,sbin,etc,proc,sys,dev,tmp,mnt,run,lib64} \
	"$root"/usr/{bin,sbin} "$root"/{tests,bench,tools/bin,lib/iomap}

cp /bin/busybox "$root/bin/busybox"
for applet in $(/bin/busybox --list); do
	[ -e "$root/bin/$applet" ] || ln -s busybox "$root/bin/$applet"
done

# Copy a binary and every shared library it loads, at the same paths.
copy_with_libs() {
	local bin=$1 dest=$2 lib
	cp -L "$bin" "$root$dest"
	for lib in $(ldd "$bin" 2>/dev/null | grep -o '/[^ ]*'); do
		[ -e "$root$lib" ] && continue
		mkdir -p "$root$(dirname "$lib")"
		cp -L "$lib" "$root$lib"
	done
}

for tool in "${host_tools[@]}"; do
	path=$(PATH=/usr/sbin:/sbin:$PATH command -v "$tool") ||
		die "$tool not found on the host (host/install-deps.sh)"
	# Host tools override busybox applets of the same name.
	rm -f "$root/bin/$tool"
	copy_with_libs "$path" "/usr/sbin/$tool"
done

# The guest's own programs, built against the host's libraries, and the
# scripts that drive them: the suite in /tests, the bench in /bench, and
# the shell code both source in /lib/iomap.
make -s -C "$REPO_DIR/guest/tools" OUT="$CACHE_DIR/tools-bin"
for prog in "$CACHE_DIR"/tools-bin/*; do
	copy_with_libs "$prog" "/tools/bin/$(basename "$prog")"
done
cp "$REPO_DIR"/guest/tests/*.sh "$root/tests/"
mkdir -p "$root/tests/fs"
cp "$FS_PLUGIN_DIR"/*.sh "$root/tests/fs/"
cp "$REPO_DIR"/guest/bench/*.sh "$root/bench/"
cp "$REPO_DIR"/guest/lib/*.sh "$REPO_DIR"/guest/lib/*.awk "$root/lib/iomap/"
cp "$REPO_DIR/guest/init" "$root/init"
chmod +x "$root/init" "$root"/tests/*.sh "$root"/bench/*.sh
echo 'root:x:0:0:root:/:/bin/sh' >"$root/etc/passwd"
echo 'root:x:0:' >"$root/etc/group"

(cd "$root" && find . -print0 | cpio --null -o -H newc --quiet) |
	gzip -1 >"$out.tmp"
mv "$out.tmp" "$out"
log "initramfs: $out ($(du -h "$out" | cut -f1))"
