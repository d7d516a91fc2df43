#!/usr/bin/env bash
# Reject bad settings of make test before anything is installed or built:
# every name in TESTS must be a test of the suite, TEST_KERNELS may name
# only lean and debug, and every TESTS= example in README.md must name
# tests that exist, so that the README's commands work as written.
set -euo pipefail
# shellcheck source=host/common.sh
. "$(dirname "$0")/common.sh"

[ -z "${TESTS:-}" ] || check_test_names "$TESTS" TESTS
for kernel in ${TEST_KERNELS:-debug}; do
	case "$kernel" in
	lean | debug) ;;
	*) die "TEST_KERNELS: unknown kernel '$kernel' (lean, debug)" ;;
	esac
done
while read -r example; do
	check_test_names "${example#TESTS=}" "README.md's example $example"
done < <(grep -oE 'TESTS=[A-Za-z0-9_,-]+' "$REPO_DIR/README.md")
