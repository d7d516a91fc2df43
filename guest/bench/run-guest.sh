# shellcheck shell=sh
# The bench, run inside the guest by /init (iomap.run=bench). The host's
# host/run-bench.sh exports a directory over 9p (tag "out") holding
# bench.conf, which this script sources; everything measured goes back
# there raw, and the host turns it into results/ (host/report/report.py).
#
# For each device, target (raw, or a filesystem made by its plug-in), read
# size, fio engine and queue depth, a "cell" runs fio ROUNDS times with
# /sys/kernel/iomap/simple_read=0 and ROUNDS times with 1, interleaved ABBA
# (0,1,1,0,0,1,...), so that slow drift of the host (TCG on a shared
# machine) hits both settings alike. Then, on the same file, the uring-peak
# tool the same way (PEAK=1), and for ext4 and xfs a perf profile with each
# setting at the highest queue depth.
#
# CLOCK=icount (QEMU -icount shift=0,sleep=off): guest time is guest
# instructions, so a run is measured by fio alone (no /proc/stat window,
# whose snapshots would run on the other vCPU and add to the clock), raw
# runs once per round (simple_read cannot change it), psync once, at QD 1
# (host/run-bench.sh's list of cells, CELLS), and the profiles
# sample every PROFILE_PERIOD ns of guest time, i.e. every PROFILE_PERIOD
# instructions, PROFILE_ROUNDS times each, raw included. With PROFILER=insn
# (icount only) the profiles are exact instead: the host's QEMU plugin
# counts every instruction, and insn-mark brackets two fio runs of
# INSN_IOS and 2 x INSN_IOS reads, whose difference is INSN_IOS reads'
# worth of instructions, start-up and exit cancelled (insn_profile).

SIMPLE=/sys/kernel/iomap/simple_read
MNT=/mnt/bench
# shellcheck source=guest/lib/share.sh
. /lib/iomap/share.sh
# shellcheck source=guest/lib/trace.sh
. /lib/iomap/trace.sh
# shellcheck source=guest/lib/units.sh
. /lib/iomap/units.sh
# shellcheck source=guest/lib/bench-fs.sh
. /lib/iomap/bench-fs.sh

# Every setting comes from the host (host/run-bench.sh holds the defaults);
# PROFILE_PERIOD is empty in realtime mode.
share_open bench bench.conf DEVICES TARGETS CLOCK CELLS BSS ROUNDS \
	RUNTIME RAMP SIZE_MB LAYOUT LAYOUT_FS_MB BUFFERS PIN PEAK_QD PROFILE_ENGINE PROFILE_QD PROFILE_ROUNDS \
	PROFILE_RUNTIME PEAK PROFILER INSN_IOS PROFILE_BS || exit 1
mkdir -p $MNT $OUT/fio $OUT/stat $OUT/peak $OUT/perf
# Without address-space randomisation fio's buffers sit at the same
# addresses in every run, so a read spans the same pages every time.
echo 0 >/proc/sys/kernel/randomize_va_space
# A kernel without the switch (stock 6.12, or the series before the
# simple path) has only the normal path: it runs as simple_read=0.
HAVE_SIMPLE=1
[ -w $SIMPLE ] || HAVE_SIMPLE=0

# set_simple 0|1: the setting of the next runs.
set_simple() {
	[ "$HAVE_SIMPLE" = 0 ] || echo "$1" >$SIMPLE
}
: >$OUT/errors.txt
: >$OUT/path-check.txt

# Failures are recorded and the run goes on, so that one broken cell does
# not cost the others; the host fails the run when errors.txt is not empty.
error() {
	echo "[bench] ERROR $*"
	echo "$*" >>$OUT/errors.txt
}

count() {
	echo $#
}

dev_name() {
	case "$1" in
	nvme) echo nvme1n1 ;;
	nullb) echo nullb0 ;;
	esac
}

