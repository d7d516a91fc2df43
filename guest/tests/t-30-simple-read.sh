# shellcheck shell=sh
# The simple direct-I/O read path: the /sys/kernel/iomap/simple_read switch,
# when the path is taken and when not (counted with the iomap_dio_simple_read
# trace point), data through every engine with the path on and off, I/O
# errors, bio allocation failures, and concurrent I/O and switching on the
# same file.
# shellcheck source=guest/tests/lib.sh
. ./lib.sh

SEED=0x51e0
SIMPLE=/sys/kernel/iomap/simple_read
ENGINES="psync libaio io_uring io_uring_poll"

# The second NVMe disk carries the dm-dust device of the error tests.
DUST_DISK=/dev/nvme1n1

# --- the switch ---
check_eq "simple_read defaults to 1" "$(cat $SIMPLE 2>&1)" 1
for bad in 2 -1 abc 10 ""; do
	if echo "$bad" 2>/dev/null >$SIMPLE; then
		fail "simple_read rejects '$bad'" "the write succeeded"
	else
		pass "simple_read rejects '$bad'"
	fi
	check_eq "simple_read unchanged after '$bad'" "$(cat $SIMPLE)" 1
done
echo 0 >$SIMPLE
check_eq "simple_read set to 0" "$(cat $SIMPLE)" 0
echo 2 2>/dev/null >$SIMPLE
check_eq "simple_read stays 0 after '2'" "$(cat $SIMPLE)" 0
echo 1 >$SIMPLE
check_eq "simple_read set to 1" "$(cat $SIMPLE)" 1

if ! simple_read_events 1; then
	fail "iomap_dio_simple_read trace point" "cannot enable it"
fi

# --- path taken or not, with the data checked every time ---
for fs in ext4 xfs; do
	mnt=/mnt/$fs
	mkfs_mount $fs $mnt || continue
	f=$mnt/data
	check "$fs fill" dio-check fill $f 0 1048576 $SEED
	check "$fs sparse fill" dio-check fill $mnt/sparse 1048576 4096 $SEED
	check "$fs fallocate" xfs_io -f -c "falloc 0 65536" $mnt/prealloc
	check "$fs eof fill" dio-check fill $mnt/tail 0 5000 $SEED
	drop_caches

	for s in 1 0; do
		echo $s >$SIMPLE
		on="$fs simple_read=$s"
		for e in $ENGINES; do
			hits "$on $e 4k reads" "$(expect_hits 8)" \
				dio-check read $f 8192 4096 "$e" pattern:$SEED 8
			hits "$on $e 512b reads" "$(expect_hits 8)" \
				dio-check read $f 66048 512 "$e" pattern:$SEED 8
			hits "$on $e hole reads zero" "$(expect_hits 4)" \
				dio-check read $mnt/sparse 65536 4096 "$e" zero 4
			hits "$on $e unwritten reads zero" "$(expect_hits 4)" \
				dio-check read $mnt/prealloc 4096 4096 "$e" zero 4
			# Only io_uring asks for the per-cpu bio cache.
			cached=0
			case $e in io_uring*) cached=8 ;; esac
			hits_matching "alloc_cache 1" \
				"$on $e 4k reads with the bio cache: $cached of 8" \
				"$(expect_hits $cached)" \
				dio-check read $f 8192 4096 "$e" pattern:$SEED 8
			# Only synchronous reads wait in the caller's frame.
			stacked=0
			[ "$e" = psync ] && stacked=8
			hits_matching "on_stack 1" \
				"$on $e 4k reads with the bio on the stack: $stacked of 8" \
				"$(expect_hits $stacked)" \
				dio-check read $f 8192 4096 "$e" pattern:$SEED 8
			hits "$on $e 8k reads take the normal path" 0 \
				dio-check read $f 8192 8192 "$e" pattern:$SEED 4
			hits "$on $e block-crossing 4k reads take the normal path" 0 \
				dio-check read $f 10240 4096 "$e" pattern:$SEED 4
			hits "$on $e read across eof takes the normal path" 0 \
				dio-check read $mnt/tail 4096 4096 "$e" short:904:$SEED
			hits "$on $e unaligned length is EINVAL" 0 \
				dio-check read $f 4096 100 "$e" errno:EINVAL
		done
		hits "$on buffered reads do not take it" 0 \
			dio-check read $f 8192 4096 buffered pattern:$SEED 8
		hits "$on 4k O_DIRECT writes do not take it" 0 \
			xfs_io -f -d -c "pwrite -q 0 4096" $mnt/written
	done
	echo 1 >$SIMPLE
	umount $mnt
done

# The block device's own direct I/O does not go through iomap.
check "raw device fill" dio-check fill $DUST_DISK 0 65536 $SEED
hits "raw device reads do not take it" 0 \
	dio-check read $DUST_DISK 4096 4096 psync pattern:$SEED 4

