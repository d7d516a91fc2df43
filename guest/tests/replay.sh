# shellcheck shell=sh
# make replay, inside the guest (iomap.run=replay): each fsmodel log in the
# share's logs/ run again (fsmodel -p) on a fresh filesystem of the kind
# replay.conf names, once for each simple_read value it lists. Writes
# results.tsv (a line per log and setting), each failing replay's report
# in failures/, and the whole kernel log, log by log, to the share.
cd /tests || exit 1
# shellcheck source=guest/tests/lib.sh
. ./lib.sh
# shellcheck source=guest/lib/share.sh
. /lib/iomap/share.sh
share_open replay replay.conf FS SIMPLE_READS || exit 1

printf 'log\tsimple_read\tresult\n' >$OUT/results.tsv
mkdir -p $OUT/failures
dmesg -c >$OUT/dmesg.txt
have_simple_read || SIMPLE_READS=-

fs_open "$FS" || exit 1
v=${FS_VARIANTS%% *}
for log in "$OUT"/logs/*; do
	name=$(basename "$log")
	for sr in $SIMPLE_READS; do
		[ "$sr" = - ] || echo "$sr" >$SIMPLE_READ
		fs_mkfs_mount "$FS" "$v" || exit 1
		# A log that names no capabilities takes the plug-in's.
		caps=
		head -n 1 "$log" | grep -q ' caps:' || caps=$(fs_model_caps)
		if fsmodel -R "$(fs_remount_cmd)" ${caps:+-F "$caps"} \
			-p "$log" "$FS_MNT" >/tmp/replay.out 2>&1; then
			result=passed
		else
			result="FAIL: $(grep -m1 'mismatch\|unexpected' /tmp/replay.out)"
			cp /tmp/replay.out "$OUT/failures/$name.simple_read-$sr.txt"
		fi
		umount "$FS_MNT"
		fs_fsck >/tmp/replay-fsck.out 2>&1 || {
			result="$result; fsck failed"
			cp /tmp/replay-fsck.out "$OUT/failures/$name.simple_read-$sr.fsck.txt"
		}
		take_kernel_log "$name simple_read=$sr"
		[ -s $KERNEL_REPORTS ] &&
			result="$result; kernel: $(head -n 1 $KERNEL_REPORTS)"
		printf '%s\t%s\t%s\n' "$name" "$sr" "$result" >>$OUT/results.tsv
		echo "[replay] $name simple_read=$sr: $result"
	done
done
[ "$SIMPLE_READS" = - ] || echo 1 >$SIMPLE_READ
fs_teardown

kernel_reports <$OUT/dmesg.txt >$OUT/splats.txt
uname -r >$OUT/kernel.txt
echo "[replay] done"