# fio and uring-peak run on one vCPU unless PIN=none, as the upstream
# numbers were taken under taskset.
# perf then samples that vCPU alone, not the other one idling.
if [ "$PIN" = none ]; then
	fio_pin=
	taskset_pin=
	perf_cpus=-a
else
	fio_pin=--cpus_allowed=$PIN
	taskset_pin="taskset -c $PIN"
	perf_cpus="-C $PIN"
fi

# The system-wide CPU window of a run starts RAMP seconds after fio starts
# (fio's start-up and its ramp overlap that wait) and ends half a second
# before the run does, so it lies in the steady part of the run.
WINDOW=$(awk -v r="$RUNTIME" 'BEGIN { print r - 0.5 }')

# snap DEVNAME: the aggregate cpu line of /proc/stat and the device's line
# of /proc/diskstats, one end of the system-wide CPU-per-I/O window.
snap() {
	head -n 1 /proc/stat
	awk -v d="$1" '$3 == d' /proc/diskstats
}

# order ROUND: the simple_read settings of one round, ABBA over rounds.
order() {
	if [ $(($1 % 2)) -eq 1 ]; then echo "0 1"; else echo "1 0"; fi
}

# fio_job FILE ENGINE QD LENGTH [BS]: the fio options of one O_DIRECT
# random-read run of BS (4k) reads (the measured runs and the profiled
# ones alike), for LENGTH: a time after RAMP, or ios=N, N reads from the
# start. psync has one read in flight per job, so its QD is a number of
# jobs.
fio_job() {
	echo --name=randread --filename="$1" --rw=randread --bs="${5:-4k}" \
		--direct=1 --size="${SIZE_MB}M" --iodepth="$3" --norandommap \
		--randrepeat=0 --lat_percentiles=1 "$fio_pin"
	[ "$BUFFERS" = anon ] || echo --iomem=mmapshared:$FIO_BUFFER
	case "$4" in
	ios=*) echo --number_ios="${4#ios=}" ;;
	*) echo --time_based --runtime="$4" --ramp_time="$RAMP" ;;
	esac
	case "$2" in
	libaio) echo --ioengine=libaio ;;
	io_uring) echo --ioengine=io_uring ;;
	io_uring_poll) echo --ioengine=io_uring --hipri ;;
	psync) echo --ioengine=psync --numjobs="$3" --group_reporting ;;
	esac
}

# run_fio TAG ENGINE QD BS: one measured run on $file; its JSON goes to
# fio/TAG.json, the /proc/stat and diskstats snapshots to stat/TAG
# (realtime only).
run_fio() {
	tag=$1
	if [ "$CLOCK" = icount ]; then
		# shellcheck disable=SC2046 # fio_job prints a list of words
		fio $(fio_job "$file" "$2" "$3" "$RUNTIME" "$4") \
			--output-format=json --output="$OUT/fio/$tag.json" \
			>/dev/null 2>/tmp/fio.err ||
			error "fio $tag: $(tail -n 2 /tmp/fio.err | tr '\n' ' ')"
		return
	fi
	# shellcheck disable=SC2046 # fio_job prints a list of words
	fio $(fio_job "$file" "$2" "$3" "$RUNTIME" "$4") --output-format=json \
		--output="$OUT/fio/$tag.json" >/dev/null 2>/tmp/fio.err &
	pid=$!
	sleep "$RAMP"
	snap "$devname" >"$OUT/stat/$tag"
	sleep "$WINDOW"
	echo --- >>"$OUT/stat/$tag"
	snap "$devname" >>"$OUT/stat/$tag"
	if ! wait $pid; then
		error "fio $tag: $(tail -n 2 /tmp/fio.err | tr '\n' ' ')"
		rm -f "$OUT/fio/$tag.json" "$OUT/stat/$tag"
	fi
}

