# shellcheck shell=sh
# Helpers for the guest test suite: result reporting, device discovery and
# filesystem setup. Sourced by run-suite.sh and every tests/t-*.sh.

PASSED=0
FAILED=0

pass() {
	PASSED=$((PASSED + 1))
	echo "PASS $1"
}

fail() {
	FAILED=$((FAILED + 1))
	echo "FAIL $1: $2"
}

# check NAME COMMAND...: run the command; pass when it exits 0, otherwise
# fail with the command's own words as the reason.
check() {
	name=$1
	shift
	if out=$("$@" 2>&1); then
		pass "$name"
	else
		fail "$name" "$(echo "$out" | tail -n 3 | tr '\n' ' ')"
	fi
}

# check_eq NAME GOT WANT
check_eq() {
	if [ "$2" = "$3" ]; then
		pass "$1"
	else
		fail "$1" "got '$2', want '$3'"
	fi
}

# The test disk: the first NVMe namespace the host attached.
TEST_DEV=/dev/nvme0n1

# mkfs_mount FS MOUNTPOINT [DEVICE]: make a fresh filesystem of type FS
# (ext4, xfs) on DEVICE (default $TEST_DEV) and mount it; a failure is
# reported as a failed test and returns 1, so callers can skip the fs.
mkfs_mount() {
	fs=$1
	mnt=$2
	dev=${3:-$TEST_DEV}
	umount "$mnt" 2>/dev/null
	mkdir -p "$mnt"
	case "$fs" in
	ext4) mkfs.ext4 -q -F -b 4096 "$dev" ;;
	xfs) mkfs.xfs -q -f -b size=4096 "$dev" ;;
	*) false ;;
	esac && mount -t "$fs" "$dev" "$mnt" && return 0
	fail "$fs mkfs and mount on $dev" "could not make or mount $fs"
	return 1
}

# Drop the page cache so buffered data cannot mask what O_DIRECT reads.
drop_caches() {
	sync
	echo 3 >/proc/sys/vm/drop_caches
}

# shellcheck source=guest/lib/trace.sh
. /lib/iomap/trace.sh

# expect_hits N: the simple path's hits for N reads it qualifies for: N when
# /sys/kernel/iomap/simple_read is 1, else 0.
expect_hits() {
	if [ "$(cat /sys/kernel/iomap/simple_read)" = 1 ]; then
		echo "$1"
	else
		echo 0
	fi
}

# hits NAME WANT COMMAND...: run COMMAND (a dio-check read, which verifies
# its data) with the trace buffer cleared; pass when it succeeds and the
# simple path served exactly WANT reads meanwhile.
hits() {
	hits_matching "" "$@"
}

# hits_matching TEXT NAME WANT COMMAND...: the same, counting only the
# simple path's trace lines that also contain TEXT.
hits_matching() {
	match=$1
	name=$2
	want=$3
	shift 3
	trace_start
	out=$("$@" 2>&1)
	rc=$?
	got=$(trace_stop_count "$match")
	if [ $rc -ne 0 ]; then
		fail "$name" "$(echo "$out" | tail -n 2 | tr '\n' ' ')"
		return
	fi
	check_eq "$name" "$got hits" "$want hits"
}
