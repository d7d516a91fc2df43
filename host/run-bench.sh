#!/usr/bin/env bash
# The A/B benchmark of /sys/kernel/iomap/simple_read: check the settings,
# boot the built kernel with guest/bench/run-guest.sh, then turn what the guest
# measured into results/<date>-<name>/ (host/report/report.py). See README.md,
# "Benchmarks".
#
# The settings: config/defaults.mk; their checks: host/settings.sh.
set -euo pipefail
# shellcheck source=host/common.sh
. "$(dirname "$0")/common.sh"
# shellcheck source=host/settings.sh
. "$REPO_DIR/host/settings.sh"
# Whether NAME was given, before the settings default it.
name_given=${NAME:+1}
bench_settings
lock_cache "make bench"

# RESULTS names the folder itself (make ladder puts its steps in one).
# Without either, a second run on one day gets the next free -N suffix.
results=${RESULTS:-$REPO_DIR/results/$(date +%F)-$NAME}
if [ -z "$RESULTS" ] && [ -z "$name_given" ]; then
	n=2 base=$results
	while [ -e "$results" ]; do
		results=$base-$n n=$((n + 1))
	done
fi
[ ! -e "$results" ] ||
	die "$results exists: pick another NAME or remove it"

max_qd=0
for qd in $QDS; do
	[ "$qd" -gt "$max_qd" ] && max_qd=$qd
done
# The cells of a target and read size, ENGINE:QD each, the guest's list
# (CELLS): every engine at every depth of QDS, but psync, under icount,
# once, at QD 1: more jobs on the one pinned vCPU only take turns, and the
# count does not drift. The profiles run PROFILE_ENGINE at its deepest.
cells=()
for engine in $ENGINES; do
	if [ "$CLOCK" = icount ] && [ "$engine" = psync ]; then
		cells+=(psync:1)
	else
		for qd in $QDS; do
			cells+=("$engine:$qd")
		done
	fi
done
profile_qd=$max_qd
[ "$CLOCK:$PROFILE_ENGINE" != icount:psync ] || profile_qd=1

# A LAYOUT other than fresh is made on a filesystem only as large as
# mkfrag needs, since it fills all of it: twice the test file, 64 MiB for
# the extent maps, and a quarter more for what the filesystem keeps for
# itself (XFS's log and per-AG reservations: a 320 MiB XFS took 266 MiB of
# data). XFS wants 300 MiB at least.
layout_fs_mb=0
if [ "$LAYOUT" != fresh ]; then
	layout_fs_mb=$(((2 * SIZE_MB + 64) * 5 / 4))
	[ "$layout_fs_mb" -ge 300 ] || layout_fs_mb=300
fi
# null_blk holds its data in guest memory, allocated as it is written: the
# device holds one filesystem at a time, which writes less than twice the
# test file, or all of a LAYOUT's filesystem, and the guest gets that on
# top of its usual memory.
written_mb=$((2 * SIZE_MB))
[ "$layout_fs_mb" -le "$written_mb" ] || written_mb=$layout_fs_mb
nullb_gb=$(((written_mb + 1023) / 1024))
nullb_devs=1
[ "$min_bs" -ge 4096 ] || nullb_devs=2
export GUEST_MEM=${GUEST_MEM:-$((nullb_devs * nullb_gb + 3))G}
export GUEST_CPUS CLOCK
# irqmode=0 completes in the submitting context, the cheapest a device can
# be; the tags cover the deepest QD; poll queues serve io_uring --hipri.
# Reads below 4 KiB run on a second device with 512-byte blocks that the
# guest makes through configfs (guest/bench/run-guest.sh), with memory above.
nullb_params=(
	nr_devices=1 queue_mode=2 memory_backed=1 "gb=$nullb_gb" bs=4096
	irqmode=0 "submit_queues=$GUEST_CPUS" poll_queues=2 hw_queue_depth=1024
)
export GUEST_APPEND="$GUEST_APPEND ${nullb_params[*]/#/null_blk.}"

