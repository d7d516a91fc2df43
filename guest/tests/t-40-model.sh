# shellcheck shell=sh
# The model tester, fsmodel (tools/fsmodel.c), on every filesystem
# tests/fs/*.sh describes (each one's first variant), with what its plug-in
# declares it can do (FS_MODEL_CAPS, fsmodel -F), first checked against
# what fsmodel -P finds. Fixed-seed runs of random operations by two
# instances at once, each on two files checked against an in-memory model
# (buffered, O_DIRECT, misaligned O_DIRECT, vectored, io_uring (also from
# a registered buffer), libaio, RWF_NOWAIT, RWF_DSYNC, O_DSYNC, O_APPEND
# and mapped reads and writes; a mapping kept across truncates up and
# down, and where declared stores past EOF into its last page before the
# file grows; every declared fallocate mode; copy_file_range;
# SEEK_HOLE/SEEK_DATA and FIEMAP against the model's data; fsync,
# fdatasync and msync; reopening with the caches dropped; and an unmount
# and mount with the whole files compared), most of them within 256 KiB,
# one offset in 64 up to 64 MiB
# (FS_MODEL_SIZE), once with simple_read at 1 and once at 0, then fsck.
# Each run fails if a declared operation fails in any way or never ran.
# A run with one byte of its model corrupted on purpose must report the
# mismatch, and a run under tools/nodirect.so, where every O_DIRECT open
# fails, must report the unexpected error: so the runs can fail, and cannot
# quietly test less. A failing run's report and log stay on the console:
# the log replays the run (fsmodel -p) and shrinks to a short sequence
# that fails the same way (fsmodel -S).
# time-limit: 2400
# shellcheck source=guest/tests/lib.sh
. ./lib.sh

FILESYSTEMS=$(filesystems)
# Operations per instance and run: both whole files are compared every 250
# of them, and after the unmount and mount at every third of the run.
MODEL_OPS=1500
MODEL_SEED=4011

# model_run LABEL OPTION...: run fsmodel on FS_MNT with the declared
# capabilities and the options (and unmount and mount as the remount
# command); pass when it finds nothing, else fail with its report on the
# console.
model_run() {
	label=$1
	shift
	log=/tmp/model.log
	if fsmodel -q -D -F "$caps" -R "$(fs_remount_cmd)" -o $log "$@" \
		"$FS_MNT" >/tmp/model.out 2>&1; then
		pass "$label"
		echo "# $(tail -n 1 /tmp/model.out)"
	else
		cat /tmp/model.out
		for f in "$log"*; do
			echo "--- $f (last 20 lines)"
			tail -n 20 "$f"
		done
		fail "$label" "$(grep -m1 -i 'mismatch\|error\|unexpected\|coverage' /tmp/model.out)"
	fi
	rm -f $log* /tmp/model.out
}

unmount_test_dev
for fsname in $FILESYSTEMS; do
	fs_open "$fsname" || continue
	v=${FS_VARIANTS%% *}
	L=$(fs_label "$v")
	if [ -z "${FS_MODEL_CAPS+set}" ]; then
		fail "$L model" "tests/fs/$fsname.sh declares no FS_MODEL_CAPS"
		fs_teardown
		continue
	fi
	caps=$(fs_model_caps)
	if fs_mkfs_mount "$L" "$v"; then
		# The declaration is what fsmodel -P finds, no more, no less.
		if fsmodel -P -F "$caps" "$FS_MNT" >/tmp/model.out 2>&1; then
			pass "$L capabilities as declared: $caps"
		else
			cat /tmp/model.out
			fail "$L capabilities as declared: $caps" \
				"$(grep -m1 'found:' /tmp/model.out)"
		fi

		settings=-
		have_simple_read && settings="1 0"
		for s in $settings; do
			[ "$s" = - ] || echo "$s" >$SIMPLE_READ
			model_run "$L model, 2 instances, seed $MODEL_SEED, simple_read=$s" \
				-n 2 -s $MODEL_SEED -N $MODEL_OPS -X "$FS_MODEL_SIZE" \
				-r $((MODEL_OPS / 3)) -c 250
		done
		[ "$settings" = - ] || echo 1 >$SIMPLE_READ

		# A byte of the model corrupted after operation 100 is reported:
		# exit status 1 and a data mismatch.
		fsmodel -q -F "$caps" -s $MODEL_SEED -N 300 -C 100 "$FS_MNT" \
			>/tmp/model.out 2>&1
		check_eq "$L a corrupted model is reported" \
			"$? $(grep -c 'data mismatch' /tmp/model.out)" "1 1"

		# With dio declared and every O_DIRECT open failing, fsmodel
		# stops with an unexpected error instead of going on without.
		case " $caps " in
		*" dio "*)
			LD_PRELOAD=/tools/bin/nodirect.so fsmodel -q -F "$caps" \
				-s $MODEL_SEED -N 300 "$FS_MNT" >/tmp/model.out 2>&1
			check_eq "$L a lost O_DIRECT is reported" \
				"$? $(grep -c 'O_DIRECT: unexpected error' /tmp/model.out)" \
				"1 1"
			;;
		esac
		rm -f /tmp/model.out "$FS_MNT"/fsm.*
		umount "$FS_MNT"
		check "$L fsck after the model runs" fs_fsck
	fi
	fs_teardown
done
