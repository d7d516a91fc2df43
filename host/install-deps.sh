#!/usr/bin/env bash
# Install, with apt-get, every host package the harness needs.
# Idempotent: prints nothing and touches nothing when all are present.
set -euo pipefail

packages=(
	linux-source-6.12 gcc make flex bison bc libelf-dev libssl-dev
	dwarves cpio xz-utils ccache git rsync kmod
	qemu-system-x86 qemu-utils fio liburing-dev libaio-dev linux-perf
	nvme-cli busybox-static xfsprogs e2fsprogs util-linux exfatprogs
	gnuplot-nox python3
)

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
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
