# shellcheck shell=sh
# Sizes and times as the settings write them. Sourced by the bench in the
# guest (/lib/iomap/units.sh) and by host/settings.sh, which checks
# the settings with them before anything is built.

# bytes SIZE: a size such as 512, 4k or 1m in bytes.
bytes() {
	case "$1" in
	*k) echo $((${1%k} * 1024)) ;;
	*m) echo $((${1%m} * 1048576)) ;;
	*) echo "$1" ;;
	esac
}

# ms TIME: a time such as 500ms, 1s or 2 (seconds) in milliseconds.
ms() {
	case "$1" in
	*ms) echo "${1%ms}" ;;
	*s) echo $((${1%s} * 1000)) ;;
	*) echo $(($1 * 1000)) ;;
	esac
}
