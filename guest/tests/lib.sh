# shellcheck shell=sh
# Helpers for the guest test suite: result reporting, device discovery,
# filesystem setup and simple-path hit counting. Sourced by run-suite.sh
# and every tests/t-*.sh, each of which runs in a shell of its own.
#
# A test reports by printing lines, which run-suite.sh counts: "PASS name",
# "FAIL name: reason", and "SKIP name: reason" for what cannot run here.

# The test's name, for the lines it prints about itself.
TEST_NAME=$(basename "$0" .sh)

pass() {
	echo "PASS $1"
}

fail() {
	echo "FAIL $1: $2"
}

skip() {
	echo "SKIP $1: $2"
}

# skip_test REASON: the whole test cannot run here: say why and stop.
skip_test() {
	skip "$TEST_NAME" "$1"
	exit 0
}

# require_dm_target TARGET: skip the test unless device-mapper has TARGET.
require_dm_target() {
	dmsetup targets 2>/dev/null | grep -qw "$1" ||
		skip_test "no dm-$1 target in this kernel"
}

# have_simple_read: whether the kernel has the simple read path's switch
# and trace point (the series before the simple path, or stock 6.12, has
# neither); turns the trace point on.
have_simple_read() {
	[ -w $SIMPLE_READ ] && simple_read_events 1
}

# require_simple_read: skip the test unless have_simple_read.
require_simple_read() {
	have_simple_read ||
		skip_test "no simple read path (/sys/kernel/iomap/simple_read, its trace point) in this kernel"
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

# The O_DIRECT read engines of dio-check that mean fio's engines of the
# same names.
# shellcheck disable=SC2034 # read by the tests
DIO_ENGINES="psync libaio io_uring io_uring_poll"

# The simple direct-I/O read path's switch: 1 on (the default), 0 off.
SIMPLE_READ=/sys/kernel/iomap/simple_read

# mkfs_mount FS MOUNTPOINT [DEVICE]: make a fresh filesystem of type FS
# (ext4, xfs) on DEVICE (default $TEST_DEV) and mount it; a failure is
# reported as a failed test and returns 1, so callers can skip the fs.
mkfs_mount() {
	umount "$2" 2>/dev/null
	mkdir -p "$2"
	case "$1" in
	ext4) mkfs.ext4 -q -F -b 4096 "${3:-$TEST_DEV}" ;;
	xfs) mkfs.xfs -q -f -b size=4096 "${3:-$TEST_DEV}" ;;
	*) false ;;
	esac && mount -t "$1" "${3:-$TEST_DEV}" "$2" && return 0
	fail "$1 mkfs and mount on ${3:-$TEST_DEV}" "could not make or mount $1"
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
	if [ "$(cat $SIMPLE_READ)" = 1 ]; then
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
