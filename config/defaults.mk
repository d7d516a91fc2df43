# Every setting's default, and what the setting does, in one place.
#
# A value given in the environment or on make's command line wins over the
# default here. The Makefile includes this file; the scripts read it with
# host/common.sh's setting(), and host/settings.sh checks every value
# before anything is built (host/check-settings.sh COMMAND).
#
# Form: "NAME ?= VALUE", one a line, comments on lines of their own. A
# default that differs by command or mode has SCOPE.NAME lines beside
# NAME, and the most specific scope present wins:
#   make bench   bench.CLOCK.quick (QUICK=1), bench.quick (QUICK=1),
#                bench.CLOCK, bench, then NAME
#   make ladder  ladder, then the bench's
#   make bench-db, bench-seq, soak: db, seq, soak, then NAME
# An empty default means the rule its comment gives.
#
# A *_KERNELS setting lists LABEL=BZIMAGE items; BZIMAGE is a path, or
# "lean" or "debug" for the kernels make kernel and make kernel-debug build.

## Everywhere

# Tree, builds, ccache, disk images, logs/ (guest consoles, builds, QEMU
# command lines). Empty: $XDG_CACHE_HOME/iomap-dio, else ~/.cache/iomap-dio.
IOMAP_CACHE ?=
# The kernel source Debian ships (apt-get install linux-source-6.12).
LINUX_SOURCE ?= /usr/src/linux-source-6.12.tar.xz
# Kernel build parallelism. Empty: nproc.
JOBS ?=

## Booting a guest (host/boot.sh): make test, make shell and the benches

# kvm, tcg, or auto: KVM if a probe boot prints the kernel's banner.
IOMAP_ACCEL ?= auto
# realtime, or icount: single-threaded TCG with -icount shift=0,sleep=off,
# the guest clock advancing 1 ns per guest instruction and skipping idle
# time, so that on null_blk the bench counts instructions per I/O exactly
# (icount needs TCG). The database and sequential benches run only under
# icount.
CLOCK ?= realtime
bench.CLOCK ?= icount
# vCPUs and memory of the guest. make bench-db runs one vCPU whatever
# this says; the benches size memory from what null_blk holds when it is
# empty here.
GUEST_CPUS ?= 2
GUEST_MEM ?= 4G
bench.GUEST_MEM ?=
seq.GUEST_MEM ?=
# Extra kernel command line.
GUEST_APPEND ?=
# Seconds before a hung guest is killed: the lean kernel's suite takes
# about 11 minutes under TCG, the debug kernel's gets twice this. The
# benches compute their own from their settings.
BOOT_TIMEOUT ?= 2400
# The lean kernel the suite and the bench boot. Empty: the one make kernel
# built.
KERNEL_IMAGE ?=
# The series hash a saved KERNEL_IMAGE was built from (host/common.sh
# series_hash), which the bench's results record (make ladder sets it for
# each step). Empty: the built kernel's, or "not the built kernel" for
# another image.
KERNEL_SERIES ?=

## make test

# The kernels the suite boots: debug (guest.config + debug.config:
# lockdep, KASAN, sleep-in-atomic, list and object debugging; any report
# fails), lean (the bench's kernel), or both.
TEST_KERNELS ?= debug
# The tests to run, comma separated (guest/tests/t-*.sh without .sh).
# Empty: all.
TESTS ?=

## make stack-check

# Bytes a direct-I/O entry point's stack frame may grow over stock 6.12.
STACK_BOUND ?= 64

## make bench: the A/B sweep of /sys/kernel/iomap/simple_read

