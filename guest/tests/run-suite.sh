#!/bin/sh
# Guest test suite driver: prints the plan (the test files it will run),
# runs each tests/t-*.sh as "sh t-NN-name.sh" in a shell and process group
# of its own under a time limit, then checks the kernel log, and ends with the
# closing line the host reads. The counts come from the PASS, FAIL and SKIP
# lines the tests print, collected in one file.
cd /tests || exit 1
# shellcheck source=guest/tests/lib.sh
. ./lib.sh

# A test's time limit in seconds: its "# time-limit: N" line, else this.
DEFAULT_LIMIT=600
RESULTS=/tmp/suite-results
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
echo "plan:$plan ($(set -- $plan && echo $#) files)"

# record COMMAND...: run a reporting command (pass, fail) of the driver's
# own, its line going to the console and into the results.
record() {
	"$@" | tee -a $RESULTS
}

# run_test NAME: run NAME.sh under setsid and its time limit, its
# output to the console and into the results. A test killed at its limit,
# or ending with a non-zero status, is one failure.
run_test() {
	limit=$(sed -n 's/^# time-limit: \([0-9]*\)$/\1/p' "$1.sh")
	limit=${limit:-$DEFAULT_LIMIT}
	echo "== $1 (time limit $limit s)"
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
	} | tee -a $RESULTS
	status=$(cat $STATUS)
	if [ "$status" = 137 ] && [ $(($(date +%s) - start)) -ge "$limit" ]; then
		record fail "$1" "killed at its time limit of $limit s"
	elif [ "$status" != 0 ]; then
		record fail "$1" "exited with status $status"
	fi
}

: >$RESULTS
for name in $plan; do
	run_test "$name"
done

# Any warning, oops, lockdep, KASAN or debug-objects report during the run
# is a failure.
splats=$(kernel_reports | head -n 5)
if [ -z "$splats" ]; then
	record pass "dmesg: no warnings, oopses or lockdep reports"
else
	record fail "dmesg: no warnings, oopses or lockdep reports" "$splats"
fi

echo "$(grep -c '^SKIP ' $RESULTS) skipped"
echo "$(grep -c '^PASS ' $RESULTS) passed, $(grep -c '^FAIL ' $RESULTS) failed"