# prepare TARGET: a fresh filesystem, made by its plug-in
# (/lib/iomap/bench-fs.sh), with a fully written test file of SIZE_MB laid
# out as LAYOUT says (or, raw, the device's first SIZE_MB written), once
# per target and device; sets $file.
prepare() {
	umount $MNT 2>/dev/null
	if [ "$1" = raw ]; then
		file=$dev
	else
		# mkfrag writes all of the filesystem once: it gets
		# LAYOUT_FS_MB (host/run-bench.sh), not the whole device.
		fs_mb=
		[ "$LAYOUT" = fresh ] || fs_mb=$LAYOUT_FS_MB
		bench_fs "$1" "$dev"
		# shellcheck disable=SC2086 # no MB for a fresh file
		fs_bench_mkfs "$FS_BENCH_VARIANT" $fs_mb || return 1
		mount -t "$FS_TYPE" -o noatime "$dev" $MNT || return 1
		file=$MNT/testfile
	fi
	if [ "$1" = raw ] || [ "$LAYOUT" = fresh ]; then
		fio --name=fill --filename="$file" --rw=write --bs=1M \
			--direct=1 --size="${SIZE_MB}M" --ioengine=libaio \
			--iodepth=8 >/dev/null && sync
		return
	fi
	# Space the filesystem keeps back from files stays free when mkfrag's
	# spacer fills the rest, and in one piece: the test file would get
	# some of it. The plug-in's mkfs keeps none back for root.
	fs_bench_no_reserve $MNT || return 1
	mkfrag "$file" "${SIZE_MB}M" "$LAYOUT" && sync && layout_check
}

# layout_check: record the test file's extents as FIEMAP reports them
# (count, shortest, median and longest length in blocks, and how many are
# LAYOUT long), and fail unless none is shorter than LAYOUT and those of
# exactly LAYOUT hold 99.9% of the file at least: a filesystem that split
# the pieces, or merged many, would not be measuring the layout asked for.
# XFS may still find a few blocks beside a piece (what it keeps back per
# allocation group is a count, not a place): a 128 MiB file of 4 KiB
# pieces came out as 32752 extents, one of them 17 blocks long.
layout_check() {
	filefrag -v "$file" | awk -F: '/^ *[0-9]+:/ { print $4 + 0 }' |
		sort -n >/tmp/extents
	n=$(wc -l </tmp/extents)
	want=$(($(bytes "$LAYOUT") / 4096))
	exact=$(grep -cx "$want" /tmp/extents)
	summary="$label layout=$LAYOUT: $n extents of $(head -n 1 /tmp/extents)"
	summary="$summary/$(sed -n "$(((n + 1) / 2))p" /tmp/extents)"
	summary="$summary/$(tail -n 1 /tmp/extents) blocks (min/median/max),"
	summary="$summary $exact of $want blocks"
	echo "$summary" >>$OUT/layout.txt
	echo "[bench] $summary"
	[ "$(head -n 1 /tmp/extents)" -ge "$want" ] &&
		[ $((exact * want * 1000)) -ge $((SIZE_MB * 256 * 999)) ]
}

# path_check SIZES: count, with the iomap_dio_simple_read trace point, how
# many of 64 reads of each size the simple path served with each setting: the
# A/B is real only if that is 64 with simple_read=1 and 0 with 0 for reads
# of at most the filesystems' 4 KiB block, and 0 both ways on raw. Larger
# reads are counted, not checked: they take the simple path from
# simple-read/0009 on, where one mapping covers them (64 but for a read
# across an extent boundary), and the normal path on kernels before it.
path_check() {
	if [ "$HAVE_SIMPLE" = 0 ]; then
		echo "$label: no $SIMPLE in this kernel: the normal path only" \
			>>$OUT/path-check.txt
		return
	fi
	simple_read_events 1
	for bs in $1; do
		for s in 0 1; do
			echo $s >$SIMPLE
			trace_start
			fio --name=check --filename="$file" --rw=randread \
				--bs="$bs" --direct=1 --size="${SIZE_MB}M" \
				--ioengine=psync --number_ios=64 >/dev/null
			hits=$(trace_stop_count "")
			echo "$label bs=$bs simple_read=$s hits=$hits reads=64" \
				>>$OUT/path-check.txt
			want=0
			if [ "$s" = 1 ] && [ "$target" != raw ]; then
				[ "$(bytes "$bs")" -le 4096 ] || continue
				want=64
			fi
			[ "$hits" = $want ] || error "$label bs=$bs simple_read=$s:" \
				"the simple path served $hits of 64 reads, want $want"
		done
	done
	simple_read_events 0
}

