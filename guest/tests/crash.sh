# shellcheck shell=sh
# Power cuts under fscrash (tools/fscrash.c), for t-45-crash.sh and longer
# runs: the loaded filesystem (tests/fs/NAME.sh, its first variant) is made
# on a dm-flakey device over the plug-in's own, and each cycle runs a
# workload that stops after a chosen op, has the device drop every write
# from then on (dmsetup suspend --nolockfs, reload, resume), goes on to its
# end (all of it lost, fsyncs included), and is unmounted, its writes
# dropped too. The device is then made again with writes passing and
# nothing of it cached, as after a reboot; the filesystem is repaired where
# it has no journal and mounted (a journal is replayed); fscrash check
# compares every file with what fsync, fdatasync, O_DSYNC and RWF_DSYNC
# had made durable, and finds none of the data written after the cut.
# Sourced after lib.sh.

# The device the filesystem is made on, over the plug-in's FS_DEV.
CRASH_DM=crash
# The expectation fscrash keeps, off the filesystem under test.
CRASH_STATE=/tmp/crash.state
CRASH_OUT=/tmp/crash.out
CRASH_REPAIR_OUT=/tmp/crash-repair.out
# At most 1 GiB of the plug-in's device: mkfs and fsck stay quick, and XFS
# has room.
CRASH_MAX_SECTORS=2097152
# A cycle's workload and its cut are bounded by this, in seconds.
CRASH_TIMEOUT=300
# Workload ops after the cut at most: they keep the kernel writing while
# nothing reaches the disk.
CRASH_AFTER=30

# crash_table up|drop: the dm-flakey table over CRASH_UNDER that passes
# every write (up all the time) or drops them all (down all the time,
# reads still served).
crash_table() {
	if [ "$1" = up ]; then
		echo "0 $CRASH_SECTORS flakey $CRASH_UNDER 0 1 0"
	else
		echo "0 $CRASH_SECTORS flakey $CRASH_UNDER 0 0 1 1 drop_writes"
	fi
}

# crash_cut_cmd: the command fscrash runs at the cut. --nolockfs: freezing
# the filesystem would write it out first, which is what must not happen.
crash_cut_cmd() {
	echo "dmsetup suspend --nolockfs $CRASH_DM &&" \
		"dmsetup reload $CRASH_DM --table '$(crash_table drop)' &&" \
		"dmsetup resume $CRASH_DM"
}

# crash_journalled: whether the loaded filesystem replays a journal at
# mount (ext4, XFS) rather than needing a repair after a crash: its
# plug-in's FS_CRASH does not say unordered.
crash_journalled() {
	case " $FS_CRASH " in
	*" unordered "*) return 1 ;;
	esac
}

# crash_fs_options: fscrash run's options for the loaded filesystem, from
# what its plug-in declares: direct I/O (-d) and FS_CRASH.
#  - ext4 and XFS: a file's fsync commits the journal, which holds the
#    file's creation too, so one more file is created after the setup and
#    only fsynced, and must exist (-n); the strict rules hold.
#  - exfat: its fsync writes all of the volume's metadata (sync_blockdev),
#    names included (-n). No journal, no order between data and metadata
#    (-u).
#  - ext2 and minix: fsync writes the file's data, its indirect blocks and
#    its inode, not its directory entry: the setup alone makes the names
#    durable. No journal, no order (-u). A truncate frees blocks at once,
#    which another file may get and write before the truncate is on disk;
#    after a cut both inodes claim the block. e2fsck gives each its own
#    copy, but fsck.minix takes it from the second inode it meets, which
#    may be the one whose data was durable: on minix the workload makes
#    each truncate down durable at once (-T).
# -u: a block linked to a file since a byte was made durable may hold
# anything after a cut where the byte was a hole, past the size, or freed
# by a truncate since (its data was not written first). A filesystem
# without holes (FS_CANNOT sparse: exfat) links blocks as a file grows
# and moves valid_size past zeros not yet written (-H).
crash_fs_options() {
	opts=
	# O_DIRECT writes where the plug-in declares direct I/O for this
	# kernel (stock 6.12's minix has none).
	case " $(fs_model_caps) " in
	*" dio "*) opts=-d ;;
	esac
	for word in $FS_CRASH; do
		case $word in
		names) opts="$opts -n" ;;
		unordered) opts="$opts -u" ;;
		sync-frees) opts="$opts -T" ;;
		esac
	done
	fs_can sparse || opts="$opts -H"
	echo "$opts"
}

