#!/bin/sh
# Guest test suite driver: runs every tests/t-*.sh in order, then checks
# the kernel log, and ends with the closing line the host reads.
cd /tests || exit 1
# shellcheck source=guest/tests/lib.sh
. ./lib.sh

# IOMAP_TESTS (from iomap.tests= on the kernel command line): a comma
# separated list of test names to run instead of all of them.
for t in ./t-*.sh; do
	name=${t#./}
	name=${name%.sh}
	case ",${IOMAP_TESTS:-$name}," in
	*",$name,"*) ;;
	*) continue ;;
	esac
	echo "== $t"
	# shellcheck source=/dev/null
	. "$t"
done

# Any warning, oops, lockdep, KASAN or debug-objects report during the run
# is a failure (lockdep and "sleeping function called from invalid context"
# reports start with WARNING: or BUG:).
splats=$(dmesg | grep -E 'WARNING:|BUG:|Oops|general protection|possible recursive locking|circular locking|INFO: task .* blocked|KASAN|ODEBUG|list_(add|del) corruption' | head -n 5)
if [ -z "$splats" ]; then
	pass "dmesg: no warnings, oopses or lockdep reports"
else
	fail "dmesg: no warnings, oopses or lockdep reports" "$splats"
fi

echo "$PASSED passed, $FAILED failed"
