#!/usr/bin/env bash
# Configure and build the guest kernel out of tree, in the cache, with
# ccache. The config is x86_64 allnoconfig plus config/guest.config and
# the filesystems' fragments (guest/tests/fs/*.config); every option the
# fragments ask for is checked in the result so a silently dropped option
# fails the build instead of a test later.
#
#   host/build-kernel.sh [TARGET...]     default target: bzImage
#
# KERNEL_FLAVOUR=debug builds the debug kernel (config/debug.config on top,
# in its own directory). KERNEL_SRC, KERNEL_BUILD and KERNEL_FRAGMENTS
# (space-separated paths) select another tree, build directory or config,
# for the compile-only coverage, bisect and stack builds; IOMAP_CCACHE
# another ccache directory (make ladder shares the main cache's).
set -euo pipefail
# shellcheck source=host/common.sh
. "$(dirname "$0")/common.sh"
# shellcheck source=host/settings.sh
. "$REPO_DIR/host/settings.sh"

case "${KERNEL_FLAVOUR:-lean}" in
lean)
	default_build=$BUILD_DIR
	default_fragments=$REPO_DIR/config/guest.config
	;;
debug)
	default_build=$DEBUG_BUILD_DIR
	default_fragments="$REPO_DIR/config/guest.config $REPO_DIR/config/debug.config"
	;;
*) die "KERNEL_FLAVOUR must be lean or debug" ;;
esac
src=${KERNEL_SRC:-$SRC_DIR}
build=${KERNEL_BUILD:-$default_build}
read -r -a given <<<"${KERNEL_FRAGMENTS:-$default_fragments}"
mapfile -t fragments < <(kernel_fragments "${given[@]}")
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(bzImage)
build_settings
jobs=${JOBS:-$(nproc)}
export CCACHE_DIR=${IOMAP_CCACHE:-$CACHE_DIR/ccache}
mkdir -p "$build" "$CCACHE_DIR" "$LOG_DIR"
# Hash file contents, not mtimes: a re-prepared tree must hit the cache.
export CCACHE_COMPILERCHECK=content CCACHE_SLOPPINESS=time_macros,include_file_mtime,include_file_ctime
# Make the kernel build reproducible across re-preparations of the tree.
export KBUILD_BUILD_TIMESTAMP="2024-01-01" KBUILD_BUILD_USER=iomap KBUILD_BUILD_HOST=guest

kmake() {
	make -C "$src" O="$build" CC="ccache gcc" -j"$jobs" "$@"
}

# effective_options FRAGMENT...: each option the fragments set, as the
# last of them sets it (merge_config.sh lets a later fragment override).
effective_options() {
	cat "$@" | awk '
		/^CONFIG_/ { opt = $0; sub(/=.*/, "", opt); set(opt, $0) }
		/^# CONFIG_.* is not set$/ { set($2, $2 "=n") }
		function set(opt, line) {
			if (!(opt in value)) order[++n] = opt
			value[opt] = line
		}
		END { for (i = 1; i <= n; i++) print value[order[i]] }'
}

config_stamp=$build/.fragment.sha
want=$(cat "${fragments[@]}" | sha256sum | cut -d' ' -f1)
if [ ! -f "$build/.config" ] || [ "$(cat "$config_stamp" 2>/dev/null)" != "$want" ]; then
	log "configuring: allnoconfig + ${fragments[*]##*/}"
	kmake -s allnoconfig
	(cd "$build" &&
		"$src/scripts/kconfig/merge_config.sh" -m -O . .config "${fragments[@]}" >/dev/null)
	kmake -s olddefconfig
	bad=0
	while IFS= read -r line; do
		case "$line" in
		CONFIG_*=n)
			opt=${line%%=*}
			if grep -q "^$opt=" "$build/.config"; then
				echo "config: $opt should be off" >&2
				bad=1
			fi
			;;
		CONFIG_*)
			if ! grep -qxF "$line" "$build/.config"; then
				echo "config: $line did not stick" >&2
				bad=1
			fi
			;;
		esac
	done < <(effective_options "${fragments[@]}")
	[ "$bad" -eq 0 ] || die "${fragments[*]##*/} does not fit this kernel"
	echo "$want" >"$config_stamp"
fi

buildlog=$LOG_DIR/build-$(basename "$build").log
log "building ${targets[*]} (-j$jobs, log: $buildlog)"
start=$(date +%s)
if ! kmake "${targets[@]}" >"$buildlog" 2>&1; then
	grep -E 'error|warning' "$buildlog" | head -40 >&2
	die "kernel build failed, see $buildlog"
fi
# A warning in a file the series touches is a defect too.
if grep -E '^[^ ]+:[0-9]+:[0-9]+: warning' "$buildlog" >&2; then
	die "the build printed warnings, see $buildlog"
fi
log "built in $(($(date +%s) - start)) s in $build"
