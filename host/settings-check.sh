#!/usr/bin/env bash
# make check's settings step: every command's defaults (config/defaults.mk)
# pass its checks (host/settings.sh), and a bad value of each kind fails
# them, so before anything is built; and a second run on one cache waits
# for the first. Each case runs in a clean environment; the last line is
# "N passed, N failed".
set -euo pipefail
# shellcheck source=host/common.sh
. "$(dirname "$0")/common.sh"

passed=0 failed=0

# expect ok|fail COMMAND [NAME=VALUE...]: check-settings.sh COMMAND with
# those settings alone succeeds, or fails naming the last one given.
expect() {
	local want=$1 command=$2 got=ok error last
	shift 2
	error=$(env -i PATH="$PATH" HOME="$HOME" IOMAP_CACHE="$CACHE_DIR" "$@" \
		"$REPO_DIR/host/check-settings.sh" "$command" 2>&1 >/dev/null) || got=fail
	last=${*: -1}
	last=${last%%=*}
	if [ "$got" = fail ] && [ -n "$last" ] && [[ $error != *"$last"* ]]; then
		got="fail without naming $last: $error"
	fi
	if [ "$got" = "$want" ]; then
		passed=$((passed + 1))
		echo "ok $((passed + failed)) $command $* ($want)"
	else
		failed=$((failed + 1))
		echo "not ok $((passed + failed)) $command $*: $got, want $want"
	fi
}

for command in test bench ladder seq soak; do
	expect ok "$command"
done
# The database bench's WORKLOADS are sysbench's scripts, there once
# host/install-deps.sh db has run.
if [ -d /usr/share/sysbench ]; then
	expect ok db
	expect fail db WORKLOADS=oltp_nothing
	expect fail db FSES=exfat
fi
expect ok bench CLOCK=realtime QUICK=1
expect ok bench QUICK=1 BSS=4k
expect ok seq SEQ_KERNELS="a=lean b=debug" FS=minix
expect ok test TEST_KERNELS="lean debug" TESTS=t-10-dio-read,t-60-minix

expect fail test TESTS=t-99-none
expect fail test TEST_KERNELS=huge
expect fail test JOBS=0
expect fail test GUEST_MEM=4
expect fail test IOMAP_ACCEL=qemu
expect fail bench CLOCK=wall
expect fail bench CLOCK=icount IOMAP_ACCEL=kvm
expect fail bench QUICK=2
expect fail bench BSS=3k
expect fail bench RUNTIME=0ms
expect fail bench CLOCK=realtime RUNTIME=500ms
expect fail bench SIZE_MB=big
expect fail bench PIN=2
expect fail bench NAME=a/b
expect fail ladder LADDER=no-such-topic
expect fail ladder CLOCK=realtime
expect fail seq FS=ext4
expect fail seq FS=exfat VARIANT=3
expect ok seq FS=minix VARIANT=2
expect fail bench TARGETS="ext4 minix"
expect fail seq BS=4q
expect fail seq CLOCK=realtime
expect fail soak SOAK_KERNELS=a=lean
expect fail soak FILESYSTEMS=zfs
expect fail soak CRASH_OPS=3
expect fail db DB_KERNELS=no-label
expect ok replay REPLAY_LOGS=results/2026-12-05-soak/series/failures/xfs-1
expect fail replay REPLAY_LOGS=results/no-such-run
expect fail replay REPLAY_LOGS=results/2026-12-05-soak REPLAY_FS=zfs
expect fail replay REPLAY_LOGS=results/2026-12-05-soak REPLAY_SIMPLE_READ=2
# expect_make_fail WHAT ARG...: make ARG... (in a clean environment, on a
# cache folder that does not exist) fails within 5 seconds naming WHAT,
# before any step that builds or installs: the cache folder is not made.
expect_make_fail() {
	local what=$1 got=ok error cache
	shift
	cache=$(mktemp -u)
	error=$(env -i PATH="$PATH" HOME="$HOME" IOMAP_CACHE="$cache" \
		timeout 5 make -s -C "$REPO_DIR" "$@" 2>&1 >/dev/null) || got=fail
	if [ "$got" = ok ]; then
		got="it succeeded"
	elif [ -e "$cache" ]; then
		got="it made $cache before failing"
		rm -rf "$cache"
	elif [[ $error != *"$what"* ]]; then
		got="fail without naming $what: $error"
	fi
	if [ "$got" = fail ]; then
		passed=$((passed + 1))
		echo "ok $((passed + failed)) make $* (fails at once)"
	else
		failed=$((failed + 1))
		echo "not ok $((passed + failed)) make $*: $got"
	fi
}

for name in lib soak run-suite fs/ext4 ../bench/run-guest; do
	expect fail test TESTS="$name"
done
expect_make_fail TESTS -j4 test TESTS=t-99-none
expect_make_fail "did you mean TESTS" -j4 test TEST=t-10-dio-read
expect_make_fail "did you mean TEST_KERNELS" test TESTKERNELS=lean
expect_make_fail SOAK_KERNELS -j4 soak SOAK_KERNELS=a=lean
expect_make_fail REPLAY_LOGS -j4 replay
# A setting that has only scoped defaults (bench.NAME, ...) is a setting.
if env -i PATH="$PATH" HOME="$HOME" make -n -s -C "$REPO_DIR" bench NAME=x QUICK=1 >/dev/null 2>&1; then
	passed=$((passed + 1))
	echo "ok $((passed + failed)) make bench NAME=x: NAME is a setting"
else
	failed=$((failed + 1))
	echo "not ok $((passed + failed)) make bench NAME=x: NAME taken for no setting"
fi
# A second run on a cache another run holds waits for it: a boot on a
# cache whose lock is held says whose and is still waiting after 3
# seconds; once the lock is free, the same boot goes on (and stops at
# the missing kernel of the empty cache).
cache=$(mktemp -d)
echo "a run for the check, pid 1" >"$cache/run.owner"
flock "$cache/run.lock" sleep 6 &
holder=$!
sleep 0.5
out=$(env -i PATH="$PATH" HOME="$HOME" IOMAP_CACHE="$cache" \
	timeout 3 "$REPO_DIR/host/boot.sh" shell 2>&1) && status=0 || status=$?
wait "$holder"
after=$(env -i PATH="$PATH" HOME="$HOME" IOMAP_CACHE="$cache" \
	timeout 3 "$REPO_DIR/host/boot.sh" shell 2>&1) || true
rm -rf "$cache"
if [ "$status" = 124 ] && [[ $out == *"waiting for the run that holds"*"a run for the check"* ]] &&
	[[ $after == *"no kernel at"* ]]; then
	passed=$((passed + 1))
	echo "ok $((passed + failed)) a second run on one cache waits for the first"
else
	failed=$((failed + 1))
	echo "not ok $((passed + failed)) a second run on one cache waits for the first: $status, $out; then: $after"
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
