# shellcheck shell=sh
# The O_DIRECT read engines, by fio's names: psync, libaio, io_uring and
# io_uring_poll (io_uring with polled completions, fio --hipri). The suite
# runs dio-check's engines of these names (guest/tools/dio-check.c), the
# bench fio's (guest/bench/run-guest.sh), and host/settings.sh checks the
# bench's ENGINES against the list. Sourced in the guest from
# /lib/iomap/engines.sh.
# shellcheck disable=SC2034 # read by whoever sources this
DIO_ENGINES="psync libaio io_uring io_uring_poll"
