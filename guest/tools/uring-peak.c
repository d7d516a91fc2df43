// SPDX-License-Identifier: GPL-2.0
/*
 * uring-peak: the highest 4 KiB O_DIRECT random-read rate one thread can
 * drive through io_uring, with as little user-space work per I/O as
 * io_uring allows, so that what is left is the kernel's read path.
 *
 *   uring-peak [-d depth] [-b batch] [-t seconds] [-p] [-s bytes] FILE
 *
 * FILE is a regular file or a block device, read at random 4 KiB-aligned
 * offsets below its size (or -s bytes). The file is registered and every
 * slot reads into a registered buffer (READ_FIXED on a fixed file), up to
 * -b submissions go in per io_uring_enter and completions are reaped in
 * batches; -p sets up the ring with IORING_SETUP_IOPOLL, so completions
 * are polled from the device instead of signalled by interrupts.
 *
 * Prints one line of key=value pairs: iops, ios, seconds, the thread's
 * CPU time per I/O (user+system, from getrusage) and the settings.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <liburing.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define BS 4096u

static void die(const char *what, int err)
{
	fprintf(stderr, "uring-peak: %s: %s\n", what, strerror(err));
	exit(1);
}

static void usage(void)
{
	fprintf(stderr, "usage: uring-peak [-d depth] [-b batch] [-t seconds]"
		" [-p] [-s bytes] FILE\n");
	exit(2);
}

static unsigned long parse_num(const char *s)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || end == s || *end || v == 0)
		usage();
	return v;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* xorshift64*: cheap enough that offset generation costs nothing. */
static uint64_t next_rand(uint64_t *state)
{
	uint64_t x = *state;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*state = x;
	return x * 0x2545f4914f6cdd1dULL;
}

static uint64_t file_size(int fd)
{
	struct stat st;
	uint64_t bytes;

	if (fstat(fd, &st))
		die("fstat", errno);
	if (S_ISBLK(st.st_mode)) {
		if (ioctl(fd, BLKGETSIZE64, &bytes))
			die("BLKGETSIZE64", errno);
		return bytes;
	}
	return st.st_size;
}

int main(int argc, char **argv)
{
	unsigned int depth = 128, batch = 32, seconds = 5, inflight = 0;
	unsigned int flags = 0, nfree, i, *free_slots;
	uint64_t limit = 0, nblocks, ios = 0, rng;
	struct io_uring ring;
	struct iovec *iov;
	struct rusage ru;
	double start, elapsed, cpu;
	int opt, fd, ret;

	while ((opt = getopt(argc, argv, "d:b:t:ps:")) != -1) {
		switch (opt) {
		case 'd': depth = parse_num(optarg); break;
		case 'b': batch = parse_num(optarg); break;
		case 't': seconds = parse_num(optarg); break;
		case 'p': flags |= IORING_SETUP_IOPOLL; break;
		case 's': limit = parse_num(optarg); break;
		default: usage();
		}
	}
	if (optind != argc - 1)
		usage();
	if (batch > depth)
		batch = depth;

	fd = open(argv[optind], O_RDONLY | O_DIRECT);
	if (fd < 0)
		die(argv[optind], errno);
	nblocks = file_size(fd);
	if (limit && limit < nblocks)
		nblocks = limit;
	nblocks /= BS;
	if (!nblocks) {
		fprintf(stderr, "uring-peak: %s is smaller than 4 KiB\n",
			argv[optind]);
		return 1;
	}

	ret = io_uring_queue_init(depth, &ring, flags);
	if (ret)
		die("io_uring_queue_init", -ret);
	ret = io_uring_register_files(&ring, &fd, 1);
	if (ret)
		die("io_uring_register_files", -ret);
	iov = calloc(depth, sizeof(*iov));
	if (!iov)
		die("calloc", ENOMEM);
	for (i = 0; i < depth; i++) {
		if (posix_memalign(&iov[i].iov_base, BS, BS))
			die("posix_memalign", ENOMEM);
		iov[i].iov_len = BS;
	}
	ret = io_uring_register_buffers(&ring, iov, depth);
	if (ret)
		die("io_uring_register_buffers", -ret);

	/*
	 * Slot k reads into buffer k; its index travels in user_data, so a
	 * completion tells which buffer is free to reuse. Slots freed by one
	 * reap go out again in the next enter, which also waits for the next
	 * batch of completions.
	 */
	free_slots = malloc(depth * sizeof(*free_slots));
	if (!free_slots)
		die("malloc", ENOMEM);
	for (i = 0; i < depth; i++)
		free_slots[i] = i;
	nfree = depth;

	rng = (uint64_t)now() * 0x9e3779b97f4a7c15ULL | 1;
	start = now();
	elapsed = 0;
	for (;;) {
		struct io_uring_cqe *cqes[64];
		unsigned int n, want, stop = elapsed >= seconds;

		while (!stop && nfree) {
			struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);
			unsigned int slot = free_slots[--nfree];
			uint64_t off = next_rand(&rng) % nblocks * BS;

			io_uring_prep_read_fixed(sqe, 0, iov[slot].iov_base,
						 BS, off, slot);
			sqe->flags |= IOSQE_FIXED_FILE;
			io_uring_sqe_set_data64(sqe, slot);
			inflight++;
		}
		if (!inflight)
			break;
		want = stop ? inflight : (batch < inflight ? batch : inflight);
		ret = io_uring_submit_and_wait(&ring, want);
		if (ret < 0 && ret != -EINTR)
			die("io_uring_submit_and_wait", -ret);
		while ((n = io_uring_peek_batch_cqe(&ring, cqes, 64))) {
			for (i = 0; i < n; i++) {
				if (cqes[i]->res != (int)BS) {
					fprintf(stderr, "uring-peak: read returned"
						" %d\n", cqes[i]->res);
					return 1;
				}
				free_slots[nfree++] = cqes[i]->user_data;
			}
			io_uring_cq_advance(&ring, n);
			inflight -= n;
			ios += n;
		}
		elapsed = now() - start;
	}

	getrusage(RUSAGE_SELF, &ru);
	cpu = ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
	      ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
	printf("iops=%.0f ios=%" PRIu64 " seconds=%.3f cpu_us_per_io=%.3f"
	       " depth=%u batch=%u iopoll=%d\n", ios / elapsed, ios, elapsed,
	       cpu * 1e6 / ios, depth, batch, !!(flags & IORING_SETUP_IOPOLL));
	io_uring_queue_exit(&ring);
	return 0;
}