# --- I/O errors under the simple path: dm-dust fails reads of one block ---
# sync_storm FILE: two tasks read FILE's bad first block and two its good
# second block, 200 synchronous reads each, at the same time.  Each read
# must report its own bio's status: EIO for every bad read, the pattern
# for every good one.
sync_storm() {
	storm_errs=/tmp/storm-errs
	: >$storm_errs
	for t in 1 2; do
		{ dio-check read "$1" 0 4096 psync errno:EIO 200 ||
			echo "bad-block task $t" ; } >>$storm_errs 2>&1 &
		{ dio-check read "$1" 4096 4096 psync pattern:$SEED 200 ||
			echo "good-block task $t" ; } >>$storm_errs 2>&1 &
	done
	wait
	[ ! -s $storm_errs ] || { head -n 2 $storm_errs; return 1; }
}

# first_block FILE: the physical 4 KiB block of the file's first byte.
first_block() {
	filefrag -v -b4096 "$1" |
		sed -n 's/^ *0: *[0-9]*\.\. *[0-9]*: *\([0-9]*\)\.\..*/\1/p'
}

sectors=$(cat /sys/block/${DUST_DISK#/dev/}/size)
# Without udev, dmsetup mknodes makes /dev/mapper/dust.
if ! dmsetup create dust --table "0 $sectors dust $DUST_DISK 0 4096" ||
	! dmsetup mknodes dust; then
	fail "dm-dust device" "dmsetup create failed"
else
	for fs in ext4 xfs; do
		mnt=/mnt/dust
		mkfs_mount $fs $mnt /dev/mapper/dust || continue
		f=$mnt/bad
		check "$fs dust fill" dio-check fill $f 0 65536 $SEED
		drop_caches
		blk=$(first_block $f)
		check "$fs dust mark block $blk bad" \
			dmsetup message dust 0 addbadblock "$blk"
		check "$fs dust enable bad blocks" \
			dmsetup message dust 0 enable
		for s in 1 0; do
			echo $s >$SIMPLE
			for e in psync libaio io_uring; do
				hits "$fs simple_read=$s $e bad block is EIO" \
					"$(expect_hits 1)" \
					dio-check read $f 0 4096 "$e" errno:EIO
				hits "$fs simple_read=$s $e good block still reads" \
					"$(expect_hits 1)" \
					dio-check read $f 4096 4096 "$e" pattern:$SEED
			done
		done
		echo 1 >$SIMPLE
		hits_matching "on_stack 1" \
			"$fs 4 tasks x 200 sync reads of a bad and a good block" \
			800 sync_storm $f
		check "$fs dust disable bad blocks" \
			dmsetup message dust 0 disable
		hits "$fs bad block reads again after the error" 4 \
			dio-check read $f 0 4096 io_uring pattern:$SEED 4
		umount $mnt
	done
	dmsetup remove dust
fi

# --- bio allocation failure: the simple path must not sleep for its bio ---
# failslab fails every slab allocation that could not sleep anyway
# (ignore-gfp-wait) of tasks marked make-it-fail.  dm-delay holds each read
# for 50 ms, so a batch of 32 reads is in flight at once: the bio_set's
# reserve of 4 serves four of them and the other 28 must fall back to the
# normal path, whose allocations may sleep and so are not failed.  A simple
# path that slept in the allocator instead would serve all 32.
FAILSLAB=/sys/kernel/debug/failslab
SLOW_DISK=/dev/nvme1n1

# failing COMMAND...: run COMMAND with its non-sleeping slab allocations
# failed.
failing() {
	sh -c 'echo 1 >/proc/self/make-it-fail && exec "$@"' failing "$@"
}

sectors=$(cat /sys/block/${SLOW_DISK#/dev/}/size)
if ! dmsetup create slow \
	--table "0 $sectors delay $SLOW_DISK 0 50 $SLOW_DISK 0 0" ||
	! dmsetup mknodes slow; then
	fail "dm-delay device" "dmsetup create failed"
elif [ ! -d $FAILSLAB ]; then
	fail "failslab" "$FAILSLAB missing"
else
	echo Y >$FAILSLAB/task-filter
	echo Y >$FAILSLAB/ignore-gfp-wait
	echo 0 >$FAILSLAB/verbose
	echo -1 >$FAILSLAB/times
	echo 100 >$FAILSLAB/probability
	for fs in ext4 xfs; do
		mnt=/mnt/slow
		mkfs_mount $fs $mnt /dev/mapper/slow || continue
		f=$mnt/data
		check "$fs slow fill" dio-check fill $f 0 65536 $SEED
		drop_caches
		hits "$fs 32 reads at once, allocations succeed: 32 of 32" 32 \
			dio-check read $f 8192 4096 libaio-batch pattern:$SEED 32
		hits "$fs 32 reads at once, non-sleeping allocations fail: 4 of 32" \
			4 failing dio-check read $f 8192 4096 libaio-batch \
			pattern:$SEED 32
		hits "$fs one read at a time, allocations fail: reserve serves 8 of 8" \
			8 failing dio-check read $f 8192 4096 libaio pattern:$SEED 8
		echo 0 >$SIMPLE
		hits "$fs simple_read=0, allocations fail: 0 of 32" 0 \
			failing dio-check read $f 8192 4096 libaio-batch \
			pattern:$SEED 32
		echo 1 >$SIMPLE
		umount $mnt
	done
	echo 0 >$FAILSLAB/probability
fi
[ -e /dev/mapper/slow ] && dmsetup remove slow

# --- concurrency: simple-path readers on the same file as writers,
# buffered I/O, truncation and switching, for a bounded time ---
MB=1048576

# reader_loop FILE ENGINE ERRFILE STOPFILE: verified 4 KiB reads of the
# pattern in the first 16 MiB until STOPFILE exists; any failure lands in
# ERRFILE.
reader_loop() {
	off=0
	while [ ! -e "$4" ]; do
		dio-check read "$1" $off 4096 "$2" pattern:$SEED 64 \
			>>"$3" 2>&1 || echo "read at $off failed" >>"$3"
		off=$(((off + 1052672) % (16 * MB)))
	done
}

# run_with_readers NAME COMMAND...: run COMMAND while one reader per engine
# checks the pattern region; pass when COMMAND and every read succeed.
run_with_readers() {
	name=$1
	shift
	errs=/tmp/reader-errs
	stop=/tmp/reader-stop
	rm -f $errs $stop
	: >$errs
	pids=
	for e in $ENGINES; do
		reader_loop $f "$e" $errs $stop &
		pids="$pids $!"
	done
	out=$("$@" 2>&1)
	rc=$?
	touch $stop
	# shellcheck disable=SC2086
	wait $pids
	if [ $rc -ne 0 ]; then
		fail "$name" "$(echo "$out" | grep -i -m 2 'err\|bad\|fail')"
	elif [ -s $errs ]; then
		fail "$name" "$(head -n 2 $errs | tr '\n' ' ')"
	else
		pass "$name"
	fi
}

# fio_mix FILE SECONDS: direct writes verified by direct 4 KiB reads,
# buffered reads and writes, and direct reads, each in its own region.
fio_mix() {
	fio --output-format=terse --runtime="$2" --time_based \
		--filename="$1" --bs=4k --verify_fatal=1 \
		--name=dwrite --offset=16m --size=8m --rw=randwrite --direct=1 \
		--ioengine=io_uring --iodepth=8 --verify=crc32c \
		--verify_backlog=32 \
		--name=buffered --offset=24m --size=8m --rw=randrw --direct=0 \
		--ioengine=psync \
		--name=dread --offset=32m --size=8m --rw=randread --direct=1 \
		--ioengine=libaio --iodepth=16 --numjobs=2
}

# truncate_loop FILE STOPFILE: shrink and regrow the file's tail, which
# waits for all direct I/O in flight on the inode each time.
truncate_loop() {
	while [ ! -e "$2" ]; do
		xfs_io -c "truncate $((40 * MB))" -c "truncate $((48 * MB))" "$1"
	done
}

# toggle_loop STOPFILE: flip simple_read every 20 ms.
toggle_loop() {
	while [ ! -e "$1" ]; do
		echo 0 >$SIMPLE
		usleep 20000
		echo 1 >$SIMPLE
		usleep 20000
	done
}

# with_loop LOOP COMMAND...: run COMMAND while LOOP STOPFILE runs.
with_loop() {
	loop=$1
	shift
	lstop=/tmp/loop-stop
	rm -f $lstop
	# LOOP is a command with its arguments: split it.
	# shellcheck disable=SC2086
	$loop $lstop &
	lpid=$!
	"$@"
	lrc=$?
	touch $lstop
	wait $lpid
	return $lrc
}

for fs in ext4 xfs; do
	mnt=/mnt/$fs
	mkfs_mount $fs $mnt || continue
	f=$mnt/stress
	check "$fs stress fill" dio-check fill $f 0 $((16 * MB)) $SEED
	check "$fs stress extend" \
		xfs_io -c "pwrite -q -S 0x5a $((16 * MB)) $((32 * MB))" $f
	drop_caches
	run_with_readers "$fs readers with fio writes, buffered I/O, truncate" \
		with_loop "truncate_loop $f" fio_mix $f 8
	run_with_readers "$fs readers and fio verify while simple_read flips" \
		with_loop toggle_loop fio_mix $f 6
	echo 1 >$SIMPLE
	check "$fs pattern intact after the stress" \
		dio-check read $f 0 $((16 * MB)) psync pattern:$SEED
	umount $mnt
done
simple_read_events 0