# crash_repair: repair what the cut left with the plug-in's fs_repair,
# where the filesystem has no journal (ext2, minix, exfat), its output in
# CRASH_REPAIR_OUT; fails when errors are left. A repair is what such a filesystem needs after a crash
# (bitmaps and counts ahead of or behind the inodes): it is not a failure.
# ext4 and XFS replay their journal at mount and need none.
crash_repair() {
	fs_repair >$CRASH_REPAIR_OUT 2>&1
	rc=$?
	# The plug-in says which status means repaired (e2fsck and
	# fsck.exfat 1, fsck.minix 3).
	if [ $rc = 0 ]; then
		return 0
	elif [ "$rc" = "$FS_REPAIRED" ]; then
		echo "# $FS_TYPE repaired after the cut" \
			"($(grep -vc '^ *$' $CRASH_REPAIR_OUT) lines of output)"
	else
		return 1
	fi
}

# crash_open NAME: load filesystem NAME (its first variant), put the
# dm-flakey device over its device and make and mount the filesystem on
# it, with freed blocks holding stale data; says why and returns 1 when
# it cannot.
crash_open() {
	fs_open "$1" || return 1
	CRASH_UNDER=$FS_DEV
	CRASH_SECTORS=$(blockdev --getsz "$CRASH_UNDER")
	[ "$CRASH_SECTORS" -le $CRASH_MAX_SECTORS ] ||
		CRASH_SECTORS=$CRASH_MAX_SECTORS
	dmsetup remove $CRASH_DM 2>/dev/null
	if ! dm_create $CRASH_DM "$(crash_table up)"; then
		fail "$1 dm-flakey device" "could not map $CRASH_UNDER"
		fs_teardown
		return 1
	fi
	FS_DEV=/dev/mapper/$CRASH_DM
	CRASH_VARIANT=${FS_VARIANTS%% *}
	CRASH_LABEL=$(fs_label "$CRASH_VARIANT")
	if ! fs_mkfs_mount "$CRASH_LABEL" "$CRASH_VARIANT"; then
		crash_close
		return 1
	fi
	stale_blocks 1048576
}

# crash_close: unmount, remove the dm-flakey device and the plug-in's.
crash_close() {
	umount "$FS_MNT" 2>/dev/null
	dmsetup remove $CRASH_DM
	FS_DEV=$CRASH_UNDER
	fs_teardown
}

# crash_restart: the device made again with writes passing and nothing of
# it cached, as after a reboot.
crash_restart() {
	dmsetup remove $CRASH_DM &&
		dm_create $CRASH_DM "$(crash_table up)" &&
		echo 3 >/proc/sys/vm/drop_caches
}

# crash_cut_at SEED OPS: the op a cycle of OPS workload ops with SEED cuts
# after: past the first eighth of them, up to the last.
crash_cut_at() {
	eighth=$(($2 / 8))
	echo $((eighth + 1 + ($1 * 40503 + 12345) % ($2 - eighth)))
}

