# shellcheck shell=sh
# Concurrency on the simple direct-I/O read path, on ext4 and XFS: verified
# readers on every engine on the same file as fio direct writes with
# verify, buffered I/O and truncation, and again while simple_read flips
# every 20 ms.
# shellcheck source=guest/tests/lib.sh
. ./lib.sh

require_simple_read

SEED=0x51e0
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
	for e in $DIO_ENGINES; do
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
		echo 0 >$SIMPLE_READ
		usleep 20000
		echo 1 >$SIMPLE_READ
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
	echo 1 >$SIMPLE_READ
	check "$fs pattern intact after the stress" \
		dio-check read $f 0 $((16 * MB)) psync pattern:$SEED
	umount $mnt
done
