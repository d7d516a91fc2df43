# shellcheck shell=bash
# The bench's settings: each one's default, in one place, and the checks
# that reject a bad value. Sourced by host/run-bench.sh, and by
# host/check-settings.sh, which make bench runs before it builds anything.
#
# Settings (environment or make variables). CLOCK picks the mode and its
# defaults:
#   CLOCK       icount (default): QEMU -icount shift=0,sleep=off, guest
#               time = guest instructions, on null_blk: deterministic
#               instructions per I/O. realtime: the wall-clock A/B sweep
#               of NVMe and null_blk.
#   QUICK=1     a smoke run of a few minutes: smaller defaults below
#                   icount                         realtime
#   DEVICES     nullb                          "nullb nvme"
#   TARGETS     "ext4 xfs raw"                 same
#   ENGINES     "psync libaio io_uring io_uring_poll"  "libaio io_uring
#               (psync: once, at QD 1)         io_uring_poll" (psync: QD
#               (quick: io_uring)              synchronous jobs; quick: io_uring)
#   QDS         "1 64" (quick: 64)             "1 16 64 128 256" (quick: "1 64")
#   BSS         "4k 512 8k 16k" (quick: 4k)    4k         read sizes
#   ROUNDS      3 runs per setting and cell    3 (quick: 2)
#               (the median of 3 outvotes a run whose window caught
#               a queue's worth of reads more or fewer: results/METHOD.md)
#   RUNTIME     guest time measured per run: 500ms (fio's form: 1s, 300ms),
#               realtime: whole seconds (2)
#   RAMP        guest time before it: 50ms     whole seconds (1)
#   SIZE_MB     test file size: 256            1024 (quick: 256)
#   LAYOUT      the ext4 and XFS test file's extents: fresh (default),
#               one write of the whole file into an empty filesystem; 4k,
#               64k or 1m: every extent that long, made by mkfrag
#               (guest/tools/mkfrag.c) on a filesystem of 5/4 x (2 x
#               SIZE_MB + 64 MiB); raw ignores it
#   BUFFERS     what fio reads into: spread (default), a tmpfs file whose
#               pages mkbuf placed so that none follows its predecessor in
#               memory, the same every run; anon: fio's own anonymous
#               memory, as an application's (results/METHOD.md, "The
#               buffers")
#   PIN         vCPU fio and uring-peak run on, or "none" (0)
#   PEAK        1: the uring-peak runs         0                1
#   PROFILE_ENGINE  the engine profiled, at its deepest QD of the sweep
#               (psync under icount: 1) (io_uring)
#   PROFILE_BS  the read size profiled, one of BSS, at least 4k (4k)
#   PROFILER    insn (icount default): exact instruction counts per
#               instruction address from a QEMU plugin
#               (host/qemu-plugin/insn-count.c); perf: sampling (realtime:
#               perf only)
#   INSN_IOS    reads the exact profile counts (20000; twice as many
#               must fit in SIZE_MB)
#   PROFILE_ROUNDS  profiles per setting: 2    1   (0: none)
#   PROFILE_PERIOD  icount: ns (= instructions) of guest time between
#                   samples (20000)
#   PROFILE_RUNTIME guest time of a profiled run: 1s    RUNTIME
#   NAME        results/<date>-NAME (full; quick: quick; unset, an
#               existing folder gets the next free -2, -3, ...)
# shellcheck source=guest/lib/units.sh
. "$REPO_DIR/guest/lib/units.sh"

CLOCK=${CLOCK:-icount}
mode=full
[ "${QUICK:-0}" = 1 ] && mode=quick
case "$CLOCK:$mode" in
icount:quick) : "${ENGINES:=io_uring}" "${QDS:=64}" "${BSS:=4k}" ;;
realtime:quick)
	: "${ENGINES:=io_uring}" "${QDS:=1 64}" "${ROUNDS:=2}"
	: "${SIZE_MB:=256}"
	;;
esac
case "$CLOCK" in
icount)
	DEVICES=${DEVICES:-nullb}
	ENGINES=${ENGINES:-psync libaio io_uring io_uring_poll}
	QDS=${QDS:-1 64}
	BSS=${BSS:-4k 512 8k 16k}
	ROUNDS=${ROUNDS:-3}
	RUNTIME=${RUNTIME:-500ms}
	RAMP=${RAMP:-50ms}
	SIZE_MB=${SIZE_MB:-256}
	PEAK=${PEAK:-0}
	PROFILE_ROUNDS=${PROFILE_ROUNDS:-2}
	PROFILE_PERIOD=${PROFILE_PERIOD:-20000}
	PROFILE_RUNTIME=${PROFILE_RUNTIME:-1s}
	PROFILER=${PROFILER:-insn}
	;;
realtime)
	DEVICES=${DEVICES:-nullb nvme}
	ENGINES=${ENGINES:-libaio io_uring io_uring_poll}
	QDS=${QDS:-1 16 64 128 256}
	BSS=${BSS:-4k}
	ROUNDS=${ROUNDS:-3}
	RUNTIME=${RUNTIME:-2}
	RAMP=${RAMP:-1}
	SIZE_MB=${SIZE_MB:-1024}
	PEAK=${PEAK:-1}
	PROFILE_ROUNDS=${PROFILE_ROUNDS:-1}
	PROFILE_PERIOD=
	PROFILE_RUNTIME=${PROFILE_RUNTIME:-$RUNTIME}
	PROFILER=${PROFILER:-perf}
	;;
