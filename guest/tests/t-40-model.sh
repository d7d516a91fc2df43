# shellcheck shell=sh
# The model tester, fsmodel (tools/fsmodel.c), on every filesystem
# tests/fs/*.sh describes (each one's first variant): fixed-seed runs of
# random operations by two instances at once, each on two files checked
# against an in-memory model (buffered, O_DIRECT, misaligned O_DIRECT,
# vectored, io_uring and mapped reads and writes; a mapping kept across
# truncates up and down; every fallocate mode the filesystem has;
# copy_file_range; fsync, fdatasync and msync; reopening with the caches
# dropped; and an unmount and mount with the whole files compared), once
# with simple_read at 1 and once at 0, then fsck. A run with one byte of
# its model corrupted on purpose must report the mismatch, so the runs can
# fail. A failing run's report and log stay on the console: the log
# replays the run (fsmodel -p) and shrinks to a short failing sequence
# (fsmodel -S).
# time-limit: 2400
# shellcheck source=guest/tests/lib.sh
. ./lib.sh

FILESYSTEMS=$(filesystems)
# Operations per instance and run: both whole files are compared every 250
# of them, and after the unmount and mount at every third of the run.
MODEL_OPS=1500
MODEL_SEED=4011

# model_run LABEL OPTION...: run fsmodel on FS_MNT with the options (and
# unmount and mount as the remount command); pass when it finds nothing,
# else fail with its report on the console.
model_run() {
	label=$1
	shift
	log=/tmp/model.log
	if fsmodel -q -D -R "$(fs_remount_cmd)" -o $log "$@" "$FS_MNT" \
		>/tmp/model.out 2>&1; then
		pass "$label"
	else
		cat /tmp/model.out
		for f in "$log"*; do
			echo "--- $f (last 20 lines)"
			tail -n 20 "$f"
		done
		fail "$label" "$(grep -m1 -i 'mismatch\|error\|unexpected' /tmp/model.out)"
	fi
	rm -f $log* /tmp/model.out
}

unmount_test_dev
for fsname in $FILESYSTEMS; do
	fs_open "$fsname" || continue
	v=${FS_VARIANTS%% *}
	L=$(fs_label "$v")
	if fs_mkfs_mount "$L" "$v"; then
		settings=-
		have_simple_read && settings="1 0"
		for s in $settings; do
			[ "$s" = - ] || echo "$s" >$SIMPLE_READ
			model_run "$L model, 2 instances, seed $MODEL_SEED, simple_read=$s" \
				-n 2 -s $MODEL_SEED -N $MODEL_OPS \
				-r $((MODEL_OPS / 3)) -c 250
		done
		[ "$settings" = - ] || echo 1 >$SIMPLE_READ

		# A byte of the model corrupted after operation 100 is reported:
		# exit status 1 and a data mismatch.
		fsmodel -q -s $MODEL_SEED -N 300 -C 100 "$FS_MNT" >/tmp/model.out 2>&1
		check_eq "$L a corrupted model is reported" \
			"$? $(grep -c 'data mismatch' /tmp/model.out)" "1 1"
		rm -f /tmp/model.out
		umount "$FS_MNT"
		check "$L fsck after the model runs" fs_fsck
	fi
	fs_teardown
done
