#!/usr/bin/env bash
# Boot each test kernel, run the guest test suite on it and report: the
# failed checks, one "KERNEL: N passed, N failed, N skipped" line per
# kernel, then the closing line "N passed, N failed, N skipped" over all of
# them, counting checks. Exits non-zero when any check failed or a guest did
# not finish.
#
# TEST_KERNELS and TESTS pick the kernels and the tests
# (config/defaults.mk).
set -euo pipefail
# shellcheck source=host/common.sh
. "$(dirname "$0")/common.sh"
# shellcheck source=host/settings.sh
. "$REPO_DIR/host/settings.sh"
test_settings
lock_cache "make test"

[ -z "$TESTS" ] || export GUEST_APPEND="$GUEST_APPEND iomap.tests=$TESTS"

passed=0 failed=0 skipped=0
for kernel in $TEST_KERNELS; do
	case "$kernel" in
	lean) image=$KERNEL_IMAGE name=test timeout=$BOOT_TIMEOUT ;;
	debug) image=$DEBUG_KERNEL name=test-debug timeout=$((2 * BOOT_TIMEOUT)) ;;
	esac
	log=$LOG_DIR/$name.log
	log "suite on the $kernel kernel ($image)"
	start=$(date +%s)
	# Empty the log first: boot.sh can stop before it writes one (no
	# kernel, no initramfs), and a previous run's lines must not count.
	mkdir -p "$LOG_DIR"
	: >"$log"
	booted=0
	KERNEL_IMAGE=$image BOOT_TIMEOUT=$timeout \
		"$REPO_DIR/host/boot.sh" test "$name" >/dev/null || booted=$?
	summary=$(tr -d '\r' <"$log" |
		grep -aE '^[0-9]+ passed, [0-9]+ failed, [0-9]+ skipped$' |
		tail -n 1 || true)
	if [ "$booted" -ne 0 ] || [ -z "$summary" ]; then
		# Count the checks the guest reported before it stopped (the
		# tests' KTAP result lines, one level in), and the stop.
		read -r p f s < <(tr -d '\r' <"$log" |
			awk -v prefix="  " -f "$REPO_DIR/guest/lib/ktap-count.awk")
		summary="$p passed, $((f + 1)) failed, $s skipped"
		echo "FAIL $kernel kernel: the guest did not finish the suite" >&2
	fi
	# The failed checks, each after its test's name, and the failed test
	# files and kernel log check; the known failures (tests/lib.sh
	# known_failure) too, said as such.
	tr -d '\r' <"$log" | awk -v kernel="$kernel" '
		/^  # Subtest: / { test = $3 }
		/^  not ok [0-9]+ [^#]*# TODO/ { print "[" kernel "] known failure, " test ": " substr($0, 3); next }
		/^  not ok [0-9]+ / { print "[" kernel "] " test ": " substr($0, 3) }
		/^not ok [0-9]+ / { print "[" kernel "] " $0 }' >&2
	# Each test file's time in the guest, for keeping the suite short.
	tr -d '\r' <"$log" | awk -v kernel="$kernel" '
		/^# time: / { printf "[%s] %s %s s\n", kernel, $3, $4 }' >&2
	echo "$kernel: $summary ($(($(date +%s) - start)) s; console log: $log)" >&2
	[[ $summary =~ ^([0-9]+)\ passed,\ ([0-9]+)\ failed,\ ([0-9]+)\ skipped ]]
	passed=$((passed + BASH_REMATCH[1]))
	failed=$((failed + BASH_REMATCH[2]))
	skipped=$((skipped + BASH_REMATCH[3]))
done
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
