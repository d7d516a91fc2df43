# shellcheck shell=sh
# The filesystem plug-ins (tests/fs/NAME.sh, tests/lib.sh lists what they
# set) as the benches use them. Sourced by the benches in the guest
# (/lib/iomap/bench-fs.sh); a bench runs on the filesystems whose
# FS_BENCHES name it, which host/settings.sh checks before anything is
# built.

# bench_fs NAME DEVICE: load filesystem NAME's plug-in for a bench on
# DEVICE: its FS_ settings, FS_BENCH_VARIANT (the first of its variants
# unless it names another) and its hooks, fs_bench_mkfs VARIANT [MB] among
# them, and fs_bench_no_reserve MOUNTPOINT (nothing unless it defines it).
bench_fs() {
	unset FS_BENCH_VARIANT
	# shellcheck disable=SC2317 # called by the benches
	fs_bench_no_reserve() { :; }
	# shellcheck source=/dev/null
	. "/tests/fs/$1.sh"
	# shellcheck disable=SC2034 # read by the plug-in's hooks
	FS_DEV=$2
	FS_BENCH_VARIANT=${FS_BENCH_VARIANT:-${FS_VARIANTS%% *}}
}
