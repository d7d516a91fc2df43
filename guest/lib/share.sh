# shellcheck shell=sh
# The host's share for a bench run inside the guest: the 9p directory (tag
# "out") host/boot.sh exports with GUEST_SHARE, and the settings file the
# host wrote there. Sourced by the bench drivers (guest/bench/*.sh); the
# initramfs holds it at /lib/iomap/share.sh.

OUT=/out

# share_open TAG CONF SETTING...: mount the share on OUT and source CONF
# from it. Fails, saying why with TAG, when the share cannot be mounted or
# CONF leaves one of the SETTINGs unset: every setting comes from the host.
share_open() {
	tag=$1 conf=$2
	shift 2
	mkdir -p $OUT
	if ! mount -t 9p -o trans=virtio,version=9p2000.L out $OUT; then
		echo "[$tag] cannot mount the 9p share: boot with GUEST_SHARE"
		return 1
	fi
	# shellcheck source=/dev/null
	. "$OUT/$conf"
	for setting; do
		if [ -z "$(eval echo "\${$setting:-}")" ]; then
			echo "[$tag] $conf does not set $setting"
			return 1
		fi
	done
}

# What the kernel logged since take_kernel_log last ran, and its reports
# (tests/lib.sh kernel_reports, which the caller must have sourced).
KERNEL_LOG_PART=/tmp/kernel-log-part
KERNEL_REPORTS=/tmp/kernel-reports

# take_kernel_log WHAT: move what the kernel logged since the last call
# into the share's dmesg.txt under a heading naming WHAT, so that the share
# holds the whole log however long the run, and its reports into
# KERNEL_REPORTS (empty when there are none).
take_kernel_log() {
	dmesg -c >$KERNEL_LOG_PART
	echo "=== $1" >>$OUT/dmesg.txt
	cat $KERNEL_LOG_PART >>$OUT/dmesg.txt
	kernel_reports <$KERNEL_LOG_PART >$KERNEL_REPORTS
}