# settings ROUND: the simple_read values of one round of a cell: ABBA over
# rounds, and under icount on raw only the one (the switch cannot change
# a raw read, and the count does not drift); 0 only without the switch.
settings() {
	if [ "$HAVE_SIMPLE" = 0 ]; then
		echo 0
	elif [ "$CLOCK" = icount ] && [ "$target" = raw ]; then
		echo 1
	else
		order "$1"
	fi
}

progress() {
	cell=$((cell + 1))
	elapsed=$(($(date +%s) - start))
	echo "[bench] cell $cell/$ncells $1 elapsed ${elapsed}s," \
		"~$((elapsed * (ncells - cell) / cell))s left"
}

# peak: uring-peak at the highest queue depth, polled where the device
# has poll queues, ROUNDS times per setting, ABBA.
peak() {
	poll=
	[ "$(cat /sys/block/"$devname"/queue/io_poll)" = 1 ] && poll=-p
	batch=$((PEAK_QD < 32 ? PEAK_QD : 32))
	for r in $(seq 1 "$ROUNDS"); do
		for s in $(order "$r"); do
			set_simple "$s"
			tag=$label-s$s-r$r
			# shellcheck disable=SC2086 # optional words
			$taskset_pin uring-peak -d "$PEAK_QD" -b $batch \
				-t "$RUNTIME" -s $((SIZE_MB * 1048576)) $poll \
				"$file" >"$OUT/peak/$tag.txt" 2>&1 ||
				error "uring-peak $tag: $(cat "$OUT/peak/$tag.txt")"
		done
	done
}

# profile_window NAME: icount: the steady part only. fio runs
# PROFILE_RUNTIME and 300 ms more; perf samples the pinned vCPU for
# PROFILE_RUNTIME, starting RAMP and 100 ms after fio does (guest time,
# that is fio's own instructions), so fio's start, ramp and exit stay out.
profile_window() {
	prof_ms=$(ms "$PROFILE_RUNTIME")
	# shellcheck disable=SC2046 # fio_job prints a list of words
	fio $(fio_job "$file" "$PROFILE_ENGINE" "$PROFILE_QD" \
		"$((prof_ms + 300))ms" "$PROFILE_BS") >/dev/null 2>/tmp/fio.err &
	fpid=$!
	sleep "$(awk -v m=$(($(ms "$RAMP") + 100)) 'BEGIN { print m / 1000 }')"
	# shellcheck disable=SC2086 # lists of words
	perf record -q $perf_cpus $sampling -e "$PERF_EVENT" -o /tmp/perf.data \
		-- sleep "$(awk -v m="$prof_ms" 'BEGIN { print m / 1000 }')" \
		>/dev/null 2>/tmp/perf.err ||
		error "perf record $1: $(tail -n 2 /tmp/perf.err)"
	wait $fpid || error "fio under perf $1: $(tail -n 2 /tmp/fio.err)"
}

# insn_profile NAME: insn-mark, fio of INSN_IOS reads, insn-mark, fio of
# twice as many, insn-mark: the host's plugin writes a snapshot of its
# counts at each mark, three per profile, in the order insn/order.txt lists
# the profiles.
insn_profile() {
	for n in "$INSN_IOS" $((2 * INSN_IOS)); do
		insn-mark
		# shellcheck disable=SC2046 # fio_job prints a list of words
		fio $(fio_job "$file" "$PROFILE_ENGINE" "$PROFILE_QD" "ios=$n" \
			"$PROFILE_BS") \
			>/dev/null 2>/tmp/fio.err ||
			error "fio $1 ($n reads): $(tail -n 2 /tmp/fio.err | tr '\n' ' ')"
	done
	insn-mark
	echo "$1" >>$OUT/insn/order.txt
}

