#!/usr/bin/env bash
# make bench-seq: buffered sequential write and read throughput of a
# filesystem (exfat or minix) on null_blk, in guest time under QEMU icount
# (so in guest instructions: deterministic), for each kernel named, one
# boot each (guest/bench/seq-guest.sh), into results/<date>-NAME/
# (host/report/seq.py).
#
# Settings (environment or make variables):
#   SEQ_KERNELS "LABEL=BZIMAGE ..." (default: series=the built kernel);
#               e.g. "stock=... series=..." for a before/after table
#   FS          exfat (default) or minix (v3, 1 KiB blocks)
#   CLUSTER     exfat cluster size: 4k
#   FILE_MB     data written and read per run, split over the jobs: 256
#   BS          fio block size: 64k
#   WRITERS     numbers of fio jobs writing (then reading) at once, each
#               a run: "1 4"
#   ROUNDS      runs per setting: 2
#   PROFILE     1: a perf profile of each setting's first round (0)
#   NAME        results/<date>-NAME (seq)
set -euo pipefail
# shellcheck source=host/common.sh
. "$(dirname "$0")/common.sh"

SEQ_KERNELS=${SEQ_KERNELS:-series=$BUILT_KERNEL}
FS=${FS:-exfat} CLUSTER=${CLUSTER:-4k} FILE_MB=${FILE_MB:-256}
BS=${BS:-64k} WRITERS=${WRITERS:-1 4} ROUNDS=${ROUNDS:-2} NAME=${NAME:-seq}
PROFILE=${PROFILE:-0}
[[ $NAME =~ ^[A-Za-z0-9._-]+$ ]] ||
	die "NAME may hold letters, digits, '.', '_' and '-' only, not '$NAME'"
# The device's sectors are no larger than the filesystem's blocks.
case "$FS" in
exfat) sector=4096 ;;
minix) sector=1024 ;;
*) die "FS: exfat or minix, not '$FS'" ;;
esac
[[ $FILE_MB =~ ^[1-9][0-9]*$ ]] || die "FILE_MB must be a whole number"
[[ $ROUNDS =~ ^[1-9][0-9]*$ ]] || die "ROUNDS must be a whole number"
for writers in $WRITERS; do
	[[ $writers =~ ^[1-9][0-9]*$ ]] || die "WRITERS: '$writers' is not a number of jobs"
done
results=$REPO_DIR/results/$(date +%F)-$NAME
[ ! -e "$results" ] || die "$results exists: pick another NAME"

# null_blk as the bench has it: memory-backed, completing in the
# submitting context; room for the files and the filesystem.
nullb_gb=$(((2 * FILE_MB + 1023) / 1024))
export GUEST_APPEND="${GUEST_APPEND:-} null_blk.nr_devices=1 \
null_blk.queue_mode=2 null_blk.memory_backed=1 null_blk.gb=$nullb_gb \
null_blk.bs=$sector null_blk.irqmode=0"
export GUEST_MEM=${GUEST_MEM:-$((nullb_gb + 3))G} GUEST_CLOCK=icount
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
CLUSTER=$CLUSTER
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
