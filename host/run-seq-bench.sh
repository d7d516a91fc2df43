#!/usr/bin/env bash
# make bench-seq: buffered sequential write and read throughput of a
# filesystem (exfat or minix) on null_blk, in guest time under QEMU icount
# (so in guest instructions: deterministic), for each kernel named, one
# boot each (guest/bench/seq-guest.sh), into results/<date>-NAME/
# (host/report/seq.py).
#
# Settings (config/defaults.mk): SEQ_KERNELS (e.g. "stock=... series=lean"
# for a before/after table), FS, VARIANT, FILE_MB, BS, WRITERS, ROUNDS
# (runs per setting), PROFILE, NAME.
set -euo pipefail
# shellcheck source=host/common.sh
. "$(dirname "$0")/common.sh"
# shellcheck source=host/settings.sh
. "$REPO_DIR/host/settings.sh"
seq_settings
lock_cache "make bench-seq"
# The device's sectors, no larger than the filesystem's blocks: the
# plug-in's FS_BENCH_SECTOR.
sector=$(fs_plugin_values_of "$FS" FS_BENCH_SECTOR)
results=$REPO_DIR/results/$(date +%F)-$NAME

# null_blk as the bench has it: memory-backed, completing in the
# submitting context; room for the files and the filesystem.
nullb_gb=$(((2 * FILE_MB + 1023) / 1024))
export GUEST_APPEND="$GUEST_APPEND null_blk.nr_devices=1 \
null_blk.queue_mode=2 null_blk.memory_backed=1 null_blk.gb=$nullb_gb \
null_blk.bs=$sector null_blk.irqmode=0"
export GUEST_MEM=${GUEST_MEM:-$((nullb_gb + 3))G} CLOCK
# About two host minutes per 256 MiB written and read, and 20 to spare.
export BOOT_TIMEOUT=$((1200 + 120 * ROUNDS * $(wc -w <<<"$WRITERS") * FILE_MB / 256))

raw=$CACHE_DIR/seq-runs
rm -rf "$raw"
mkdir -p "$raw"
for spec in $SEQ_KERNELS; do
	kernel_spec SEQ_KERNELS "$spec"
	share=$(bench_share "$raw" "$label")
	cat >"$share/seq.conf" <<CONF
FS=$FS
VARIANT=$VARIANT
FILE_MB=$FILE_MB
BS=$BS
WRITERS="$WRITERS"
ROUNDS=$ROUNDS
PROFILE=$PROFILE
CONF
	log "seq bench: $label ($image)"
	boot_bench seq "$label" "$image" "$share"
done

mkdir -p "$results"
python3 "$REPO_DIR/host/report/seq.py" "$raw" "$results"
tar -C "$raw" -cJf "$results/raw.tar.xz" .
log "results: $results"