# Measured under TCG: every run costs RAMP+RUNTIME and about 1 s of fio
# start-up and exit; a target adds about 30 s (test file, the path check,
# the profiles). Under icount a guest second costs about host_per_guest_s
# host seconds and fio's start and exit about fio_start (measured here:
# results/METHOD.md, "Timings here"). The timeout is twice that and 15 min, so that only
# a hung guest reaches it.
targets=$(($(wc -w <<<"$DEVICES") * $(wc -w <<<"$TARGETS")))
cells_per_target=$((${#cells[@]} * $(wc -w <<<"$BSS")))
if [ "$CLOCK" = icount ]; then
	host_per_guest_s=8 fio_start=2
	runs=$((targets * cells_per_target * 2 * ROUNDS))
	profiles=$((targets * 2 * PROFILE_ROUNDS))
	est=$((runs * (host_per_guest_s * ($(ms "$RAMP") + $(ms "$RUNTIME")) / \
		1000 + fio_start) + profiles * (host_per_guest_s * \
		$(ms "$PROFILE_RUNTIME") / 1000 + 5) + targets * 40))
else
	runs=$((targets * (cells_per_target + PEAK) * 2 * ROUNDS))
	est=$((runs * (RAMP + RUNTIME + 1) + targets * 30))
fi
export BOOT_TIMEOUT=$((2 * est + 900))

share=$CACHE_DIR/bench-share
rm -rf "$share"
mkdir -p "$share"
{
	for setting in "${BENCH_CONF_SETTINGS[@]}"; do
		printf '%s="%s"\n' "$setting" "${!setting}"
	done
	cat <<EOF
LAYOUT_FS_MB=$layout_fs_mb
PEAK_QD=$max_qd
PROFILE_QD=$profile_qd
CELLS="${cells[*]}"
EOF
} >"$share/bench.conf"

# The exact profiles: the plugin, told where insn-mark starts, writes its
# snapshots into the share.
if [ "$PROFILER" = insn ] && [ "$PROFILE_ROUNDS" -gt 0 ]; then
	mark=$(nm "$CACHE_DIR/tools-bin/insn-mark" | awk '$3 == "_start" { print "0x" $1 }')
	[ -n "$mark" ] || die "no insn-mark in $CACHE_DIR/tools-bin (make initramfs)"
	make -s -C "$REPO_DIR/host/qemu-plugin" OUT="$CACHE_DIR"
	mkdir -p "$share/insn"
	export QEMU_PLUGIN="$CACHE_DIR/insn-count.so,mark=$mark,out=$share/insn"
fi

logname=bench-$NAME
started=$(date -Iseconds)
# The host is shared: its load says how quiet the run was.
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
# What boots, taken now: patches/ may change while a long run goes on.
series_booted=$(series_hash)
[ "$KERNEL_IMAGE" = "$BUILT_KERNEL" ] ||
	series_booted=${KERNEL_SERIES:-"not the built kernel: KERNEL_IMAGE=$KERNEL_IMAGE"}
bzimage_booted=$(sha256sum "$KERNEL_IMAGE" | cut -c1-16)
log "bench $NAME ($CLOCK): $runs runs, ~$((est / 60)) min estimated"
GUEST_SHARE=$share "$REPO_DIR/host/boot.sh" bench "$logname"
[ -f "$share/guest-meta.txt" ] ||
	die "the guest wrote nothing to $share; console log: $LOG_DIR/$logname.log"

cat >"$share/host-meta.txt" <<EOF
clock=$CLOCK
mode=$BENCH_MODE
started=$started
finished=$(date -Iseconds)
series_hash=$series_booted
guest_config=config/guest.config and guest/tests/fs/*.config sha256 $(kernel_fragments "$REPO_DIR/config/guest.config" | xargs cat | sha256sum | cut -c1-16)
bzimage_sha256=$bzimage_booted
host_cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores
accel=$(cat "$LOG_DIR/$logname.accel")
qemu_threads=not pinned on the host (no taskset)
host_loadavg=$load_before before, $(cut -d' ' -f1-3 /proc/loadavg) after
guest_mem=$GUEST_MEM
guest_run_seconds=$(grep -ao 'done in [0-9]*s' "$LOG_DIR/$logname.log" | tr -dc 0-9)
qemu_cmd=$(cat "$LOG_DIR/$logname.qemu-cmd")
EOF

mkdir -p "$results"
python3 "$REPO_DIR/host/report/report.py" "$share" "$results"
log "results: $results"
if [ -s "$share/errors.txt" ]; then
	sed 's/^/error in the guest: /' "$share/errors.txt" >&2
	die "$(wc -l <"$share/errors.txt") runs failed (see above)"
fi