# 1: a smoke run of a few minutes, with the smaller quick defaults.
QUICK ?= 0
# Devices: nullb (memory-backed null_blk), nvme (QEMU's emulated NVMe).
bench.icount.DEVICES ?= nullb
bench.realtime.DEVICES ?= nullb nvme
# What fio reads: the raw device, or a file on a filesystem whose plug-in
# (guest/tests/fs/NAME.sh) lists dio in FS_BENCHES: ext4, xfs.
TARGETS ?= ext4 xfs raw
# fio engines: psync (run once, at QD 1, under icount; as synchronous jobs
# in realtime), libaio, io_uring, io_uring_poll (io_uring --hipri).
bench.icount.ENGINES ?= psync libaio io_uring io_uring_poll
bench.realtime.ENGINES ?= libaio io_uring io_uring_poll
bench.quick.ENGINES ?= io_uring
# Queue depths.
bench.icount.QDS ?= 1 64
bench.icount.quick.QDS ?= 64
bench.realtime.QDS ?= 1 16 64 128 256
bench.realtime.quick.QDS ?= 1 64
# Read sizes: 512 bytes to 1024k, multiples of 512.
bench.icount.BSS ?= 4k 512 8k 16k
bench.icount.quick.BSS ?= 4k
bench.realtime.BSS ?= 4k
# Runs per setting and cell, here and in make bench-db (the bench's median
# of three outvotes a run whose window caught a queue's worth of reads
# more or fewer: results/METHOD.md).
ROUNDS ?= 3
bench.realtime.quick.ROUNDS ?= 2
# Guest time measured per run and before it: fio's form (1s, 300ms) under
# icount, whole seconds in realtime.
bench.icount.RUNTIME ?= 500ms
bench.realtime.RUNTIME ?= 2
bench.icount.RAMP ?= 50ms
bench.realtime.RAMP ?= 1
# Test file size in MiB.
bench.icount.SIZE_MB ?= 256
bench.realtime.SIZE_MB ?= 1024
bench.realtime.quick.SIZE_MB ?= 256
# The ext4 and XFS test file's extents: fresh (one write of the whole file
# into an empty filesystem), or 4k, 64k or 1m: every extent that long,
# made by mkfrag (guest/tools/mkfrag.c) on a filesystem of 5/4 x (2 x
# SIZE_MB + 64 MiB). raw ignores it.
LAYOUT ?= fresh
# What fio reads into: spread (a tmpfs file whose pages mkbuf placed so
# that none follows its predecessor in memory, the same every run) or
# anon (fio's own anonymous memory, as an application's): results/METHOD.md,
# "The buffers".
BUFFERS ?= spread
# The vCPU fio and uring-peak run on, or none.
PIN ?= 0
# 1: the uring-peak runs too.
bench.icount.PEAK ?= 0
bench.realtime.PEAK ?= 1
# The profiles: the engine profiled, at its deepest QD of the sweep
# (psync: 1), and the read size, one of BSS of at least 4k.
PROFILE_ENGINE ?= io_uring
PROFILE_BS ?= 4k
# insn: exact instruction counts per instruction address from a QEMU
# plugin (host/qemu-plugin/insn-count.c), icount only; perf: sampling.
bench.icount.PROFILER ?= insn
bench.realtime.PROFILER ?= perf
# Reads in an exact profile's counts (twice as many must fit in SIZE_MB).
INSN_IOS ?= 20000
# Profiles per setting (0: none).
bench.icount.PROFILE_ROUNDS ?= 2
bench.realtime.PROFILE_ROUNDS ?= 1
# icount: guest ns (= instructions) between perf samples.
bench.icount.PROFILE_PERIOD ?= 20000
bench.realtime.PROFILE_PERIOD ?=
# Guest time of a profiled run. Empty: RUNTIME.
bench.icount.PROFILE_RUNTIME ?= 1s
bench.realtime.PROFILE_RUNTIME ?=
# The results folder, results/<date>-NAME. Left to its default, a second
# run on one day gets the next free -2, -3, ...
bench.NAME ?= full
bench.quick.NAME ?= quick
# The bench's results folder itself (make ladder puts each step in its
# own). Empty: results/<date>-NAME, with the next free -N suffix when no
# NAME was given.
RESULTS ?=

## make ladder: the bench at named points of the series

