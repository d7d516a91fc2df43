# shellcheck shell=sh
# Counting the reads the simple direct-I/O read path serves, with its trace
# point iomap:iomap_dio_simple_read. Sourced by the test suite (tests/lib.sh)
# and the bench (bench/run-guest.sh); the initramfs holds it at
# /lib/iomap/trace.sh.

TRACING=/sys/kernel/tracing

# simple_read_events 1|0: turn the trace point on or off; fails when the
# kernel has no such trace point.
simple_read_events() {
	echo "$1" 2>/dev/null >$TRACING/events/iomap/iomap_dio_simple_read/enable
}

# trace_start: empty the trace buffer and start recording.
trace_start() {
	echo 0 >$TRACING/tracing_on
	echo >$TRACING/trace
	echo 1 >$TRACING/tracing_on
}

# trace_stop_tally PATTERN...: stop recording and print on one line how many
# lines traced since trace_start match each PATTERN (an extended regular
# expression), reading the buffer once: every read formats each event
# again, which takes long under icount when there are millions.
trace_stop_tally() {
	echo 0 >$TRACING/tracing_on
	awk '
		BEGIN {
			# The patterns are the arguments before the trace file.
			n = ARGC - 2
			for (i = 1; i <= n; i++) {
				pattern[i] = ARGV[i]
				ARGV[i] = ""
			}
		}
		{ for (i = 1; i <= n; i++) if ($0 ~ pattern[i]) count[i]++ }
		END {
			for (i = 1; i <= n; i++)
				printf "%d%s", count[i], i < n ? " " : "\n"
		}' "$@" $TRACING/trace
}

# trace_stop_count TEXT [EVENT]: stop recording and print how many EVENT
# lines (default iomap_dio_simple_read: the reads the simple path served)
# were traced since trace_start whose line also contains TEXT ("" counts
# them all).
trace_stop_count() {
	trace_stop_tally "${2:-iomap_dio_simple_read}:.*$1"
}