# crash_cycle NAME SEED CUT OPS [RUN OPTION...]: one cycle on the mounted
# filesystem, OPS workload ops with SEED in a directory of their own (at
# most CRASH_AFTER of them after the cut), cut after op CUT: fscrash
# check's output is left in CRASH_OUT and its exit status in crash_status.
# With CRASH_CORRUPT set, fscrash check -C too (one byte of the
# expectation corrupted), its output in CRASH_OUT.corrupt and its status
# in crash_corrupt_status. A journalled filesystem is then checked by fsck
# (a result of its own) after an unmount, and mounted again. Returns 1,
# with a failed result saying why, when the cycle could not get as far as
# the check (the workload failed) or the filesystem cannot be mounted
# after it.
crash_cycle() {
	name=$1 seed=$2 cut=$3 ops=$4
	shift 4
	[ "$ops" -le $((cut + CRASH_AFTER)) ] || ops=$((cut + CRASH_AFTER))
	dir=$FS_MNT/crash-$seed
	mkdir -p "$dir" && sync
	# shellcheck disable=SC2046 # the options are words
	timeout -s KILL $CRASH_TIMEOUT fscrash run -s "$seed" -N "$ops" \
		-P "$cut" -x "$(crash_cut_cmd)" -o $CRASH_STATE \
		$(crash_fs_options) "$@" "$dir" >$CRASH_OUT 2>&1
	run_status=$?
	# Unmounting writes the rest out: dropped.
	umount "$FS_MNT"
	if ! crash_restart; then
		fail "$name" "could not make the device again"
		return 1
	fi
	if ! out=$(crash_repair); then
		sed 's/^/# /' $CRASH_REPAIR_OUT
		fail "$name: repair after the cut" \
			"$(tail -n 1 $CRASH_REPAIR_OUT)"
		return 1
	fi
	[ -z "$out" ] || echo "$out"
	if ! mount -t "$FS_TYPE" "$FS_DEV" "$FS_MNT"; then
		fail "$name: mount after the cut" "could not mount $FS_DEV"
		return 1
	fi
	if [ $run_status != 0 ]; then
		out=$(tail -n 2 $CRASH_OUT)
		fail "$name" "fscrash run exited $run_status: $out"
		return 1
	fi
	fscrash check -S $CRASH_STATE "$dir" >$CRASH_OUT 2>&1
	crash_status=$?
	if [ -n "${CRASH_CORRUPT:-}" ]; then
		fscrash check -C -S $CRASH_STATE "$dir" >$CRASH_OUT.corrupt 2>&1
		crash_corrupt_status=$?
	fi
	crash_journalled || return 0
	umount "$FS_MNT"
	check "$name: fsck finds the journal replayed clean" fs_fsck
	if ! mount -t "$FS_TYPE" "$FS_DEV" "$FS_MNT"; then
		fail "$name: mount after fsck" "could not mount $FS_DEV"
		return 1
	fi
}

# crash_expect_ok NAME SEED CUT OPS [RUN OPTION...]: a cycle whose check
# must find everything as allowed; a failure shows the check's report and
# what the repair said. With CRASH_DEFECT set (a known defect of the
# filesystem, tests/lib.sh known_defect), the failure is a known one, and
# a pass fails: the defect is gone and its entry must go too.
crash_expect_ok() {
	crash_cycle "$@" || return 1
	if [ "$crash_status" = 0 ]; then
		if [ -n "${CRASH_DEFECT:-}" ]; then
			fail "$1" "passes: drop the known defect from FS_KNOWN_DEFECTS"
		else
			pass "$1"
		fi
		return
	fi
	sed 's/^/# /' $CRASH_OUT
	[ -s $CRASH_REPAIR_OUT ] &&
		head -n 40 $CRASH_REPAIR_OUT | sed 's/^/# repair: /'
	if [ -n "${CRASH_DEFECT:-}" ]; then
		known_failure "$1" "$CRASH_DEFECT"
	else
		fail "$1" "$(grep -m1 'VIOLATION\|fscrash:' $CRASH_OUT)"
	fi
}

