# shellcheck shell=sh
# The database bench, run inside the guest by /init (iomap.run=db).
# host/run-db-bench.sh boots with two 9p shares: "out" (db.conf, results)
# and "hostroot", the host's root read-only, so that the host's installed
# MariaDB server and sysbench run here unchanged, in a chroot with tmpfs
# where they write. For each filesystem: make it on null_blk, create a
# database there (InnoDB, O_DIRECT, a buffer pool much smaller than the
# tables), fill it with sysbench, warm it, then run each workload ROUNDS
# times at each simple_read setting, interleaved, keeping sysbench's output
# and /proc/stat around each run; last, one traced run per setting counts
# the direct reads and those the simple path served.

ROOT=/sysroot
DEV=/dev/nullb0
SOCK=/run/mysqld/mysqld.sock
SIMPLE=/sys/kernel/iomap/simple_read

# shellcheck source=guest/lib/share.sh
. /lib/iomap/share.sh
# shellcheck source=guest/lib/trace.sh
. /lib/iomap/trace.sh
# shellcheck source=guest/lib/bench-fs.sh
. /lib/iomap/bench-fs.sh
share_open db db.conf FSES TABLES TABLE_ROWS BUFFER_POOL WORKLOADS \
	RUN_SECONDS ROUNDS || exit 1
: >$OUT/errors.txt

error() {
	echo "[db] ERROR $*"
	echo "$*" >>$OUT/errors.txt
}

# A kernel without the switch (stock 6.12) runs its one path as "stock".
if [ -w $SIMPLE ]; then
	settings="0 1"
else
	settings=stock
fi

# order ROUND: the settings of one round, ABBA over rounds, so that
# neither setting always runs first.
order() {
	if [ "$settings" = stock ]; then
		echo stock
	elif [ $(($1 % 2)) -eq 1 ]; then
		echo "0 1"
	else
		echo "1 0"
	fi
}

# in_root CMD...: run a program of the host's in the chroot.
in_root() {
	chroot $ROOT "$@"
}

mkdir -p $ROOT
if ! mount -t 9p -o trans=virtio,version=9p2000.L,ro,cache=loose \
	hostroot $ROOT; then
	error "cannot mount the host's root: boot with GUEST_HOSTROOT=1"
	exit 1
fi
for dir in proc sys dev; do
	mount -o bind /$dir $ROOT/$dir
done
mount -t tmpfs tmpfs $ROOT/tmp
mount -t tmpfs tmpfs $ROOT/run
mkdir -p $ROOT/run/mysqld
for prog in mariadbd mariadb-install-db mariadb mariadb-admin sysbench; do
	in_root sh -c "command -v $prog" >/dev/null ||
		error "the host has no $prog (host/install-deps.sh db)"
done
[ -s $OUT/errors.txt ] && exit 1

# The server's settings: a unix socket only (the guest kernel has no
# INET), InnoDB reading and writing its files with O_DIRECT, and nothing
# carried over from one start to the next.
cat >$ROOT/tmp/my.cnf <<CNF
[mysqld]
user=root
datadir=/mnt/db
socket=$SOCK
pid-file=/run/mysqld/mysqld.pid
log-error=/tmp/mysqld.err
skip-networking
skip-name-resolve
skip-log-bin
performance_schema=OFF
innodb_flush_method=O_DIRECT
innodb_buffer_pool_size=$BUFFER_POOL
innodb_log_file_size=32M
innodb_buffer_pool_load_at_startup=OFF
innodb_buffer_pool_dump_at_shutdown=OFF
[client]
socket=$SOCK
user=root
CNF

# server_start: start mariadbd on the mounted filesystem and wait until
# it answers (a minute of guest time at most).
server_start() {
	in_root mariadbd --defaults-file=/tmp/my.cnf &
	tries=0
	until in_root mariadb-admin --defaults-file=/tmp/my.cnf ping \
		>/dev/null 2>&1; do
		tries=$((tries + 1))
		if [ $tries -gt 60 ]; then
			error "mariadbd did not start: $(tail -n 5 $ROOT/tmp/mysqld.err)"
			return 1
		fi
		sleep 1
	done
}

server_stop() {
	in_root mariadb-admin --defaults-file=/tmp/my.cnf shutdown
	wait
}

# sb WORKLOAD ACTION [OPTION...]: sysbench on the test tables.
sb() {
	workload=$1 action=$2
	shift 2
	in_root sysbench "$workload" --db-driver=mysql --mysql-socket=$SOCK \
		--mysql-user=root --mysql-db=sbtest --tables="$TABLES" \
		--table-size="$TABLE_ROWS" --rand-type=uniform --threads=1 \
		"$@" "$action"
}

