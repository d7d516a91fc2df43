#!/usr/bin/env bash
# Reject bad settings before anything is installed or built.
#
#   host/check-settings.sh test    make test's: every name in TESTS must be a
#                                  test of the suite, TEST_KERNELS may name
#                                  only lean and debug, and every TESTS=
#                                  example in README.md must name tests that
#                                  exist, so that the README's commands work
#                                  as written
#   host/check-settings.sh bench   make bench's, as host/bench-settings.sh
#                                  checks them
set -euo pipefail
# shellcheck source=host/common.sh
. "$(dirname "$0")/common.sh"

check_test_settings() {
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
}

case "${1:-}" in
test) check_test_settings ;;
bench)
	# shellcheck source=host/bench-settings.sh
	. "$REPO_DIR/host/bench-settings.sh"
	;;
*) die "usage: check-settings.sh test|bench" ;;
esac
