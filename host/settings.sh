# shellcheck shell=bash
# Each command's settings: COMMAND_settings gives every setting the command
# reads its value (the environment's, else config/defaults.mk's, which
# documents them) and dies on a bad one. Sourced after host/common.sh by
# the command's script, and by host/check-settings.sh, which make runs
# before it installs or builds anything.

# shellcheck source=guest/lib/units.sh
. "$REPO_DIR/guest/lib/units.sh"
# shellcheck source=guest/lib/engines.sh
. "$REPO_DIR/guest/lib/engines.sh"

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

# check_ints WHAT LIST MIN: LIST has a word at least, each one check_int's.
check_ints() {
	local n
	check_some "$1" "$2"
	for n in $2; do
		check_int "each of $1" "$n" "$3"
	done
}

# check_size WHAT VALUE: a size such as 512, 4k or 1m (guest/lib/units.sh).
check_size() {
	[[ $2 =~ ^[1-9][0-9]*[km]?$ ]] ||
		die "$1: '$2' is not a size such as 512, 4k or 1m"
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

# check_name: NAME is fit for a folder name.
check_name() {
	[[ $NAME =~ ^[A-Za-z0-9._-]+$ ]] ||
		die "NAME may hold letters, digits, '.', '_' and '-' only, not '$NAME'"
}

# check_new_results: results/<date>-NAME does not exist yet.
check_new_results() {
	check_name
	[ ! -e "$REPO_DIR/results/$(date +%F)-$NAME" ] ||
		die "results/$(date +%F)-$NAME exists: pick another NAME"
}

# check_filesystems WHAT LIST: each word of LIST has a guest/tests/fs plug-in.
check_filesystems() {
	local fs
	check_some "$1" "$2"
	for fs in $2; do
		[ -f "$FS_PLUGIN_DIR/$fs.sh" ] ||
			die "$1: no guest/tests/fs/$fs.sh"
	done
}

# bench_filesystems BENCH: the filesystems whose plug-in lists BENCH (dio,
# db or seq) in FS_BENCHES.
bench_filesystems() {
	local fs
	for fs in $(fs_plugins); do
		if fs_plugin_values_of "$fs" FS_BENCHES | grep -qx "$1"; then
			echo "$fs"
		fi
	done
}

# check_kernels SETTING: each item of SETTING is LABEL=BZIMAGE.
check_kernels() {
	local spec
	check_some "$1" "${!1}"
	for spec in ${!1}; do
		kernel_spec "$1" "$spec"
	done
}

# check_test_names LIST WHERE: every name in the comma-separated LIST is a
# test of the suite (guest/tests/NAME.sh); WHERE says whose list.
check_test_names() {
	local t picked
	IFS=, read -ra picked <<<"$1"
	for t in "${picked[@]}"; do
		if ! [[ $t =~ ^t-[0-9]+-[A-Za-z0-9-]+$ ]] ||
			! [ -f "$REPO_DIR/guest/tests/$t.sh" ]; then
			die "$2: no test '$t' (guest/tests/t-*.sh, without .sh)"
		fi
	done
}

# icount_only COMMAND: COMMAND measures under CLOCK=icount only.
icount_only() {
	[ -z "${CLOCK:-}" ] || [ "$CLOCK" = icount ] ||
		die "$1 measures under CLOCK=icount only, not '$CLOCK'"
	CLOCK=icount
}

# check_fs_plugins: every filesystem plug-in (guest/tests/fs/NAME.sh) sets
# what the host takes from it: its tools, their packages, and entry points
# of the form make stack-check reads.
check_fs_plugins() {
	local fs var entries entry point='[A-Za-z0-9_/-]+\.o:[A-Za-z0-9_]+'
	for fs in $(fs_plugins); do
		for var in FS_TYPE FS_TOOLS FS_PACKAGES; do
			[ -n "$(fs_plugin_values_of "$fs" "$var")" ] ||
				die "guest/tests/fs/$fs.sh sets no $var"
		done
		entries=$(fs_plugin_values_of "$fs" FS_ENTRY_POINTS)
		[ -n "$entries" ] || die "guest/tests/fs/$fs.sh sets no FS_ENTRY_POINTS"
		for entry in $entries; do
			[[ $entry =~ ^$point(=$point)?$ ]] ||
				die "guest/tests/fs/$fs.sh: FS_ENTRY_POINTS: '$entry' is not OBJECT.o:FUNCTION[=OBJECT.o:FUNCTION]"
		done
	done
}

# build_settings: host/build-kernel.sh's, and the filesystem plug-ins the
# builds take options, tools and entry points from.
build_settings() {
	setting JOBS
	[ -z "$JOBS" ] || check_int JOBS "$JOBS" 1
	check_fs_plugins
}

# boot_settings "SCOPE...": host/boot.sh's, CLOCK resolved already.
boot_settings() {
	settings "$1" IOMAP_ACCEL GUEST_CPUS GUEST_MEM GUEST_APPEND
	check_word IOMAP_ACCEL "$IOMAP_ACCEL" auto kvm tcg
	check_word CLOCK "$CLOCK" realtime icount
	[ "$CLOCK:$IOMAP_ACCEL" != icount:kvm ] ||
		die "CLOCK=icount needs TCG, not IOMAP_ACCEL=kvm"
	check_int GUEST_CPUS "$GUEST_CPUS" 1
	[ -z "$GUEST_MEM" ] || [[ $GUEST_MEM =~ ^[1-9][0-9]*[MG]$ ]] ||
		die "GUEST_MEM: a size such as 4G or 512M, not '$GUEST_MEM'"
	check_int BOOT_TIMEOUT "$BOOT_TIMEOUT" 1
}

# make test's: TESTS names tests of the suite, TEST_KERNELS lean and debug
# only, and every TESTS= example in README.md names tests that exist, so
# that the README's commands work as written.
test_settings() {
	local example
	setting CLOCK
	boot_settings ""
	build_settings
	settings "" TEST_KERNELS TESTS
	[ -z "$TESTS" ] || check_test_names "$TESTS" TESTS
	check_words TEST_KERNELS "$TEST_KERNELS" lean debug
	while read -r example; do
		check_test_names "${example#TESTS=}" "README.md's example $example"
	done < <(grep -oE 'TESTS=[A-Za-z0-9_,-]+' "$REPO_DIR/README.md")
}

# The bench's settings that host/run-bench.sh hands its guest in
# bench.conf, with what it works out from them.
BENCH_CONF_SETTINGS=(CLOCK DEVICES TARGETS ENGINES QDS BSS ROUNDS RUNTIME
	RAMP SIZE_MB LAYOUT BUFFERS PIN PEAK PROFILE_ENGINE PROFILE_BS PROFILER
	INSN_IOS PROFILE_ROUNDS PROFILE_PERIOD PROFILE_RUNTIME)

# make bench's. Sets BENCH_MODE, full or quick (QUICK=1), and min_bs, the
# smallest of BSS in bytes.
bench_settings() {
	local scopes bs b qd allowed
	setting CLOCK bench
	check_word CLOCK "$CLOCK" icount realtime
	setting QUICK
	[[ $QUICK =~ ^[01]$ ]] || die "QUICK must be 0 or 1, not '$QUICK'"
	scopes="bench.$CLOCK bench"
	[ "$QUICK" = 0 ] || scopes="bench.$CLOCK.quick bench.quick $scopes"
	local modes=(full quick)
	# shellcheck disable=SC2034 # host/run-bench.sh records it
	BENCH_MODE=${modes[QUICK]}
	settings "$scopes" "${BENCH_CONF_SETTINGS[@]}" NAME RESULTS KERNEL_SERIES
	boot_settings "$scopes"
	build_settings
	# Realtime has no sampling period to set, and profiles runs as long
	# as the measured ones unless told otherwise.
	if [ "$CLOCK" = realtime ]; then
		PROFILE_PERIOD=
		PROFILE_RUNTIME=${PROFILE_RUNTIME:-$RUNTIME}
	fi

	check_words DEVICES "$DEVICES" nullb nvme
	mapfile -t allowed < <(bench_filesystems dio)
	check_words TARGETS "$TARGETS" raw "${allowed[@]}"
	read -ra allowed <<<"$DIO_ENGINES"
	check_words ENGINES "$ENGINES" "${allowed[@]}"
	check_word PROFILE_ENGINE "$PROFILE_ENGINE" "${allowed[@]}"
	check_ints QDS "$QDS" 1
	for qd in $QDS; do
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
	# Realtime: one second at least for fio to start inside the ramp: the
	# CPU window begins RAMP seconds after fio does
	# (guest/bench/run-guest.sh).
	check_time RAMP "$RAMP"
	check_time RUNTIME "$RUNTIME"
	check_time PROFILE_RUNTIME "$PROFILE_RUNTIME"
	check_int PROFILE_ROUNDS "$PROFILE_ROUNDS" 0
	check_word PROFILER "$PROFILER" insn perf
	[ "$PROFILER" = perf ] || [ "$CLOCK" = icount ] ||
		die "PROFILER=insn counts exactly only under CLOCK=icount"
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
	check_name
}

# make ladder's: its own, then the bench's, under icount.
ladder_settings() {
	local step
	icount_only "make ladder"
	settings ladder ENGINES QDS BSS PROFILE_ROUNDS NAME
	settings "" LADDER LADDER_BENCH LADDER_FRAGMENTS LADDER_CCACHE \
		LADDER_ALIAS
	check_some LADDER "$LADDER"
	for step in $LADDER; do
		[[ $step =~ ^(stock|[a-z0-9-]+(/[0-9]{4})?)$ ]] ||
			die "LADDER: '$step' is not stock, TOPIC or TOPIC/NNNN"
		[ "$step" = stock ] || series_topics | grep -qx "${step%%/*}" ||
			die "LADDER: no topic '${step%%/*}' in patches/series"
	done
	[[ $LADDER_BENCH =~ ^[01]$ ]] ||
		die "LADDER_BENCH must be 0 or 1, not '$LADDER_BENCH'"
	for step in $LADDER_FRAGMENTS; do
		[ -f "$REPO_DIR/$step" ] || die "LADDER_FRAGMENTS: no $step"
	done
	[ -z "$LADDER_ALIAS" ] || [ -d "$LADDER_ALIAS" ] ||
		die "LADDER_ALIAS: no folder $LADDER_ALIAS"
	bench_settings
}

# make bench-db's.
db_settings() {
	local workload allowed
	icount_only "make bench-db"
	settings db DB_KERNELS FSES TABLES TABLE_ROWS BUFFER_POOL WORKLOADS \
		RUN_SECONDS ROUNDS NAME
	boot_settings db
	build_settings
	check_kernels DB_KERNELS
	mapfile -t allowed < <(bench_filesystems db)
	check_words FSES "$FSES" "${allowed[@]}"
	check_int TABLES "$TABLES" 1
	check_int TABLE_ROWS "$TABLE_ROWS" 1
	check_int RUN_SECONDS "$RUN_SECONDS" 1
	check_int ROUNDS "$ROUNDS" 1
	[[ $BUFFER_POOL =~ ^[1-9][0-9]*[KMG]$ ]] ||
		die "BUFFER_POOL: a size such as 16M, not '$BUFFER_POOL'"
	check_some WORKLOADS "$WORKLOADS"
	for workload in $WORKLOADS; do
		[ -f "/usr/share/sysbench/$workload.lua" ] ||
			die "WORKLOADS: sysbench has no $workload (host/install-deps.sh db)"
	done
	check_new_results
}

# make bench-seq's.
seq_settings() {
	local allowed
	icount_only "make bench-seq"
	settings seq SEQ_KERNELS FS VARIANT FILE_MB BS WRITERS ROUNDS PROFILE NAME
	boot_settings seq
	build_settings
	check_kernels SEQ_KERNELS
	mapfile -t allowed < <(bench_filesystems seq)
	check_word FS "$FS" "${allowed[@]}"
	mapfile -t allowed < <(fs_plugin_values_of "$FS" FS_VARIANTS)
	[ -z "$VARIANT" ] || check_word VARIANT "$VARIANT" "${allowed[@]}"
	check_size BS "$BS"
	check_int FILE_MB "$FILE_MB" 1
	check_ints WRITERS "$WRITERS" 1
	check_int ROUNDS "$ROUNDS" 1
	[[ $PROFILE =~ ^[01]$ ]] || die "PROFILE must be 0 or 1, not '$PROFILE'"
	check_new_results
}

# make soak's. FILESYSTEMS left empty is every plug-in.
soak_settings() {
	local spec
	setting CLOCK
	settings soak SOAK_KERNELS FILESYSTEMS RUNS INSTANCES FIRST_SEED NAME \
		CRASH_CYCLES CRASH_OPS
	boot_settings soak
	build_settings
	check_some SOAK_KERNELS "$SOAK_KERNELS"
	for spec in $SOAK_KERNELS; do
		[[ $spec =~ :[1-9][0-9]*$ ]] ||
			die "SOAK_KERNELS: '$spec' is not LABEL=BZIMAGE:OPS"
		kernel_spec SOAK_KERNELS "${spec%:*}"
	done
	if [ -z "$FILESYSTEMS" ]; then
		FILESYSTEMS=$(fs_plugins | paste -sd' ')
	fi
	check_filesystems FILESYSTEMS "$FILESYSTEMS"
	check_int RUNS "$RUNS" 1
	check_int INSTANCES "$INSTANCES" 1
	check_int FIRST_SEED "$FIRST_SEED" 1
	check_int CRASH_CYCLES "$CRASH_CYCLES" 0
	check_int CRASH_OPS "$CRASH_OPS" 16
	check_new_results
}

# replay_settings: make replay's (host/run-replay.sh).
replay_settings() {
	local item
	setting CLOCK
	settings replay REPLAY_LOGS REPLAY_FS REPLAY_KERNELS REPLAY_SIMPLE_READ NAME
	boot_settings replay
	build_settings
	check_some REPLAY_LOGS "$REPLAY_LOGS"
	for item in $REPLAY_LOGS; do
		[ -e "$item" ] || die "REPLAY_LOGS: no file or folder '$item'"
	done
	[ -n "$(replay_logs)" ] || die "REPLAY_LOGS: no log in '$REPLAY_LOGS'"
	check_filesystems REPLAY_FS "$REPLAY_FS"
	[ "$(wc -w <<<"$REPLAY_FS")" -eq 1 ] || die "REPLAY_FS: one filesystem, not '$REPLAY_FS'"
	check_kernels REPLAY_KERNELS
	check_words REPLAY_SIMPLE_READ "$REPLAY_SIMPLE_READ" 0 1
	check_new_results
}

# replay_logs: the logs REPLAY_LOGS names, one path a line: its files, and
# the *.shrunk files below its folders.
replay_logs() {
	local item
	for item in $REPLAY_LOGS; do
		if [ -d "$item" ]; then
			find "$item" -name '*.shrunk' -type f | sort
		else
			echo "$item"
		fi
	done
}

# check_command_line NAME...: each NAME, a variable given on make's command
# line, is a setting of config/defaults.mk (with or without a scope: NAME
# has only bench.NAME, soak.NAME, ...); else die naming the closest.
check_command_line() {
	local var closest names
	names=$(printf '%s\n' "${!DEFAULTS[@]}" | sed 's/.*\.//' | sort -u)
	for var; do
		grep -qxF "$var" <<<"$names" && continue
		# shellcheck disable=SC2086 # one setting a word
		closest=$(python3 -c 'import difflib, sys
print(" or ".join(difflib.get_close_matches(sys.argv[1], sys.argv[2:], 2, 0.6)))' \
			"$var" $names)
		die "$var is no setting (config/defaults.mk)${closest:+: did you mean $closest?}"
	done
}
