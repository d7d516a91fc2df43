#!/usr/bin/env bash
# make soak: the model tester, fsmodel, for many operations over many
# seeds on every filesystem, one boot per kernel named (guest/tests/soak.sh),
# into results/<date>-NAME/: each kernel's runs (runs.tsv), failures with
# their logs and shrunk sequences, its kernel log, and a README with the
# table (host/report/soak.py).
#
# Settings (config/defaults.mk): SOAK_KERNELS (LABEL=BZIMAGE:OPS items;
# e.g. add stock=...:1000000 for stock 6.12 on the same seeds),
# FILESYSTEMS, RUNS, INSTANCES, FIRST_SEED, CRASH_CYCLES, CRASH_OPS, NAME.
set -euo pipefail
# shellcheck source=host/common.sh
. "$(dirname "$0")/common.sh"
# shellcheck source=host/settings.sh
. "$REPO_DIR/host/settings.sh"
soak_settings
lock_cache "make soak"
results=$REPO_DIR/results/$(date +%F)-$NAME

raw=$CACHE_DIR/soak-runs
rm -rf "$raw"
mkdir -p "$raw"
for spec in $SOAK_KERNELS; do
	kernel_spec SOAK_KERNELS "${spec%:*}"
	ops=${spec##*:}
	share=$(bench_share "$raw" "$label")
	cat >"$share/soak.conf" <<CONF
FILESYSTEMS="$FILESYSTEMS"
OPS=$ops
RUNS=$RUNS
INSTANCES=$INSTANCES
FIRST_SEED=$FIRST_SEED
CRASH_CYCLES=$CRASH_CYCLES
CRASH_OPS=$CRASH_OPS
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
