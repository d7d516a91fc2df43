#!/usr/bin/env bash
# make replay: fsmodel logs (a soak's shrunk failing sequences, say) run
# again, each on a fresh filesystem, on each kernel named, with each value
# of simple_read asked for (guest/tests/replay.sh), into
# results/<date>-NAME/: per kernel, results.tsv (a line per log and
# setting: passed or the failure fsmodel reported) with each failing
# replay's report, the whole kernel log, and a README with the table.
#
# Settings (config/defaults.mk): REPLAY_LOGS, REPLAY_FS, REPLAY_KERNELS,
# REPLAY_SIMPLE_READ, NAME.
set -euo pipefail
# shellcheck source=host/common.sh
. "$(dirname "$0")/common.sh"
# shellcheck source=host/settings.sh
. "$REPO_DIR/host/settings.sh"
replay_settings
lock_cache "make replay"
results=$REPO_DIR/results/$(date +%F)-$NAME
commit=$(git -C "$REPO_DIR" rev-parse --short HEAD)

raw=$CACHE_DIR/replay-runs
rm -rf "$raw"
mkdir -p "$raw"
for spec in $REPLAY_KERNELS; do
	kernel_spec REPLAY_KERNELS "$spec"
	share=$(bench_share "$raw" "$label")
	mkdir -p "$share/logs"
	# Each log under a name that says where it came from.
	while IFS= read -r path; do
		name=$(realpath --relative-to="$REPO_DIR" "$path")
		cp "$path" "$share/logs/${name//\//_}"
	done < <(replay_logs)
	cat >"$share/replay.conf" <<CONF
FS=$REPLAY_FS
SIMPLE_READS="$REPLAY_SIMPLE_READ"
CONF
	log "replay: $label ($image), $(find "$share/logs" -type f | wc -l) logs on $REPLAY_FS"
	KERNEL_IMAGE=$image GUEST_SHARE=$share \
		"$REPO_DIR/host/boot.sh" replay "replay-$label" >/dev/null ||
		die "the guest did not finish; console log: $LOG_DIR/replay-$label.log"
	[ -f "$share/kernel.txt" ] ||
		die "the guest wrote nothing; console log: $LOG_DIR/replay-$label.log"
	rm -r "$share/logs"
	boot_meta "$image" "replay-$label" >"$share/host-meta.txt"
done

mkdir -p "$results"
cp -r "$raw"/* "$results/"
{
	echo "# fsmodel logs replayed on $REPLAY_FS"
	echo
	echo "\`make replay NAME=$NAME REPLAY_FS=$REPLAY_FS REPLAY_KERNELS=\"$REPLAY_KERNELS\" REPLAY_LOGS=\"$REPLAY_LOGS\"\`"
	echo "at commit $commit: each log on a"
	echo "fresh filesystem (guest/tests/replay.sh), \`fsmodel -p\`."
	while read -r label; do
		echo
		echo "## $label: $(cat "$results/$label/kernel.txt")"
		echo
		sed -n 's/^bzimage_sha256=/bzImage sha256 /p' "$results/$label/host-meta.txt"
		echo
		echo "| log | simple_read | result |"
		echo "| --- | --- | --- |"
		awk -F'\t' 'NR > 1 { printf "| %s | %s | %s |\n", $1, $2, $3 }' \
			"$results/$label/results.tsv"
		echo
		echo "Kernel log reports: $(wc -l <"$results/$label/splats.txt")."
	done <"$results/order"
} >"$results/README.md"
log "results: $results"
