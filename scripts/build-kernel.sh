#!/usr/bin/env bash
# Configure and build the guest kernel out of tree, in the cache, with
# ccache. The config is x86_64 allnoconfig plus qemu/guest.config; every
# option the fragment asks for is checked in the result so a silently
# dropped option fails the build instead of a test later.
set -euo pipefail
# shellcheck source=scripts/common.sh
. "$(dirname "$0")/common.sh"

fragment=$REPO_DIR/qemu/guest.config
jobs=${JOBS:-$(nproc)}
mkdir -p "$BUILD_DIR" "$CACHE_DIR/ccache"
export CCACHE_DIR=$CACHE_DIR/ccache
# Hash file contents, not mtimes: a re-prepared tree must hit the cache.
export CCACHE_COMPILERCHECK=content CCACHE_SLOPPINESS=time_macros,include_file_mtime,include_file_ctime
# Make the kernel build reproducible across re-preparations of the tree.
export KBUILD_BUILD_TIMESTAMP="2024-01-01" KBUILD_BUILD_USER=iomap KBUILD_BUILD_HOST=guest

kmake() {
	make -C "$SRC_DIR" O="$BUILD_DIR" CC="ccache gcc" -j"$jobs" "$@"
}

config_stamp=$BUILD_DIR/.fragment.sha
want=$(sha256sum "$fragment" | cut -d' ' -f1)
if [ ! -f "$BUILD_DIR/.config" ] || [ "$(cat "$config_stamp" 2>/dev/null)" != "$want" ]; then
	log "configuring: allnoconfig + qemu/guest.config"
	kmake -s allnoconfig
	(cd "$BUILD_DIR" &&
		"$SRC_DIR/scripts/kconfig/merge_config.sh" -m -O . .config "$fragment" >/dev/null)
	kmake -s olddefconfig
	bad=0
	while IFS= read -r line; do
		case "$line" in
		CONFIG_*=n)
			opt=${line%%=*}
			if grep -q "^$opt=" "$BUILD_DIR/.config"; then
				echo "config: $opt should be off" >&2
				bad=1
			fi
			;;
		CONFIG_*)
			if ! grep -qxF "$line" "$BUILD_DIR/.config"; then
				echo "config: $line did not stick" >&2
				bad=1
			fi
			;;
		esac
	done <"$fragment"
	[ "$bad" -eq 0 ] || die "qemu/guest.config does not fit this kernel"
	echo "$want" >"$config_stamp"
fi

log "building bzImage (-j$jobs, log: $LOG_DIR/build.log)"
mkdir -p "$LOG_DIR"
start=$(date +%s)
if ! kmake bzImage >"$LOG_DIR/build.log" 2>&1; then
	grep -E 'error|Error' "$LOG_DIR/build.log" | head -20 >&2
	die "kernel build failed, see $LOG_DIR/build.log"
fi
log "kernel built in $(($(date +%s) - start)) s: $BUILD_DIR/arch/x86/boot/bzImage"
