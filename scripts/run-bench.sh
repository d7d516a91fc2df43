#!/usr/bin/env bash
# The A/B benchmark of /sys/kernel/iomap/simple_read: check the settings,
# boot the built kernel with bench/run-guest.sh, then turn what the guest
# measured into results/<date>-<name>/ (bench/report.py). See README.md,
# "Benchmarks".
#
# Settings (environment or make variables), full-mode defaults first:
#   QUICK=1     a smoke run of a few minutes: smaller defaults below
#   DEVICES     "nullb nvme"           (nullb: memory-backed null_blk)
#   TARGETS     "ext4 xfs raw"
#   ENGINES     "libaio io_uring io_uring_poll"    (quick: io_uring;
#               also psync: QD synchronous jobs)
#   QDS         "1 16 64 128 256"      (quick: "1 64")
#   ROUNDS      3 runs per setting and cell (quick: 2)
#   RUNTIME     seconds measured per run (2)      RAMP   seconds before (1)
#   SIZE_MB     test file size (1024; quick: 256)
#   PIN         vCPU fio and uring-peak run on, or "none" (0)
#   PROFILE_ENGINE  the engine perf profiles, at the highest QD (io_uring)
#   NAME        results/<date>-NAME (full; quick: quick)
set -euo pipefail
# shellcheck source=scripts/common.sh
. "$(dirname "$0")/common.sh"

if [ "${QUICK:-0}" = 1 ]; then
	mode=quick
	: "${ENGINES:=io_uring}" "${QDS:=1 64}" "${ROUNDS:=2}"
	: "${SIZE_MB:=256}"
else
	mode=full
fi
DEVICES=${DEVICES:-nullb nvme}
TARGETS=${TARGETS:-ext4 xfs raw}
ENGINES=${ENGINES:-libaio io_uring io_uring_poll}
QDS=${QDS:-1 16 64 128 256}
ROUNDS=${ROUNDS:-3}
RUNTIME=${RUNTIME:-2}
RAMP=${RAMP:-1}
SIZE_MB=${SIZE_MB:-1024}
PIN=${PIN:-0}
NAME=${NAME:-$mode}
GUEST_CPUS=${GUEST_CPUS:-2}
PROFILE_ENGINE=${PROFILE_ENGINE:-io_uring}

# check_some WHAT LIST: LIST has a word at least.
check_some() {
	[ "$(wc -w <<<"$2")" -gt 0 ] || die "$1 has no words"
}

# check_words WHAT LIST ALLOWED...: every word of LIST is one of ALLOWED.
check_words() {
	local what=$1 list=$2 word
	shift 2
	check_some "$what" "$list"
	for word in $list; do
		[[ " $* " == *" $word "* ]] ||
			die "$what: unknown '$word' (allowed: $*)"
	done
}

# check_int WHAT VALUE MIN: VALUE is a whole number >= MIN.
check_int() {
	if ! [[ $2 =~ ^[0-9]+$ ]] || [ "$2" -lt "$3" ]; then
		die "$1 must be a whole number >= $3, not '$2'"
	fi
}

check_words DEVICES "$DEVICES" nullb nvme
check_words TARGETS "$TARGETS" ext4 xfs raw
check_words ENGINES "$ENGINES" libaio io_uring io_uring_poll psync
check_words PROFILE_ENGINE "$PROFILE_ENGINE" libaio io_uring io_uring_poll psync
[ "$(wc -w <<<"$PROFILE_ENGINE")" -eq 1 ] ||
	die "PROFILE_ENGINE: one engine, not '$PROFILE_ENGINE'"
check_some QDS "$QDS"
for qd in $QDS; do
	check_int "each of QDS" "$qd" 1
	[ "$qd" -le 1024 ] || die "QDS: $qd is deeper than the devices' 1024 tags"
done
check_int ROUNDS "$ROUNDS" 1
# One second at least for fio to start inside the ramp: the CPU window
# begins RAMP seconds after fio does (bench/run-guest.sh).
check_int RAMP "$RAMP" 1
check_int RUNTIME "$RUNTIME" 1
check_int SIZE_MB "$SIZE_MB" 16
[ "$PIN" = none ] || check_int PIN "$PIN" 0
[ "$PIN" = none ] || [ "$PIN" -lt "$GUEST_CPUS" ] ||
	die "PIN=$PIN: the guest has only $GUEST_CPUS vCPUs (0..$((GUEST_CPUS - 1)))"