# profile: perf record of PROFILE_ENGINE reads of PROFILE_BS at PROFILE_QD
# depth with each setting (raw: once); the report lists the top symbols,
# kernel ones resolved from /proc/kallsyms. Realtime: -g at 1000 Hz, one
# profile per setting, the whole fio run. icount: the steady part only
# (profile_window), no call chains, a sample every
# PROFILE_PERIOD ns of guest time (= instructions), PROFILE_ROUNDS profiles
# per setting (perf/LABEL-sS.txt, then -sS-p2.txt, ...), and the most
# sampled instruction addresses of each (perf/LABEL-sS-ips.txt), so that
# the host can check which symbol each really belongs to.
profile() {
	if [ "$CLOCK" = icount ]; then
		sampling="-c $PROFILE_PERIOD"
	else
		sampling="-g -F 1000"
	fi
	for s in $(if [ "$HAVE_SIMPLE" = 0 ]; then echo 0; elif
		[ "$target" = raw ]; then echo 1; else echo 0 1; fi); do
		set_simple "$s"
		for p in $(seq 1 "$PROFILE_ROUNDS"); do
			name=$label-s$s
			[ "$p" = 1 ] || name=$name-p$p
			if [ "$PROFILER" = insn ]; then
				insn_profile "$name"
				continue
			elif [ "$CLOCK" = icount ]; then
				profile_window "$name"
			else
				# shellcheck disable=SC2046,SC2086 # lists of words
				perf record -q $perf_cpus $sampling -e "$PERF_EVENT" \
					-o /tmp/perf.data -- fio $(fio_job "$file" \
					"$PROFILE_ENGINE" "$PROFILE_QD" "$PROFILE_RUNTIME" \
					"$PROFILE_BS") \
					>/dev/null 2>/tmp/perf.err ||
					error "perf record $name: $(tail -n 2 /tmp/perf.err)"
			fi
			# cut: the symbol column is as wide as the longest name.
			if perf report -i /tmp/perf.data --stdio --no-children \
				--sort sym -g none --percent-limit 0.2 \
				>/tmp/perf.txt 2>/tmp/perf.err; then
				cut -c1-100 /tmp/perf.txt >"$OUT/perf/$name.txt"
			else
				error "perf report $name: $(tail -n 2 /tmp/perf.err)"
			fi
			if [ "$CLOCK" = icount ]; then
				perf script -i /tmp/perf.data -F ip,sym 2>/dev/null |
					sort | uniq -c | sort -rn | head -n 40 \
					>"$OUT/perf/$name-ips.txt"
			fi
			rm -f /tmp/perf.data
		done
	done
}

# perf_setup: kernel symbols and samples for perf, the text symbols for
# the exact profiles (resolved on the host), and PERF_EVENT, the event perf
# really samples: under TCG there is no PMU and perf silently samples
# cpu-clock instead of cycles, so it is taken from a probe recording.
perf_setup() {
	echo 0 >/proc/sys/kernel/kptr_restrict
	if [ "$PROFILER" = insn ] && [ "$PROFILE_ROUNDS" != 0 ]; then
		mkdir -p $OUT/insn
		grep ' [tT] ' /proc/kallsyms >$OUT/insn/kallsyms.txt
	fi
	echo -1 >/proc/sys/kernel/perf_event_paranoid
	perf record -q -e cycles -o /tmp/probe.data true >/dev/null 2>&1
	PERF_EVENT=$(perf evlist -i /tmp/probe.data 2>/dev/null)
	PERF_EVENT=${PERF_EVENT:-cpu-clock}
	rm -f /tmp/probe.data
}

