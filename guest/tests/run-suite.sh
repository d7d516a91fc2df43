#!/bin/sh
# Guest test suite driver: runs each tests/t-*.sh as "sh t-NN-name.sh" in a
# shell and process group of its own under a time limit, then checks the
# kernel log. It reports in KTAP, nesting the tests' own KTAP as kselftest's
# runner does: its header and plan (one result per test file, and one for
# the kernel log), then for each test file its output indented two spaces,
# as ktap.rst has subtests, and "ok I t-NN-name" or "not ok I t-NN-name".
# It ends with the closing line the host reads, "N passed, N failed,
# N skipped", which counts checks (the tests' result lines and the kernel
# log's), not files.
cd /tests || exit 1
# shellcheck source=guest/tests/lib.sh
. ./lib.sh

# A test's time limit in seconds: its "# time-limit: N" line, else this.
DEFAULT_LIMIT=600
# The running test's output, as it printed it, and its exit status.
TEST_OUTPUT=/tmp/suite-test-output
STATUS=/tmp/suite-test-status

# IOMAP_TESTS (from iomap.tests= on the kernel command line): a comma
# separated list of test names to run instead of all of them.
plan=
for t in t-*.sh; do
	name=${t%.sh}
	case ",${IOMAP_TESTS:-$name}," in
	*",$name,"*) plan="$plan $name" ;;
	esac
done
# shellcheck disable=SC2086 # count the words
files=$(set -- $plan && echo $#)

# The suite's counts of checks.
passed=0 failed=0 skipped=0

# indent: copy standard input to standard output, each line indented one
# level of KTAP nesting, as it comes (the console shows a test as it runs).
indent() {
	while IFS= read -r line || [ -n "$line" ]; do
		printf '  %s\n' "$line"
	done
}

# nested LINE: a line of the running test's output that the driver adds,
# when the test cannot say it itself (it died, was killed or made no check).
nested() {
	printf '%s\n' "$1" | tee -a $TEST_OUTPUT | indent
}

# count_results FILE: the passed, failed and skipped results among FILE's
# KTAP result lines at its own level (/lib/iomap/ktap-count.awk).
count_results() {
	awk -v prefix= -f /lib/iomap/ktap-count.awk "$1"
}

# reset_after_kill: a test killed at its limit leaves what it made behind
# (mounts, device-mapper and loop devices, a switched simple_read): take
# them away, so that the tests after it start from the state they expect
# rather than failing on the killed one's leftovers.
reset_after_kill() {
	awk '$2 ~ "^/mnt" { print $2 }' /proc/mounts | sort -r |
		while read -r mnt; do umount -l "$mnt"; done
	dmsetup remove_all --force >/dev/null 2>&1
	losetup -D 2>/dev/null
	[ ! -w $SIMPLE_READ ] || echo 1 >$SIMPLE_READ
}

# run_test NAME NUMBER: run NAME.sh under setsid and its time limit, its
# output on the console as subtest NUMBER of the suite. A test killed at its
# limit, or ending with a non-zero status, has one more check, failed.
run_test() {
	limit=$(sed -n 's/^# time-limit: \([0-9]*\)$/\1/p' "$1.sh")
	limit=${limit:-$DEFAULT_LIMIT}
	echo "# $1: time limit $limit s"
	start=$(date +%s)
	{
		# setsid first, so that the process group is the background
		# job's own pid.
		setsid timeout -s KILL "$limit" sh "$1.sh" 2>&1 &
		pid=$!
		wait $pid
		status=$?
		# A test killed at its limit leaves its background jobs
		# behind, holding the pipe to tee: end its whole group.
		[ $status = 137 ] && kill -KILL -- -$pid 2>/dev/null
		echo $status >$STATUS
	} | tee $TEST_OUTPUT | indent
	status=$(cat $STATUS)
	# A test that died before its header still gets its own subtest.
	if ! grep -q '^KTAP version ' $TEST_OUTPUT; then
		nested "KTAP version 1"
		nested "# Subtest: $1"
	fi
	read -r test_passed test_failed test_skipped <<-EOF
		$(count_results $TEST_OUTPUT)
	EOF
	next=$((test_passed + test_failed + test_skipped + 1))
	if [ "$status" = 137 ] && [ $(($(date +%s) - start)) -ge "$limit" ]; then
		nested "not ok $next $1 ends within its time limit # TIMEOUT $limit seconds"
		test_failed=$((test_failed + 1))
		reset_after_kill
	elif [ "$status" != 0 ]; then
		nested "not ok $next $1 exits with status 0 # exited with status $status"
		test_failed=$((test_failed + 1))
	elif [ $next = 1 ]; then
		nested "not ok $next $1 reports a check # it reported none"
		test_failed=$((test_failed + 1))
	fi
	# Each file's time, for the host's report (host/run-tests.sh).
	echo "# time: $1 $(($(date +%s) - start)) s"
	passed=$((passed + test_passed))
	failed=$((failed + test_failed))
	skipped=$((skipped + test_skipped))
	# As ktap.rst has it, a test fails when any of its checks fails, and
	# is skipped when all of them are.
	if [ "$test_failed" != 0 ]; then
		echo "not ok $2 $1"
	elif [ "$test_passed" = 0 ]; then
		echo "ok $2 $1 # SKIP every check it made was skipped"
	else
		echo "ok $2 $1"
	fi
}

echo "KTAP version 1"
echo "1..$((files + 1))"
echo "# $files test files:$plan, then the kernel log"
number=0
for name in $plan; do
	number=$((number + 1))
	run_test "$name" $number
done

# Any warning, oops, lockdep, KASAN or debug-objects report during the run
# is a failure.
splats=$(dmesg | kernel_reports | head -n 5)
check="kernel log: no warnings, oopses or lockdep reports"
if [ -z "$splats" ]; then
	echo "ok $((files + 1)) $check"
	passed=$((passed + 1))
else
	echo "$splats" | sed 's/^/# /'
	echo "not ok $((files + 1)) $check # $(echo "$splats" | head -n 1)"
	failed=$((failed + 1))
fi

echo "$passed passed, $failed failed, $skipped skipped"