*) die "CLOCK must be icount or realtime, not '$CLOCK'" ;;
esac
TARGETS=${TARGETS:-ext4 xfs raw}
LAYOUT=${LAYOUT:-fresh}
BUFFERS=${BUFFERS:-spread}
PIN=${PIN:-0}
NAME=${NAME:-$mode}
GUEST_CPUS=${GUEST_CPUS:-2}
PROFILE_ENGINE=${PROFILE_ENGINE:-io_uring}
PROFILE_BS=${PROFILE_BS:-4k}

# check_some WHAT LIST: LIST has a word at least.
check_some() {
	[ "$(wc -w <<<"$2")" -gt 0 ] || die "$1 has no words"
}

# check_words WHAT LIST ALLOWED...: every word of LIST is one of ALLOWED.
check_words() {
	local what=$1 list=$2 word
	shift 2
	check_some "$what" "$list"
	for word in $list; do
		[[ " $* " == *" $word "* ]] ||
			die "$what: unknown '$word' (allowed: $*)"
	done
}

# check_word WHAT VALUE ALLOWED...: VALUE is one word, one of ALLOWED.
check_word() {
	check_words "$@"
	[ "$(wc -w <<<"$2")" -eq 1 ] || die "$1: one of them, not '$2'"
}

# check_int WHAT VALUE MIN: VALUE is a whole number >= MIN.
check_int() {
	if ! [[ $2 =~ ^[0-9]+$ ]] || [ "$2" -lt "$3" ]; then
		die "$1 must be a whole number >= $3, not '$2'"
	fi
}

# check_time WHAT VALUE: a guest time in fio's form (1s, 300ms, 2 = 2s)
# under icount, where a guest second costs several host seconds; whole
# seconds (at least 1) in realtime mode.
check_time() {
	if [ "$CLOCK" = realtime ]; then
		check_int "$1" "$2" 1
	elif ! [[ $2 =~ ^[0-9]+(s|ms)?$ ]] || [[ $2 =~ ^0+(s|ms)?$ ]]; then
		die "$1 must be a guest time such as 1s or 300ms, not '$2'"
	fi
}


check_words DEVICES "$DEVICES" nullb nvme
check_words TARGETS "$TARGETS" ext4 xfs raw
check_words ENGINES "$ENGINES" libaio io_uring io_uring_poll psync
check_word PROFILE_ENGINE "$PROFILE_ENGINE" libaio io_uring io_uring_poll psync
check_some QDS "$QDS"
for qd in $QDS; do
	check_int "each of QDS" "$qd" 1
	[ "$qd" -le 1024 ] || die "QDS: $qd is deeper than the devices' 1024 tags"
done
check_some BSS "$BSS"
min_bs=4096
for bs in $BSS; do
	[[ $bs =~ ^[0-9]+k?$ ]] || die "BSS: '$bs' is not a size such as 512 or 4k"
	b=$(bytes "$bs")
	if [ $((b % 512)) -ne 0 ] || [ "$b" -eq 0 ] || [ "$b" -gt 1048576 ]; then
		die "BSS: $bs is not a multiple of 512 up to 1024k"
	fi
	[ "$b" -lt "$min_bs" ] && min_bs=$b
done
check_int ROUNDS "$ROUNDS" 1
# Realtime: one second at least for fio to start inside the ramp: the CPU
# window begins RAMP seconds after fio does (guest/bench/run-guest.sh).
check_time RAMP "$RAMP"
check_time RUNTIME "$RUNTIME"
check_time PROFILE_RUNTIME "$PROFILE_RUNTIME"
check_int PROFILE_ROUNDS "$PROFILE_ROUNDS" 0
check_words PROFILER "$PROFILER" insn perf
[ "$PROFILER" = perf ] || [ "$CLOCK" = icount ] ||
	die "PROFILER=insn counts exactly only under CLOCK=icount"
INSN_IOS=${INSN_IOS:-20000}
check_int INSN_IOS "$INSN_IOS" 1000
[ "$CLOCK" = realtime ] || check_int PROFILE_PERIOD "$PROFILE_PERIOD" 1000
[[ $PEAK =~ ^[01]$ ]] || die "PEAK must be 0 or 1, not '$PEAK'"
check_int SIZE_MB "$SIZE_MB" 16
check_word LAYOUT "$LAYOUT" fresh 4k 64k 1m
check_word BUFFERS "$BUFFERS" spread anon
if [ "$PROFILE_ROUNDS" -gt 0 ] && { [[ " $BSS " != *" $PROFILE_BS "* ]] ||
	[ "$(bytes "$PROFILE_BS")" -lt 4096 ]; }; then
	die "PROFILE_BS=$PROFILE_BS: not one of BSS of at least 4k"
fi
# Without a time limit fio stops at the end of the test file too: the
# longer run of an exact profile, 2 x INSN_IOS reads, must fit in it.
if [ "$PROFILER" = insn ] && [ "$PROFILE_ROUNDS" -gt 0 ] &&
	[ $((2 * INSN_IOS * $(bytes "$PROFILE_BS"))) -gt $((SIZE_MB << 20)) ]; then
	die "INSN_IOS=$INSN_IOS: 2 x INSN_IOS reads of $PROFILE_BS exceed SIZE_MB=$SIZE_MB"
fi
[ "$PIN" = none ] || check_int PIN "$PIN" 0
[ "$PIN" = none ] || [ "$PIN" -lt "$GUEST_CPUS" ] ||
	die "PIN=$PIN: the guest has only $GUEST_CPUS vCPUs (0..$((GUEST_CPUS - 1)))"
[[ $NAME =~ ^[A-Za-z0-9._-]+$ ]] ||
	die "NAME may hold letters, digits, '.', '_' and '-' only, not '$NAME'"