# measure FS WORKLOAD SETTING ROUND: one timed run, sysbench's report
# and the aggregate cpu line of /proc/stat before and after it.
measure() {
	out=$OUT/$1/$2-$3-r$4
	[ "$3" = stock ] || echo "$3" >$SIMPLE
	head -n 1 /proc/stat >"$out.stat"
	if ! sb "$2" run --time="$RUN_SECONDS" >"$out.txt" 2>&1; then
		error "$1 $2 simple_read=$3 round $4: sysbench failed"
	fi
	head -n 1 /proc/stat >>"$out.stat"
}

# traced FS WORKLOAD SETTING: a run with the direct-I/O trace points on,
# counting the direct reads and writes begun and the reads the simple path
# served; sysbench's report beside it gives the queries they served.
traced() {
	[ "$3" = stock ] || echo "$3" >$SIMPLE
	echo 65536 >$TRACING/buffer_size_kb
	echo 1 >$TRACING/events/iomap/iomap_dio_rw_begin/enable
	simple_read_events 1
	trace_start
	sb "$2" run --time="$RUN_SECONDS" >"$OUT/$1/$2-$3-traced.txt" 2>&1
	# iocb flags in the line tell writes from reads.
	read -r begun writes served <<EOF
$(trace_stop_tally iomap_dio_rw_begin: iomap_dio_rw_begin:.*WRITE \
		iomap_dio_simple_read:)
EOF
	lost=$(awk '/^overrun:/ { n += $2 } END { print n + 0 }' \
		$TRACING/per_cpu/cpu*/stats)
	echo "$1 $2 simple_read=$3 direct_reads=$((begun - writes))" \
		"simple=$served direct_writes=$writes overrun=$lost" >>$OUT/hits.txt
	echo 0 >$TRACING/events/iomap/iomap_dio_rw_begin/enable
	simple_read_events 0
	echo 1408 >$TRACING/buffer_size_kb
}

for fs in $FSES; do
	mkdir -p "$OUT/$fs"
	bench_fs "$fs" $DEV
	if ! fs_bench_mkfs "$FS_BENCH_VARIANT" >/dev/null 2>&1 ||
		! mount -t "$FS_TYPE" $DEV $ROOT/mnt; then
		error "cannot make and mount $fs on $DEV"
		continue
	fi
	echo "[db] $fs: creating the database"
	if ! in_root mariadb-install-db --defaults-file=/tmp/my.cnf \
		--auth-root-authentication-method=normal --skip-test-db \
		--skip-name-resolve \
		>"$OUT/$fs/install-db.txt" 2>&1; then
		error "$fs: mariadb-install-db failed"
	elif server_start; then
		in_root mariadb --defaults-file=/tmp/my.cnf \
			-e "CREATE DATABASE sbtest"
		# What the server runs with, as it reports it.
		in_root mariadb --defaults-file=/tmp/my.cnf -N -e "SHOW VARIABLES
			WHERE Variable_name IN ('innodb_flush_method',
			'innodb_buffer_pool_size', 'innodb_page_size',
			'innodb_use_native_aio', 'innodb_read_io_threads',
			'innodb_random_read_ahead', 'innodb_read_ahead_threshold',
			'version')" >"$OUT/$fs/server-variables.txt"
		echo "[db] $fs: filling $TABLES tables of $TABLE_ROWS rows"
		sb oltp_read_only prepare >"$OUT/$fs/prepare.txt" 2>&1 ||
			error "$fs: sysbench prepare failed"
		du -sk $ROOT/mnt/db/sbtest >"$OUT/$fs/data-size.txt"
		filefrag $ROOT/mnt/db/sbtest/*.ibd >"$OUT/$fs/filefrag.txt" 2>&1
		for workload in $WORKLOADS; do
			echo "[db] $fs $workload: warming up"
			sb "$workload" run --time="$RUN_SECONDS" >/dev/null 2>&1
			round=1
			while [ $round -le "$ROUNDS" ]; do
				for s in $(order $round); do
					echo "[db] $fs $workload simple_read=$s round $round"
					measure "$fs" "$workload" "$s" $round
				done
				round=$((round + 1))
			done
			for s in $settings; do
				traced "$fs" "$workload" "$s"
			done
		done
		server_stop
		cp $ROOT/tmp/mysqld.err "$OUT/$fs/mysqld.err"
	fi
	umount $ROOT/mnt
done

{
	echo "guest_kernel=$(uname -r)"
	echo "guest_kernel_build=$(uname -v)"
	echo "guest_vcpus=$(nproc)"
	echo "mariadb_version=$(in_root mariadbd --version)"
	echo "sysbench_version=$(in_root sysbench --version)"
	echo "settings=$settings"
} >$OUT/guest-meta.txt
