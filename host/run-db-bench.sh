#!/usr/bin/env bash
# make bench-db: MariaDB (InnoDB on O_DIRECT, a buffer pool much smaller
# than its tables) driven by sysbench, on ext4 and XFS over null_blk, in
# guest time under QEMU icount, so in guest instructions per query, for
# each kernel named, one boot each (guest/bench/db-guest.sh), into
# results/<date>-NAME/ (host/report/db.py). The guest runs the host's own
# mariadbd and sysbench from the host's root, shared read-only over 9p.
#
# Settings (environment or make variables):
#   DB_KERNELS  "LABEL=BZIMAGE ..." (default: series=the built kernel);
#               e.g. "stock=... series=..." for a before/after table
#   FSES        filesystems, each a guest/tests/fs/ plug-in: "ext4 xfs"
#   TABLES      sysbench tables: 4
#   TABLE_ROWS  rows per table: 50000 (about 12 MiB of InnoDB data each)
#   BUFFER_POOL innodb_buffer_pool_size: 8M, a sixth of the tables
#   WORKLOADS   sysbench tests: "oltp_point_select oltp_read_only"
#   RUN_SECONDS guest seconds per run (10^9 instructions each): 5
#   ROUNDS      runs per workload and setting: 3
#   NAME        results/<date>-NAME (db)
set -euo pipefail
# shellcheck source=host/common.sh
. "$(dirname "$0")/common.sh"

DB_KERNELS=${DB_KERNELS:-series=$BUILT_KERNEL}
FSES=${FSES:-ext4 xfs} TABLES=${TABLES:-4} TABLE_ROWS=${TABLE_ROWS:-50000}
BUFFER_POOL=${BUFFER_POOL:-8M} RUN_SECONDS=${RUN_SECONDS:-5}
WORKLOADS=${WORKLOADS:-oltp_point_select oltp_read_only}
ROUNDS=${ROUNDS:-3} NAME=${NAME:-db}
[[ $NAME =~ ^[A-Za-z0-9._-]+$ ]] ||
	die "NAME may hold letters, digits, '.', '_' and '-' only, not '$NAME'"
for fs in $FSES; do
	[ -f "$REPO_DIR/guest/tests/fs/$fs.sh" ] ||
		die "FSES: no guest/tests/fs/$fs.sh"
done
for number in TABLES TABLE_ROWS RUN_SECONDS ROUNDS; do
	[[ ${!number} =~ ^[1-9][0-9]*$ ]] || die "$number must be a whole number"
done
[[ $BUFFER_POOL =~ ^[1-9][0-9]*[KMG]$ ]] ||
	die "BUFFER_POOL: a size such as 16M, not '$BUFFER_POOL'"
for workload in $WORKLOADS; do
	[ -f "/usr/share/sysbench/$workload.lua" ] ||
		die "WORKLOADS: sysbench has no $workload (host/install-deps.sh db)"
done
[ -x /usr/sbin/mariadbd ] || die "no mariadbd on the host (host/install-deps.sh db)"
results=$REPO_DIR/results/$(date +%F)-$NAME
[ ! -e "$results" ] || die "$results exists: pick another NAME"

# null_blk as the bench has it: memory-backed, completing in the
# submitting context; a gigabyte holds the tables, the system tablespace
# and the redo log. One vCPU: under icount the guest clock then advances
# only with that vCPU's instructions and across its idle time, which
# /proc/stat counts and the report takes out.
export GUEST_APPEND="${GUEST_APPEND:-} null_blk.nr_devices=1 \
null_blk.queue_mode=2 null_blk.memory_backed=1 null_blk.gb=1 \
null_blk.bs=4096 null_blk.irqmode=0"
export GUEST_CPUS=1 GUEST_MEM=${GUEST_MEM:-4G} GUEST_CLOCK=icount
export GUEST_HOSTROOT=1
# A hang guard, not an estimate: 20 host minutes per filesystem for
# creating and filling the database, and per run 12 host seconds per guest
# second and a minute more (a traced run's trace is read back under
# icount), which a host shared with two other guests and a kernel build
# needed.
runs=$(($(wc -w <<<"$WORKLOADS") * (2 * ROUNDS + 4)))
export BOOT_TIMEOUT=$(($(wc -w <<<"$FSES") * (1200 + runs * (12 * RUN_SECONDS + 60))))

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
