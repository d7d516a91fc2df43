# shellcheck shell=sh
# The simple direct-I/O read path's switch, /sys/kernel/iomap/simple_read:
# 1 by default, 0 and 1 accepted, anything else rejected with nothing
# changed.
# shellcheck source=guest/tests/lib.sh
. ./lib.sh

require_simple_read

check_eq "simple_read defaults to 1" "$(cat $SIMPLE_READ 2>&1)" 1
for bad in 2 -1 abc 10 ""; do
	if echo "$bad" 2>/dev/null >$SIMPLE_READ; then
		fail "simple_read rejects '$bad'" "the write succeeded"
	else
		pass "simple_read rejects '$bad'"
	fi
	check_eq "simple_read unchanged after '$bad'" "$(cat $SIMPLE_READ)" 1
done
echo 0 >$SIMPLE_READ
check_eq "simple_read set to 0" "$(cat $SIMPLE_READ)" 0
echo 2 2>/dev/null >$SIMPLE_READ
check_eq "simple_read stays 0 after '2'" "$(cat $SIMPLE_READ)" 0
echo 1 >$SIMPLE_READ
check_eq "simple_read set to 1" "$(cat $SIMPLE_READ)" 1

