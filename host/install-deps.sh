#!/usr/bin/env bash
# Install, with apt-get, every host package the harness needs (with the
# packages of each filesystem's tools, FS_PACKAGES of guest/tests/fs/*.sh);
# with "db", those of the database bench (host/run-db-bench.sh), which the
# guest runs from the host's root.
# Idempotent: prints nothing and touches nothing when all are present.
set -euo pipefail
# shellcheck source=host/common.sh
. "$(dirname "$0")/common.sh"

case "${1:-}" in
"")
	packages=(
		linux-source-6.12 gcc make flex bison bc libelf-dev libssl-dev
		dwarves cpio xz-utils ccache git rsync kmod
		qemu-system-x86 qemu-utils fio liburing-dev libaio-dev linux-perf
		nvme-cli busybox-static xfsprogs e2fsprogs util-linux dmsetup
		gnuplot-nox python3
	)
	mapfile -t -O ${#packages[@]} packages < <(fs_plugin_values FS_PACKAGES)
	;;
db) packages=(mariadb-server mariadb-client sysbench) ;;
*)
	echo "usage: host/install-deps.sh [db]" >&2
	exit 1
	;;
esac

missing=()
for pkg in "${packages[@]}"; do
	if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null |
		grep -q 'install ok installed'; then
		missing+=("$pkg")
	fi
done

[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
	echo "install-deps: missing packages: ${missing[*]}" >&2
	echo "install-deps: run as root or install them by hand" >&2
	exit 1
fi

echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
# No service the packages bring is started on the host: the database
# bench starts its server in the guest. policy-rc.d is Debian's switch for
# that; one the host already has is left alone.
policy=/usr/sbin/policy-rc.d
if [ ! -e $policy ]; then
	printf '#!/bin/sh\nexit 101\n' >$policy
	chmod +x $policy
	trap 'rm -f $policy' EXIT
fi
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
