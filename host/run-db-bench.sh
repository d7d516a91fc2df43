#!/usr/bin/env bash
# make bench-db: MariaDB (InnoDB on O_DIRECT, a buffer pool much smaller
# than its tables) driven by sysbench, on ext4 and XFS over null_blk, in
# guest time under QEMU icount, so in guest instructions per query, for
# each kernel named, one boot each (guest/bench/db-guest.sh), into
# results/<date>-NAME/ (host/report/db.py). The guest runs the host's own
# mariadbd and sysbench from the host's root, shared read-only over 9p.
#
# Settings (config/defaults.mk): DB_KERNELS (e.g. "stock=... series=lean"
# for a before/after table), FSES, TABLES, TABLE_ROWS, BUFFER_POOL,
# WORKLOADS, RUN_SECONDS, ROUNDS (runs per workload and setting), NAME.
set -euo pipefail
# shellcheck source=host/common.sh
. "$(dirname "$0")/common.sh"
# shellcheck source=host/settings.sh
. "$REPO_DIR/host/settings.sh"
db_settings
lock_cache "make bench-db"
[ -x /usr/sbin/mariadbd ] || die "no mariadbd on the host (host/install-deps.sh db)"
results=$REPO_DIR/results/$(date +%F)-$NAME

# null_blk as the bench has it: memory-backed, completing in the
# submitting context; a gigabyte holds the tables, the system tablespace
# and the redo log. One vCPU: under icount the guest clock then advances
# only with that vCPU's instructions and across its idle time, which
# /proc/stat counts and the report takes out.
export GUEST_APPEND="$GUEST_APPEND null_blk.nr_devices=1 \
null_blk.queue_mode=2 null_blk.memory_backed=1 null_blk.gb=1 \
null_blk.bs=4096 null_blk.irqmode=0"
export GUEST_CPUS=1 GUEST_MEM CLOCK
export GUEST_HOSTROOT=1
# A hang guard, not an estimate: 40 host minutes per filesystem for
# creating and filling the database, and per run 24 host seconds per guest
# second and two minutes more (a traced run's trace is read back under
# icount). Half of this stopped boots before their end on a host shared
# with two other guests and a kernel build.
runs=$(($(wc -w <<<"$WORKLOADS") * (2 * ROUNDS + 4)))
export BOOT_TIMEOUT=$((2 * $(wc -w <<<"$FSES") * (1200 + runs * (12 * RUN_SECONDS + 60))))

raw=$CACHE_DIR/db-runs
rm -rf "$raw"
mkdir -p "$raw"
for spec in $DB_KERNELS; do
	kernel_spec DB_KERNELS "$spec"
	share=$(bench_share "$raw" "$label")
	cat >"$share/db.conf" <<CONF
FSES="$FSES"
TABLES=$TABLES
TABLE_ROWS=$TABLE_ROWS
BUFFER_POOL=$BUFFER_POOL
WORKLOADS="$WORKLOADS"
RUN_SECONDS=$RUN_SECONDS
ROUNDS=$ROUNDS
CONF
	log "database bench: $label ($image)"
	boot_bench db "$label" "$image" "$share"
done

mkdir -p "$results"
python3 "$REPO_DIR/host/report/db.py" "$raw" "$results"
tar -C "$raw" -cJf "$results/raw.tar.xz" .
log "results: $results"
