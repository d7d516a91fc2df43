# shellcheck shell=sh
# make soak, inside the guest (iomap.run=soak): the model tester, fsmodel,
# over many seeds on every filesystem soak.conf names, with what its
# plug-in declares (fs_model_caps) and its files up to FS_MODEL_SIZE now
# and then. For each, OPS operations in all, in RUNS runs of INSTANCES
# instances at once on one fresh filesystem (seeds FIRST_SEED on, one per
# instance and run), simple_read 1 and 0 in turn, an unmount and mount
# after every quarter of a run. A failing instance's log is kept in the
# share and shrunk (fsmodel -S). A run fails when fsmodel fails or when
# the kernel logged a report during it (tests/lib.sh kernel_reports:
# warnings, oopses, lockdep, KASAN, direct I/O colliding with the page
# cache). Writes runs.tsv (one line a run), failures/ (each with the
# command lines that replay it) and dmesg.txt, the whole kernel log run by
# run, to the host's share.
cd /tests || exit 1
# shellcheck source=guest/tests/lib.sh
. ./lib.sh
# shellcheck source=guest/lib/share.sh
. /lib/iomap/share.sh
# shellcheck source=guest/tests/crash.sh
. ./crash.sh
share_open soak soak.conf FILESYSTEMS OPS RUNS INSTANCES FIRST_SEED \
	CRASH_CYCLES CRASH_OPS || exit 1

per_instance=$((OPS / RUNS / INSTANCES))
printf 'fs\trun\tseed\tsimple_read\tops\tseconds\tresult\n' >$OUT/runs.tsv
mkdir -p $OUT/failures
# The kernel log so far (the boot), then each run's, as it is taken.
dmesg -c >$OUT/dmesg.txt

# soak_run SEED OPTION...: one run of fsmodel as the soak makes it, on the
# loaded filesystem, with more options (keep_failure's report spells the
# same command out).
soak_run() {
	run_seed=$1
	shift
	fsmodel -q -D -F "$(fs_model_caps)" -n "$INSTANCES" -s "$run_seed" \
		-N $per_instance -X "$FS_MODEL_SIZE" -r $((per_instance / 4)) \
		-c 1000 -R "$(fs_remount_cmd)" "$@" "$FS_MNT"
}

# soak_fs NAME: every run on filesystem NAME (tests/fs/NAME.sh, its first
# variant), one line each in runs.tsv.
soak_fs() {
	why=
	if ! fs_open "$1"; then
		printf '%s\t-\t-\t-\t0\t0\tskipped: %s\n' "$1" \
			"${why:-no device}" >>$OUT/runs.tsv
		return
	fi
	v=${FS_VARIANTS%% *}
	fs_mkfs_mount "$1" "$v" || return
	run=0
	while [ $run -lt "$RUNS" ]; do
		seed=$((FIRST_SEED + run * INSTANCES))
		sr=-
		if have_simple_read; then
			sr=$(((run + 1) % 2))
			echo $sr >$SIMPLE_READ
		fi
		log=/tmp/soak-$1-$seed.log
		start=$(date +%s)
		if soak_run $seed -o "$log" >/tmp/soak.out 2>&1; then
			result=ok
		else
			result=FAIL
		fi
		secs=$(($(date +%s) - start))
		take_kernel_log "$1 run $run seed $seed simple_read=$sr"
		if [ -s $KERNEL_REPORTS ]; then
			result="FAIL (kernel: $(head -n 1 $KERNEL_REPORTS))"
			cat $KERNEL_REPORTS >>/tmp/soak.out
		fi
		[ "$result" = ok ] || keep_failure "$1" $seed
		printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$1" $run $seed $sr \
			$((per_instance * INSTANCES)) $secs "$result" >>$OUT/runs.tsv
		echo "[soak] $1 run $run seed $seed simple_read=$sr: $result in $secs s"
		rm -f "$log"*
		run=$((run + 1))
	done
	have_simple_read && echo 1 >$SIMPLE_READ
	umount "$FS_MNT"
	fs_fsck >/tmp/soak-fsck.out 2>&1 ||
		cp /tmp/soak-fsck.out "$OUT/failures/$1-fsck.txt"
	fs_teardown
}

# keep_failure FS SEED: the report and each instance's log of a failed
# run into failures/FS-SEED/, with the command lines that replay it in the
# guest (make shell) on a fresh filesystem of the same kind, and a shrunk
# log of each instance that still fails alone on replay.
keep_failure() {
	dir=$OUT/failures/$1-$2
	mkdir -p "$dir"
	{
		echo "# $1 ($FS_TYPE, $(fs_label "$v")), simple_read=$sr, on a fresh filesystem mounted on $FS_MNT:"
		echo "# the whole run, as the soak ran it:"
		echo "fsmodel -q -D -F '$(fs_model_caps)' -n $INSTANCES -s $2 -N $per_instance -X $FS_MODEL_SIZE -r $((per_instance / 4)) -c 1000 -R '$(fs_remount_cmd)' $FS_MNT"
		echo "# one instance's log (LOG: a soak-*.log.N file beside this one):"
		echo "fsmodel -R '$(fs_remount_cmd)' -p LOG $FS_MNT"
		echo
		cat /tmp/soak.out
	} >"$dir/report.txt"
	for f in "$log".*; do
		[ -e "$f" ] || continue
		cp "$f" "$dir/"
		fsmodel -R "$(fs_remount_cmd)" -S "$f" \
			-o "$dir/$(basename "$f").shrunk" "$FS_MNT" \
			>"$dir/$(basename "$f").shrink.txt" 2>&1
	done
}

# soak_crash NAME: CRASH_CYCLES power cuts on filesystem NAME (crash.sh's
# crash_fs, with a workload that lies about its syncs caught too), their
# results in crash-NAME.txt and one line in crash.tsv: the cycles' checks
# passed, failed and known to fail (a defect its plug-in names).
soak_crash() {
	[ "$CRASH_CYCLES" -gt 0 ] || return 0
	seeds=$(seq "$FIRST_SEED" $((FIRST_SEED + CRASH_CYCLES - 1)) | tr '\n' ' ')
	start=$(date +%s)
	# shellcheck disable=SC2153 # CRASH_OPS comes from soak.conf
	(crash_fs "$1" "$seeds" "$CRASH_OPS" 1) >"$OUT/crash-$1.txt" 2>&1
	secs=$(($(date +%s) - start))
	take_kernel_log "$1 power cuts"
	passed=$(grep -c '^ok [0-9]* [^#]*$' "$OUT/crash-$1.txt")
	failed=$(grep '^not ok ' "$OUT/crash-$1.txt" | grep -vc '# TODO')
	known=$(grep '^not ok ' "$OUT/crash-$1.txt" | grep -c '# TODO')
	[ ! -s $KERNEL_REPORTS ] || failed=$((failed + 1))
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$1" "$seeds" "$CRASH_OPS" \
		"$passed" "$failed" "$known" $secs >>$OUT/crash.tsv
	echo "[soak] $1 power cuts: $passed passed, $failed failed, $known known in $secs s"
}

printf 'fs\tseeds\tops\tpassed\tfailed\tknown\tseconds\n' >$OUT/crash.tsv
for fs in $FILESYSTEMS; do
	soak_fs "$fs"
	soak_crash "$fs"
done

take_kernel_log "the end"
kernel_reports <$OUT/dmesg.txt >$OUT/splats.txt
uname -r >$OUT/kernel.txt
echo "[soak] done"
