#!/usr/bin/env bash
# make soak: the model tester, fsmodel, for many operations over many
# seeds on every filesystem, one boot per kernel named (guest/tests/soak.sh),
# into results/<date>-NAME/: each kernel's runs (runs.tsv), failures with
# their logs and shrunk sequences, its kernel log, and a README with the
# table (host/report/soak.py).
#
# Settings (environment or make variables):
#   SOAK_KERNELS "LABEL=BZIMAGE:OPS ..." (default: series=the lean kernel
#                with 1000000 operations per filesystem, debug=the debug
#                kernel with 100000); e.g. add stock=...:1000000 for stock
#                6.12 on the same seeds
#   FILESYSTEMS  every filesystem with a guest/tests/fs plug-in
#   RUNS         runs per filesystem, each on its own seeds: 20
#   INSTANCES    fsmodel instances at once in a run: 2
#   FIRST_SEED   the first seed: 1
#   NAME         results/<date>-NAME (soak)
set -euo pipefail
# shellcheck source=host/common.sh
. "$(dirname "$0")/common.sh"

SOAK_KERNELS=${SOAK_KERNELS:-series=$BUILT_KERNEL:1000000 debug=$DEBUG_KERNEL:100000}
plugins=("$REPO_DIR"/guest/tests/fs/*.sh)
plugins=("${plugins[@]##*/}")
FILESYSTEMS=${FILESYSTEMS:-${plugins[*]%.sh}}
RUNS=${RUNS:-20} INSTANCES=${INSTANCES:-2} FIRST_SEED=${FIRST_SEED:-1}
NAME=${NAME:-soak}
[[ $NAME =~ ^[A-Za-z0-9._-]+$ ]] ||
	die "NAME may hold letters, digits, '.', '_' and '-' only, not '$NAME'"
for n in "$RUNS" "$INSTANCES" "$FIRST_SEED"; do
	[[ $n =~ ^[1-9][0-9]*$ ]] || die "RUNS, INSTANCES, FIRST_SEED: '$n' is not a number"
done
for fs in $FILESYSTEMS; do
	[ -f "$REPO_DIR/guest/tests/fs/$fs.sh" ] ||
		die "FILESYSTEMS: no guest/tests/fs/$fs.sh"
done
results=$REPO_DIR/results/$(date +%F)-$NAME
[ ! -e "$results" ] || die "$results exists: pick another NAME"

raw=$CACHE_DIR/soak-runs
rm -rf "$raw"
mkdir -p "$raw"
for spec in $SOAK_KERNELS; do
	label=${spec%%=*} rest=${spec#*=}
	image=${rest%:*} ops=${rest##*:}
	if ! [[ $label =~ ^[A-Za-z0-9._-]+$ ]] || [ "$rest" = "$spec" ] ||
		! [[ $ops =~ ^[1-9][0-9]*$ ]]; then
		die "SOAK_KERNELS: '$spec' is not LABEL=BZIMAGE:OPS"
	fi
	[ -f "$image" ] || die "SOAK_KERNELS: $image not found"
	share=$(bench_share "$raw" "$label")
	cat >"$share/soak.conf" <<CONF
FILESYSTEMS="$FILESYSTEMS"
OPS=$ops
RUNS=$RUNS
INSTANCES=$INSTANCES
FIRST_SEED=$FIRST_SEED
CONF
	log "soak: $label ($image), $ops operations per filesystem"
	start=$(date +%s)
	# Allow 100 operations a second: t-40 on the debug kernel under TCG
	# ran 30,000 in 279 s with the boot, mkfs and fsck (the lean kernel
	# is faster).
	KERNEL_IMAGE=$image GUEST_SHARE=$share \
		BOOT_TIMEOUT=$((1200 + ops * $(wc -w <<<"$FILESYSTEMS") / 100)) \
		"$REPO_DIR/host/boot.sh" soak "soak-$label" >/dev/null ||
		die "the guest did not finish; console log: $LOG_DIR/soak-$label.log"
	[ -f "$share/kernel.txt" ] ||
		die "the guest wrote nothing; console log: $LOG_DIR/soak-$label.log"
	{
		boot_meta "$image" "soak-$label"
		echo "ops=$ops"
		echo "boot_seconds=$(($(date +%s) - start))"
	} >"$share/host-meta.txt"
done

mkdir -p "$results"
cp -r "$raw"/* "$results/"
python3 "$REPO_DIR/host/report/soak.py" "$results" \
	"$(git -C "$REPO_DIR" rev-parse --short HEAD)" "make soak NAME=$NAME"
log "results: $results"
