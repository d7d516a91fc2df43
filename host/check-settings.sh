#!/usr/bin/env bash
# Reject a command's bad settings before anything is installed or built.
#
#   host/check-settings.sh test|bench|ladder|db|seq|soak|replay
#   host/check-settings.sh command-line NAME...
#
# The checks are host/settings.sh's, the ones the command's script makes;
# command-line checks that the variables given on make's command line are
# settings.
set -euo pipefail
# shellcheck source=host/common.sh
. "$(dirname "$0")/common.sh"
# shellcheck source=host/settings.sh
. "$REPO_DIR/host/settings.sh"

case "${1:-}" in
test | bench | ladder | db | seq | soak | replay) "$1_settings" ;;
command-line) check_command_line "${@:2}" ;;
*) die "usage: check-settings.sh test|bench|ladder|db|seq|soak|replay, or command-line NAME..." ;;
esac