# guest_meta: what the guest runs with, for the report's metadata.
guest_meta() {
	echo "clock=$CLOCK"
	echo "simple_read_switch=$HAVE_SIMPLE"
	echo "guest_kernel=$(uname -r)"
	echo "guest_kernel_build=$(uname -v)"
	echo "guest_vcpus=$(nproc)"
	echo "guest_cpu_flags=$(grep -m1 '^flags' /proc/cpuinfo | cut -d: -f2)"
	echo "fio_version=$(fio --version)"
	echo "perf_event=$PERF_EVENT"
	if [ "$PIN" = none ]; then
		echo "guest_pinning=none: fio and uring-peak float over all vCPUs, perf -a"
	else
		echo "guest_pinning=fio cpus_allowed=$PIN, uring-peak taskset -c $PIN, perf -C $PIN"
	fi
	echo "guest_cmdline=$(cat /proc/cmdline)"
	for p in /sys/module/null_blk/parameters/*; do
		echo "null_blk.${p##*/}=$(cat "$p")"
	done
	echo "nvme.poll_queues=$(cat /sys/module/nvme/parameters/poll_queues)"
	# The report takes the profiles' depth from here.
	echo "profile_qd=$PROFILE_QD"
}

# fio_buffer: with BUFFERS=spread, fio reads into one file on tmpfs
# (FIO_BUFFER): the same pages in every run, none of them right after the
# page before it in memory (guest/tools/mkbuf.c), so a read of several
# pages always gets a bio_vec per page. In buffers of fio's own
# (BUFFERS=anon), pages that happened to be contiguous were merged, and a
# run of 16 KiB reads cost up to 110 instructions per read less than
# another (results/METHOD.md, "The buffers"). Room for the deepest queue of
# the largest reads. Says which in guest-meta.txt.
FIO_BUFFER=/tmp/fio-buffer
fio_buffer() {
	max_bs=0
	for bs in $BSS; do
		[ "$(bytes "$bs")" -le "$max_bs" ] || max_bs=$(bytes "$bs")
	done
	if [ "$BUFFERS" = anon ]; then
		echo "fio_buffer=fio's own anonymous memory (--iomem=malloc)" >>$OUT/guest-meta.txt
	elif made=$(mkbuf $FIO_BUFFER $((PEAK_QD * max_bs + 8192)) 2>&1); then
		echo "fio_buffer=$FIO_BUFFER: $made" >>$OUT/guest-meta.txt
	else
		error "$made"
		return 1
	fi
}

# null_blk's device for reads smaller than 4 KiB: nullb0 has a 4 KiB
# logical block (null_blk copies a read one logical block at a time, so a
# 512-byte block would make a 4 KiB read cost 8 lookups and copies); reads
# of 512 bytes need a 512-byte block, so they get nullb1, made here through
# configfs with nullb0's other parameters.
nullb512() {
	c=/sys/kernel/config/nullb/nullb1
	[ -d $c ] && return 0
	mount -t configfs none /sys/kernel/config 2>/dev/null
	mkdir $c || return 1
	for kv in blocksize=512 memory_backed=1 queue_mode=2 irqmode=0 \
		"size=$(($(cat /sys/module/null_blk/parameters/gb) * 1024))" \
		"submit_queues=$(cat /sys/module/null_blk/parameters/submit_queues)" \
		"poll_queues=$(cat /sys/module/null_blk/parameters/poll_queues)" \
		"hw_queue_depth=$(cat /sys/module/null_blk/parameters/hw_queue_depth)" \
		power=1; do
		echo "${kv#*=}" >"$c/${kv%%=*}" || return 1
	done
	echo "nullb1=configfs: $(for a in blocksize memory_backed queue_mode \
		irqmode size submit_queues poll_queues hw_queue_depth; do
		printf '%s=%s ' $a "$(cat $c/$a)"; done)" >>$OUT/guest-meta.txt
}

# groups DEVICE: the read sizes of BSS that run on one device, a line per
# device: on null_blk those below 4 KiB (nullb1) first, then the others
# (nullb0), so that the profiles, of PROFILE_BS (at least 4 KiB), come
# last, on nullb0.
groups() {
	small='' large=''
	for bs in $BSS; do
		if [ "$1" = nullb ] && [ "$(bytes "$bs")" -lt 4096 ]; then
			small="$small $bs"
		else
			large="$large $bs"
		fi
	done
	[ -z "$small" ] || echo "nullb1$small"
	[ -z "$large" ] || echo "$(dev_name "$1")$large"
}

