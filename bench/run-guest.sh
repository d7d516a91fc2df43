# shellcheck shell=sh
# The bench, run inside the guest by /init (iomap.run=bench). The host's
# scripts/run-bench.sh exports a directory over 9p (tag "out") holding
# bench.conf, which this script sources; everything measured goes back
# there raw, and the host turns it into results/ (bench/report.py).
#
# For each device, target (ext4, xfs, raw), fio engine and queue depth, a
# "cell" runs fio ROUNDS times with /sys/kernel/iomap/simple_read=0 and
# ROUNDS times with 1, interleaved ABBA (0,1,1,0,0,1,...), so that slow
# drift of the host (TCG on a shared machine) hits both settings alike.
# Then, on the same file, the uring-peak tool the same way, and for ext4
# and xfs a perf profile with each setting at the highest queue depth.

OUT=/out
SIMPLE=/sys/kernel/iomap/simple_read
TRACE=/sys/kernel/tracing
MNT=/mnt/bench

mkdir -p $OUT $MNT
if ! mount -t 9p -o trans=virtio,version=9p2000.L out $OUT; then
	echo "[bench] cannot mount the 9p share: boot with GUEST_SHARE"
	exit 1
fi
# shellcheck source=/dev/null
. $OUT/bench.conf
mkdir -p $OUT/fio $OUT/stat $OUT/peak $OUT/perf
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

# fio_job FILE ENGINE QD SECONDS: the fio options of one 4 KiB O_DIRECT
# random-read run (the measured runs and the profiled ones alike).  psync
# has one read in flight per job, so its QD is a number of jobs.
fio_job() {
	echo --name=randread --filename="$1" --rw=randread --bs=4k --direct=1 \
		--size="${SIZE_MB}M" --iodepth="$3" --time_based \
		--runtime="$4" --ramp_time="$RAMP" --norandommap \
		--randrepeat=0 --lat_percentiles=1 "$fio_pin"
	case "$2" in
	libaio) echo --ioengine=libaio ;;
	io_uring) echo --ioengine=io_uring ;;
	io_uring_poll) echo --ioengine=io_uring --hipri ;;
	psync) echo --ioengine=psync --numjobs="$3" --group_reporting ;;
	esac
}

# run_fio TAG ENGINE QD: one measured run on $file; its JSON goes to
# fio/TAG.json, the /proc/stat and diskstats snapshots to stat/TAG.
run_fio() {
	tag=$1
	# shellcheck disable=SC2046 # fio_job prints a list of words
	fio $(fio_job "$file" "$2" "$3" "$RUNTIME") --output-format=json \
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

# prepare TARGET: a fresh filesystem with a preallocated, fully written
# test file of SIZE_MB (or, raw, the device's first SIZE_MB written), once
# per target and device; sets $file.
prepare() {
	umount $MNT 2>/dev/null
	case "$1" in
	raw) file=$dev ;;
	# Inode tables and journal initialised now: ext4lazyinit would
	# otherwise write them in the background during the measurements.
	ext4) mkfs.ext4 -q -F -b 4096 \
		-E lazy_itable_init=0,lazy_journal_init=0 "$dev" ;;
	xfs) mkfs.xfs -q -f -b size=4096 "$dev" ;;
	esac || return 1
	if [ "$1" != raw ]; then
		mount -t "$1" -o noatime "$dev" $MNT || return 1
		file=$MNT/testfile
	fi
	fio --name=fill --filename="$file" --rw=write --bs=1M --direct=1 \
		--size="${SIZE_MB}M" --ioengine=libaio --iodepth=8 >/dev/null &&
		sync
}

# path_check: count, with the iomap_dio_simple_read trace point, how many
# of 64 reads the simple path served with each setting: the A/B is real
# only if that is 64 with simple_read=1 and 0 with 0 (0 both ways on raw).
path_check() {
	echo 1 >$TRACE/events/iomap/iomap_dio_simple_read/enable
	for s in 0 1; do
		echo $s >$SIMPLE
		echo >$TRACE/trace
		echo 1 >$TRACE/tracing_on
		fio --name=check --filename="$file" --rw=randread --bs=4k \
			--direct=1 --size="${SIZE_MB}M" --ioengine=psync \
			--number_ios=64 >/dev/null
		echo 0 >$TRACE/tracing_on
		hits=$(grep -c 'iomap_dio_simple_read:' $TRACE/trace)
		echo "$label simple_read=$s hits=$hits reads=64" \
			>>$OUT/path-check.txt
		want=0
		[ "$s" = 1 ] && [ "$target" != raw ] && want=64
		[ "$hits" = $want ] || error "$label simple_read=$s:" \
			"the simple path served $hits of 64 reads, want $want"
	done
	echo 0 >$TRACE/events/iomap/iomap_dio_simple_read/enable
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
			echo "$s" >$SIMPLE
			tag=$label-s$s-r$r
			# shellcheck disable=SC2086 # optional words
			$taskset_pin uring-peak -d "$PEAK_QD" -b $batch \
				-t "$RUNTIME" -s $((SIZE_MB * 1048576)) $poll \
				"$file" >"$OUT/peak/$tag.txt" 2>&1 ||
				error "uring-peak $tag: $(cat "$OUT/peak/$tag.txt")"
		done
	done
}

