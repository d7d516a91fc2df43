#!/usr/bin/env bash
# Boot the built kernel, run the guest test suite and report its result:
# the failing tests, then one closing line "N passed, N failed". Exits
# non-zero when any test failed or the guest did not finish.
set -euo pipefail
# shellcheck source=scripts/common.sh
. "$(dirname "$0")/common.sh"

# TESTS=t-30-simple-read,t-60-minix runs only those tests.
if [ -n "${TESTS:-}" ]; then
	IFS=, read -ra picked <<<"$TESTS"
	for t in "${picked[@]}"; do
		[ -f "$REPO_DIR/tests/$t.sh" ] ||
			die "TESTS: no test '$t' (tests/t-*.sh, without .sh)"
	done
	export GUEST_APPEND="${GUEST_APPEND:-} iomap.tests=$TESTS"
fi

log=$LOG_DIR/test.log
if ! BOOT_TIMEOUT=${BOOT_TIMEOUT:-2400} "$REPO_DIR/qemu/boot.sh" test test >/dev/null; then
	tail -n 30 "$log" >&2
	echo "0 passed, 1 failed"
	die "the guest did not finish the suite; full console log: $log"
fi

summary=$(grep -aE '^[0-9]+ passed, [0-9]+ failed' "$log" | tail -n 1 | tr -d '\r')
[ -n "$summary" ] || die "no summary line in $log"
grep -a '^FAIL ' "$log" | tr -d '\r' >&2 || true
echo "console log: $log" >&2
echo "$summary"
failed=$(echo "$summary" | sed -E 's/.* ([0-9]+) failed/\1/')
[ "$failed" -eq 0 ]