# run_cells SIZES: the cells of the prepared target, for each read size
# of SIZES: each ENGINE:QD of CELLS (host/run-bench.sh makes the list),
# ROUNDS rounds of the round's settings.
run_cells() {
	for bs in $1; do
		for c in $CELLS; do
			engine=${c%:*} qd=${c#*:}
			for r in $(seq 1 "$ROUNDS"); do
				for s in $(settings "$r"); do
					set_simple "$s"
					run_fio "$label-$engine-bs$bs-qd$qd-s$s-r$r" \
						"$engine" "$qd" "$bs"
				done
			done
			progress "$label $engine bs$bs qd$qd"
		done
	done
}

# bench_target TARGET SIZES: TARGET on $dev: its test file, the path
# check, the cells of SIZES, and the peak and the profiles where SIZES
# hold PROFILE_BS.
# shellcheck disable=SC2086 # the lists split into words on purpose
bench_target() {
	label=$device-$1
	target=$1
	t0=$(date +%s)
	if ! prepare "$1"; then
		error "$label: could not make the test file on $dev"
		cell=$((cell + $(count $CELLS) * $(count $2)))
		return
	fi
	echo "[bench] $label ($devname): test file written in" \
		"$(($(date +%s) - t0))s"
	path_check "$2"
	run_cells "$2"
	case " $2 " in
	*" $PROFILE_BS "*)
		[ "$PEAK" = 0 ] || peak
		if [ "$PROFILE_ROUNDS" != 0 ] &&
			{ [ "$1" != raw ] || [ "$CLOCK" = icount ]; }; then
			profile
		fi
		;;
	esac
}

# bench_device DEVICE: every target on DEVICE's block devices, each with
# its read sizes (groups).
# shellcheck disable=SC2086 # the lists split into words on purpose
bench_device() {
	device=$1
	if [ "$1" = nullb ] && [ "$(groups nullb | head -n 1 | cut -d' ' -f1)" = nullb1 ]; then
		nullb512 || error "nullb: could not make nullb1 (512-byte blocks)"
	fi
	groups "$1" >/tmp/groups
	while read -r devname sizes; do
		dev=/dev/$devname
		if [ ! -b "$dev" ]; then
			error "$1: no block device $dev"
			cell=$((cell + $(count $CELLS) * $(count $sizes) * $(count $TARGETS)))
			continue
		fi
		# Polled and interrupt completions alike in /proc/diskstats.
		echo 1 >/sys/block/"$devname"/queue/iostats
		echo "$1.$devname.io_poll=$(cat /sys/block/"$devname"/queue/io_poll)" \
			"hw_queues=$(count /sys/block/"$devname"/mq/*)" \
			"logical_block=$(cat /sys/block/"$devname"/queue/logical_block_size)" \
			"sizes=$sizes" >>$OUT/guest-meta.txt
		for t in $TARGETS; do
			bench_target "$t" "$sizes"
		done
		umount $MNT 2>/dev/null
	done </tmp/groups
}

perf_setup
guest_meta >$OUT/guest-meta.txt
fio_buffer || exit 1
# shellcheck disable=SC2086 # the lists split into words on purpose
ncells=$(($(count $CELLS) * $(count $BSS) * $(count $TARGETS) * $(count $DEVICES)))
start=$(date +%s)
cell=0
echo "[bench] $ncells cells ($CLOCK): devices $DEVICES, targets $TARGETS," \
	"sizes $BSS, engine:QD $CELLS, $ROUNDS rounds of ${RAMP}+${RUNTIME}"
for d in $DEVICES; do
	bench_device "$d"
done
set_simple 1
echo "[bench] done in $(($(date +%s) - start))s, $(wc -l <$OUT/errors.txt) errors"