# profile: perf record -g of PROFILE_ENGINE at the highest queue depth with each
# setting; the report lists the top symbols, kernel ones resolved from
# /proc/kallsyms.
profile() {
	for s in 0 1; do
		echo "$s" >$SIMPLE
		# shellcheck disable=SC2046,SC2086 # lists of words
		perf record -q $perf_cpus -g -e "$PERF_EVENT" -F 1000 \
			-o /tmp/perf.data -- fio $(fio_job "$file" "$PROFILE_ENGINE" \
			"$PEAK_QD" "$RUNTIME") >/dev/null 2>/tmp/perf.err ||
			error "perf record $label-s$s: $(tail -n 2 /tmp/perf.err)"
		# cut: the symbol column is as wide as the longest name.
		if perf report -i /tmp/perf.data --stdio --no-children \
			--sort sym -g none --percent-limit 0.2 \
			>/tmp/perf.txt 2>/tmp/perf.err; then
			cut -c1-100 /tmp/perf.txt >"$OUT/perf/$label-s$s.txt"
		else
			error "perf report $label-s$s: $(tail -n 2 /tmp/perf.err)"
		fi
		rm -f /tmp/perf.data
	done
}

# Kernel symbols for perf, and samples of the kernel for everyone.
echo 0 >/proc/sys/kernel/kptr_restrict
echo -1 >/proc/sys/kernel/perf_event_paranoid
# Under TCG there is no PMU and perf silently samples cpu-clock instead of
# cycles: take the event name from what a probe recording really used.
perf record -q -e cycles -o /tmp/probe.data true >/dev/null 2>&1
PERF_EVENT=$(perf evlist -i /tmp/probe.data 2>/dev/null)
PERF_EVENT=${PERF_EVENT:-cpu-clock}
rm -f /tmp/probe.data

{
	echo "guest_kernel=$(uname -r)"
	echo "guest_kernel_build=$(uname -v)"
	echo "guest_vcpus=$(nproc)"
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
} >$OUT/guest-meta.txt

# shellcheck disable=SC2086 # the lists split into words on purpose
{
	per_target=$(($(count $ENGINES) * $(count $QDS)))
	per_device=$((per_target * $(count $TARGETS)))
	ncells=$((per_device * $(count $DEVICES)))
}
start=$(date +%s)
cell=0
echo "[bench] $ncells cells: devices $DEVICES, targets $TARGETS," \
	"engines $ENGINES, QD $QDS, $ROUNDS rounds of ${RAMP}+${RUNTIME}s"

for device in $DEVICES; do
	devname=$(dev_name "$device")
	dev=/dev/$devname
	if [ ! -b "$dev" ]; then
		error "$device: no block device $dev"
		cell=$((cell + per_device))
		continue
	fi
	# Polled and interrupt completions alike in /proc/diskstats.
	echo 1 >/sys/block/"$devname"/queue/iostats
	echo "$device.io_poll=$(cat /sys/block/"$devname"/queue/io_poll)" \
		"hw_queues=$(count /sys/block/"$devname"/mq/*)" >>$OUT/guest-meta.txt
	for target in $TARGETS; do
		label=$device-$target
		t0=$(date +%s)
		if ! prepare "$target"; then
			error "$label: could not make the test file"
			cell=$((cell + per_target))
			continue
		fi
		echo "[bench] $label: test file written in $(($(date +%s) - t0))s"
		path_check
		for engine in $ENGINES; do
			for qd in $QDS; do
				for r in $(seq 1 "$ROUNDS"); do
					for s in $(order "$r"); do
						echo "$s" >$SIMPLE
						run_fio "$label-$engine-qd$qd-s$s-r$r" \
							"$engine" "$qd"
					done
				done
				progress "$label $engine qd$qd"
			done
		done
		peak
		[ "$target" = raw ] || profile
	done
	umount $MNT 2>/dev/null
done
echo 1 >$SIMPLE
echo "[bench] done in $(($(date +%s) - start))s, $(wc -l <$OUT/errors.txt) errors"
