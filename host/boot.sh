#!/usr/bin/env bash
# Boot the guest kernel in QEMU with emulated NVMe disks and run one job
# inside it (the test suite or a bench), console on stdout and in a log.
#
#   host/boot.sh RUN [LOGNAME]      RUN: test, bench, seq, db, soak, replay or shell
#
# Settings (config/defaults.mk): IOMAP_ACCEL, CLOCK, GUEST_CPUS, GUEST_MEM,
# GUEST_APPEND, BOOT_TIMEOUT, KERNEL_IMAGE. And from the scripts that boot:
#   GUEST_SHARE    host directory mounted in the guest as tag "out" (9p)
#   GUEST_HOSTROOT 1: the host's root, read-only, as tag "hostroot" (9p), so
#                  that the guest can run the host's installed programs
#   QEMU_PLUGIN    a TCG plugin and its arguments, as -plugin takes them
# Exits non-zero when the guest panicked, hung or never finished its job.
set -euo pipefail
# shellcheck source=host/common.sh
. "$(dirname "$0")/common.sh"
# shellcheck source=host/settings.sh
. "$REPO_DIR/host/settings.sh"
setting CLOCK
boot_settings ""
lock_cache "host/boot.sh ${1:-}"

run=${1:?usage: host/boot.sh test|bench|seq|db|soak|replay|shell [logname]}
logname=${2:-$run}
kernel=$KERNEL_IMAGE
initrd=$CACHE_DIR/initramfs.cpio.gz
cpus=$GUEST_CPUS
mem=$GUEST_MEM
timeout_s=$BOOT_TIMEOUT
log=$LOG_DIR/$logname.log

[ -f "$kernel" ] || die "no kernel at $kernel (make kernel)"
[ -f "$initrd" ] || die "no initramfs at $initrd (make initramfs)"
mkdir -p "$IMAGE_DIR" "$LOG_DIR"

# The NVMe test disk (sparse) and the bench disk.
for disk in nvme0 nvme1; do
	[ -f "$IMAGE_DIR/$disk.img" ] || truncate -s 8G "$IMAGE_DIR/$disk.img"
done

# log_buf_len: a kernel log that holds a whole suite or soak run, so that
# the guest's checks of it (tests/lib.sh kernel_reports) see every report
# from the first line on, not only what the default 128 KiB ring kept.
cmdline="console=ttyS0 panic=-1 oops=panic loglevel=4 nvme.poll_queues=2"
cmdline+=" log_buf_len=32M"
cmdline+=" iomap.run=$run $GUEST_APPEND"

qemu_args=(
	-nodefaults -no-reboot -display none -serial stdio
	-smp "$cpus" -m "$mem"
	-kernel "$kernel" -initrd "$initrd"
	-drive "file=$IMAGE_DIR/nvme0.img,if=none,id=d0,format=raw,cache=none,aio=threads"
	-device "nvme,serial=iomap0,drive=d0"
	-drive "file=$IMAGE_DIR/nvme1.img,if=none,id=d1,format=raw,cache=none,aio=threads"
	-device "nvme,serial=iomap1,drive=d1"
)
if [ -n "${QEMU_PLUGIN:-}" ]; then
	qemu_args+=(-plugin "$QEMU_PLUGIN")
fi
if [ -n "${GUEST_SHARE:-}" ]; then
	qemu_args+=(-virtfs "local,path=$GUEST_SHARE,mount_tag=out,security_model=none")
fi
if [ "${GUEST_HOSTROOT:-0}" = 1 ]; then
	qemu_args+=(-virtfs "local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap")
fi

kvm_args=(-accel kvm -cpu "host,-arch-capabilities")
tcg_args=(-accel "tcg,thread=multi" -cpu max)
icount_args=(-accel "tcg,thread=single" -cpu max -icount "shift=0,sleep=off")

# A short boot with KVM: usable only if the kernel prints its banner.
kvm_works() {
	local probe=$LOG_DIR/kvm-probe.log
	[ -w /dev/kvm ] || return 1
	timeout 20 qemu-system-x86_64 "${kvm_args[@]}" -nodefaults -no-reboot \
		-display none -serial stdio -m 512M -kernel "$kernel" \
		-append "console=ttyS0 panic=-1 iomap.run=none" \
		</dev/null >"$probe" 2>&1 || true
	grep -q 'Linux version' "$probe"
}

# icount needs TCG and refuses MTTCG.
case "$CLOCK:$IOMAP_ACCEL" in
icount:*)
	accel_args=("${icount_args[@]}") accel=tcg-icount
	# Seen once with QEMU starved on a loaded host: "IO-APIC + timer
	# doesn't work!", a panic at boot. The check proves nothing here.
	cmdline+=" no_timer_check"
	;;
realtime:kvm) accel_args=("${kvm_args[@]}") accel=kvm ;;
realtime:tcg) accel_args=("${tcg_args[@]}") accel=tcg ;;
realtime:auto)
	if kvm_works; then
		accel_args=("${kvm_args[@]}") accel=kvm
	else
		log "KVM unusable here (no kernel output in a probe boot): using TCG"
		accel_args=("${tcg_args[@]}") accel=tcg
	fi
	;;
esac

# 6.12's identify_cpu() clears boot_cpu_data's feature bits with interrupts
# enabled. An interrupt in that window finds pgtable_l5_enabled() false, so
# KASAN takes the 5-level direct map for a wild address and reports a bug at
# boot (seen on TCG's "max" CPU, which has LA57). Realtime guests page with
# four levels; icount guests keep the CPU the recorded counts were made on.
if [ "$CLOCK" = realtime ]; then
	cmdline+=" no5lvl"
fi

echo "qemu-system-x86_64 ${accel_args[*]} ${qemu_args[*]} -append \"$cmdline\"" \
	>"$LOG_DIR/$logname.qemu-cmd"
echo "$accel" >"$LOG_DIR/$logname.accel"
log "booting ($accel, $cpus vCPUs, $mem, timeout ${timeout_s}s), console log: $log"
start=$(date +%s)
set +e
timeout --foreground "$timeout_s" qemu-system-x86_64 "${accel_args[@]}" \
	"${qemu_args[@]}" -append "$cmdline" </dev/null 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
set -e
log "guest ran for $(($(date +%s) - start)) s"

problem=
if grep -q 'Kernel panic' "$log"; then
	problem="the guest kernel panicked"
elif [ "$status" -eq 124 ]; then
	problem="the guest hung: killed after ${timeout_s}s"
elif ! grep -q '^GUEST-DONE' "$log"; then
	problem="the guest stopped before finishing (qemu exit $status)"
fi
if [ -n "$problem" ]; then
	echo "---- last console lines ----" >&2
	tail -n 30 "$log" >&2
	die "$problem; full console log: $log"
fi