[[ $NAME =~ ^[A-Za-z0-9._-]+$ ]] ||
	die "NAME may hold letters, digits, '.', '_' and '-' only, not '$NAME'"

results=$REPO_DIR/results/$(date +%F)-$NAME
[ ! -e "$results" ] ||
	die "$results exists: pick another NAME or remove it"

max_qd=0
for qd in $QDS; do
	[ "$qd" -gt "$max_qd" ] && max_qd=$qd
done

# null_blk holds its data in guest memory, allocated as it is written: the
# device holds one filesystem at a time, so twice the test file bounds it,
# and the guest gets that on top of its usual memory.
nullb_gb=$(((2 * SIZE_MB + 1023) / 1024))
export GUEST_MEM=${GUEST_MEM:-$((nullb_gb + 3))G}
export GUEST_CPUS
# irqmode=0 completes in the submitting context, the cheapest a device can
# be; the tags cover the deepest QD; poll queues serve io_uring --hipri.
nullb_params=(
	nr_devices=1 queue_mode=2 memory_backed=1 "gb=$nullb_gb" bs=4096
	irqmode=0 "submit_queues=$GUEST_CPUS" poll_queues=2 hw_queue_depth=1024
)
export GUEST_APPEND="${GUEST_APPEND:-} ${nullb_params[*]/#/null_blk.}"

# Measured under TCG: every run costs RAMP+RUNTIME and about 1 s of fio
# start-up and exit; a target adds about 30 s (test file, the path check,
# the profiles). The timeout is twice that and 15 min, so that only a hung
# guest reaches it.
targets=$(($(wc -w <<<"$DEVICES") * $(wc -w <<<"$TARGETS")))
runs=$((targets * ($(wc -w <<<"$ENGINES") * $(wc -w <<<"$QDS") + 1) * \
	2 * ROUNDS))
est=$((runs * (RAMP + RUNTIME + 1) + targets * 30))
export BOOT_TIMEOUT=${BOOT_TIMEOUT:-$((2 * est + 900))}

share=$CACHE_DIR/bench-share
rm -rf "$share"
mkdir -p "$share"
cat >"$share/bench.conf" <<EOF
DEVICES="$DEVICES"
TARGETS="$TARGETS"
ENGINES="$ENGINES"
QDS="$QDS"
ROUNDS=$ROUNDS
RUNTIME=$RUNTIME
RAMP=$RAMP
SIZE_MB=$SIZE_MB
PIN=$PIN
PEAK_QD=$max_qd
PROFILE_ENGINE=$PROFILE_ENGINE
EOF

logname=bench-$NAME
started=$(date -Iseconds)
# The host is shared: its load says how quiet the run was.
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
# What boots, taken now: patches/ may change while a long run goes on.
series_booted=$(series_hash)
[ "$KERNEL_IMAGE" = "$BUILT_KERNEL" ] ||
	series_booted="not the built kernel: KERNEL_IMAGE=$KERNEL_IMAGE"
bzimage_booted=$(sha256sum "$KERNEL_IMAGE" | cut -c1-16)
log "bench $NAME: $runs runs, ~$((est / 60)) min of guest time estimated"
GUEST_SHARE=$share "$REPO_DIR/qemu/boot.sh" bench "$logname"
[ -f "$share/guest-meta.txt" ] ||
	die "the guest wrote nothing to $share; console log: $LOG_DIR/$logname.log"

cat >"$share/host-meta.txt" <<EOF
mode=$mode
started=$started
finished=$(date -Iseconds)
series_hash=$series_booted
guest_config=qemu/guest.config sha256 $(sha256sum "$REPO_DIR/qemu/guest.config" | cut -c1-16)
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
python3 "$REPO_DIR/bench/report.py" "$share" "$results"
log "results: $results"
if [ -s "$share/errors.txt" ]; then
	sed 's/^/error in the guest: /' "$share/errors.txt" >&2
	die "$(wc -l <"$share/errors.txt") runs failed (see above)"
fi