# crash_caught NAME STATUS OUTPUT: pass when fscrash check, which exited
# with STATUS and wrote OUTPUT, reported violations, and show the first.
crash_caught() {
	n=$(grep -c VIOLATION "$3")
	grep -m2 VIOLATION "$3" | cut -c 1-300 | sed 's/^/# /'
	if [ "$2" = 1 ] && [ "$n" -gt 0 ]; then
		pass "$1"
	else
		fail "$1" "fscrash check exited $2 with $n violations"
	fi
}

# crash_script: the ops of a cycle that writes, with O_DSYNC and with
# RWF_DSYNC, O_DIRECT over blocks that a buffered write allocated and
# nothing synced yet: past the durable size (f0, f1) and in a hole (f2).
# The direct write alone must make its data durable, and the size and
# block map that reach it.
crash_script() {
	cat <<-EOF
		truncate f0 8192
		truncate f1 8192
		truncate f2 0
		truncate f2 65536
		fsync f0
		fsync f1
		fsync f2
		write f0 8192 8192 buffered
		write f0 8192 8192 direct-odsync
		write f1 8192 8192 buffered
		write f1 8192 8192 direct-rwf-dsync
		write f2 8192 8192 buffered
		write f2 8192 8192 direct-odsync
	EOF
}

# crash_fs NAME SEEDS OPS [LIE]: every cycle on filesystem NAME
# (crash_cycles), on a filesystem of its own, then fsck; a cycle that
# cannot finish ends them.
crash_fs() {
	crash_open "$1" || return
	fs_start=$(date +%s)
	if crash_cycles "$2" "$3" "$4"; then
		umount "$FS_MNT"
		check "$CRASH_LABEL fsck finds it clean after the cycles" \
			fs_fsck
	else
		skip "the remaining cycles on $CRASH_LABEL" \
			"a cycle could not finish"
	fi
	echo "# $CRASH_LABEL: the cycles took $(($(date +%s) - fs_start)) s"
	crash_close
}

# crash_cycles SEEDS OPS [LIE]: for each of SEEDS, OPS workload ops cut
# after an op the seed picks; a cut right after an fsync of every file with
# nothing after it, where everything must come back exactly, and the same
# files checked against its expectation with one byte corrupted, which
# must be reported; the ops of crash_script, cut after the last; with LIE,
# a workload that lies (records fsync, fdatasync, O_DSYNC and RWF_DSYNC
# that it leaves out), whose losses must be reported.
crash_cycles() {
	for seed in $1; do
		cut=$(crash_cut_at "$seed" "$2")
		crash_expect_ok \
			"$CRASH_LABEL seed $seed, cut after op $cut of $2" \
			"$seed" "$cut" "$2" || return 1
	done
	cut=$(($2 / 2))
	CRASH_CORRUPT=1
	crash_expect_ok "$CRASH_LABEL cut right after an fsync of every file" \
		1001 "$cut" "$cut" -f || return 1
	CRASH_CORRUPT=
	crash_caught "$CRASH_LABEL a corrupted expectation is reported" \
		"$crash_corrupt_status" $CRASH_OUT.corrupt
	crash_script >/tmp/crash.script
	n=$(wc -l </tmp/crash.script)
	name="$CRASH_LABEL O_DSYNC and RWF_DSYNC direct writes over blocks a \
buffered write allocated"
	case " $(fs_model_caps) " in
	*" dio "*)
		CRASH_DEFECT=$(known_defect dsync_direct_write)
		crash_expect_ok "$name" 1003 "$n" "$n" -p /tmp/crash.script ||
			return 1
		CRASH_DEFECT=
		;;
	*) skip "$name" "no direct I/O declared for $FS_TYPE here" ;;
	esac
	[ -n "$3" ] || return 0
	crash_cycle "$CRASH_LABEL lying workload" 1002 "$cut" "$2" -f -L ||
		return 1
	crash_caught "$CRASH_LABEL a workload that skips its syncs is caught" \
		"$crash_status" $CRASH_OUT
}