# The steps in series order, each stock (stock 6.12), a topic of
# patches/series (the series through it) or TOPIC/NNNN (through that
# topic's patch NNNN).
LADDER ?= stock iomap-next simple-read/0003 simple-read/0004 simple-read/0005 simple-read/0006 simple-read/0007 simple-read/0008 simple-read exfat
# 0: build the steps' kernels only.
LADDER_BENCH ?= 1
# The config fragments. Images of others than config/guest.config carry
# the fragments' hash; give such a ladder its own IOMAP_CACHE, or its
# build folder is reconfigured.
LADDER_FRAGMENTS ?= config/guest.config
# ccache directory of the builds. Empty: the cache's own.
LADDER_CCACHE ?=
# A cache directory whose linux/ and build/ paths the ladder's tree and
# build take, in a private mount namespace (root only), so that ccache
# entries of that cache's builds hit. Empty: none.
LADDER_ALIAS ?=
# A subset of the bench that keeps a step short.
ladder.ENGINES ?= psync io_uring io_uring_poll
ladder.QDS ?= 64
ladder.BSS ?= 4k
ladder.PROFILE_ROUNDS ?= 1
ladder.NAME ?= ladder

## make bench-db: MariaDB and sysbench, in guest instructions per query

DB_KERNELS ?= series=lean
# Filesystems whose guest/tests/fs/ plug-ins list db in FS_BENCHES: ext4,
# xfs.
FSES ?= ext4 xfs
# sysbench tables and rows per table (about 12 MiB of InnoDB data each).
TABLES ?= 4
TABLE_ROWS ?= 50000
# innodb_buffer_pool_size: a sixth of the tables.
BUFFER_POOL ?= 8M
# sysbench tests.
WORKLOADS ?= oltp_point_select oltp_read_only
# Guest seconds per run (10^9 instructions each).
RUN_SECONDS ?= 5
db.NAME ?= db

## make bench-seq: buffered sequential throughput, exfat or minix

SEQ_KERNELS ?= series=lean
# A filesystem whose plug-in (guest/tests/fs/NAME.sh) lists seq in
# FS_BENCHES: exfat, or minix.
FS ?= exfat
# Its variant, one of the plug-in's FS_VARIANTS (exfat: the cluster size in
# bytes; minix: the version, in 1 KiB blocks); empty: FS_BENCH_VARIANT
# (exfat 4096, minix 3).
VARIANT ?=
# MiB written and read per run, split over the writers.
FILE_MB ?= 256
# fio block size.
BS ?= 64k
# Numbers of fio jobs writing (then reading) at once, each a run.
WRITERS ?= 1 4
seq.ROUNDS ?= 2
# 1: a perf profile of each setting's first round.
PROFILE ?= 0
seq.NAME ?= seq

## make soak: the model tester over many seeds

# LABEL=BZIMAGE:OPS items, OPS the operations per filesystem.
SOAK_KERNELS ?= series=lean:1000000 debug=debug:100000
# Empty: every filesystem with a guest/tests/fs plug-in.
FILESYSTEMS ?=
# Runs per filesystem, each on its own seeds; fsmodel instances at once in
# a run; the first seed.
RUNS ?= 20
INSTANCES ?= 2
FIRST_SEED ?= 1
soak.NAME ?= soak
# Power cuts per filesystem after its fsmodel runs (guest/tests/crash.sh,
# seeds FIRST_SEED on), each after a point its seed picks in a workload of
# CRASH_OPS operations; 0: none.
CRASH_CYCLES ?= 20
CRASH_OPS ?= 250

## make replay: fsmodel logs run again on a fresh filesystem

# The logs: files, or folders whose *.shrunk files are taken (a soak's
# failures/ folder, or one failure's).
REPLAY_LOGS ?=
# The filesystem plug-in (guest/tests/fs/NAME.sh, its first variant) each
# log is replayed on, and the kernels (LABEL=BZIMAGE items).
REPLAY_FS ?= xfs
REPLAY_KERNELS ?= series=lean
# The values of /sys/kernel/iomap/simple_read each log is replayed with (a
# kernel without the switch replays each once).
REPLAY_SIMPLE_READ ?= 1 0
replay.NAME ?= replay
