# shellcheck shell=sh
# The sequential-throughput bench, run inside the guest by /init
# (iomap.run=seq). host/run-seq-bench.sh exports a directory over 9p (tag
# "out") holding seq.conf; this makes FS on null_blk (its plug-in's
# fs_bench_mkfs, /lib/iomap/bench-fs.sh) and, for each number
# of jobs, ROUNDS times: a buffered sequential write of FILE_MB in all
# (fsync at the end, so writeback counts), the page cache dropped, and a
# buffered sequential read of the same files, each fio run's JSON kept,
# and after each write the files' extents.

MNT=/mnt/seq
DEV=/dev/nullb0

# shellcheck source=guest/lib/share.sh
. /lib/iomap/share.sh
# shellcheck source=guest/lib/bench-fs.sh
. /lib/iomap/bench-fs.sh
# VARIANT may be empty: the plug-in's FS_BENCH_VARIANT.
share_open seq seq.conf FS FILE_MB BS WRITERS ROUNDS PROFILE || exit 1
mkdir -p $MNT $OUT/fio $OUT/frag
: >$OUT/errors.txt

error() {
	echo "[seq] ERROR $*"
	echo "$*" >>$OUT/errors.txt
}

bench_fs "$FS" $DEV
VARIANT=${VARIANT:-$FS_BENCH_VARIANT}
mkfs="$FS variant $VARIANT (fs_bench_mkfs of tests/fs/$FS.sh)"
if ! fs_bench_mkfs "$VARIANT" || ! mount -t "$FS_TYPE" $DEV $MNT; then
	error "cannot make and mount $mkfs on $DEV"
	exit 1
fi

# seq_run RW NJOBS ROUND: one fio run; its JSON goes to the share. With
# PROFILE=1 the first round runs under perf (every vCPU, a sample every
# 20000 ns of guest time, i.e. instructions), its report to the share.
seq_run() {
	out=$OUT/fio/$1-j$2-r$3.json
	perf=
	if [ "${PROFILE:-0}" = 1 ] && [ "$3" = 1 ]; then
		mkdir -p $OUT/perf
		perf="perf record -q -a -e cpu-clock -c 20000 -o /tmp/perf.data --"
	fi
	if ! $perf fio --name=seq --directory=$MNT --rw="$1" --bs="$BS" \
		--size=$((FILE_MB / $2))m --numjobs="$2" --ioengine=psync \
		--end_fsync=1 --group_reporting --output-format=json \
		--output="$out" >/dev/null 2>&1; then
		error "fio $1 jobs=$2 round=$3 failed"
	fi
	if [ -n "$perf" ]; then
		perf report -i /tmp/perf.data --kallsyms=/proc/kallsyms \
			--sort sym --stdio 2>/dev/null | grep -v '^#' | grep . |
			head -n 40 >"$OUT/perf/$1-j$2.txt"
	fi
}

for njobs in $WRITERS; do
	round=1
	while [ "$round" -le "$ROUNDS" ]; do
		echo "[seq] $mkfs: jobs=$njobs round=$round"
		seq_run write "$njobs" "$round"
		sync
		# How the writers' files were laid out: exfat and minix have
		# no FIEMAP, so filefrag maps each block with FIBMAP (on every
		# kernel).
		filefrag $MNT/seq.* >"$OUT/frag/j$njobs-r$round.txt" 2>&1
		echo 3 >/proc/sys/vm/drop_caches
		seq_run read "$njobs" "$round"
		rm -f $MNT/seq.*
		sync
		round=$((round + 1))
	done
done
{
	echo "guest_kernel=$(uname -r)"
	echo "guest_kernel_build=$(uname -v)"
	echo "guest_vcpus=$(nproc)"
	echo "fio_version=$(fio --version)"
	echo "mkfs=$mkfs"
} >$OUT/guest-meta.txt
umount $MNT
