// SPDX-License-Identifier: GPL-2.0
/*
 * dio-check: write a known pattern into a file or device, and read it
 * back with O_DIRECT through pread, libaio or io_uring (optionally
 * polled), or through the page cache, checking the data, the length and
 * the error code of every read.
 *
 * The pattern: the 8-byte word at byte offset x holds x ^ seed, so any
 * byte read from the wrong place or left stale is caught.
 *
 *   dio-check fill   PATH OFFSET LENGTH SEED
 *   dio-check read   PATH OFFSET LENGTH ENGINE EXPECT [COUNT]
 *   dio-check hole-race PATH PAGES
 *   dio-check write  PATH OFFSET LENGTH ENGINE SEED
 *   dio-check bmap   PATH OFFSET
 *   dio-check mmap-dio PATH SRC LENGTH DST ENGINE
 *
 * ENGINE: psync, libaio, io_uring, io_uring_poll (all O_DIRECT; fio's names
 *         for them, as the bench uses), libaio-batch
 *         (O_DIRECT, the COUNT reads submitted at once with one io_submit
 *         and then reaped), buffered (pread through the page cache) or
 *         mmap (a copy from a shared read-only mapping of the range).
 *         More O_DIRECT engines, one per kind of iterator the kernel builds:
 *         readv (preadv, one segment), readv2 (preadv, two segments, the
 *         first crossing a page boundary; at least 1 KiB), nowait (preadv2
 *         with RWF_NOWAIT), nowait512 (the same into a buffer that
 *         starts 512 bytes into a page), io_uring_fixed (io_uring read
 *         into a registered buffer), io_uring_nowait (io_uring read with
 *         RWF_NOWAIT), splice
 *         (splice into a pipe), sendfile (into a memfd) and cfr
 *         (copy_file_range into PATH.cfr, opened O_DIRECT, then removed).
 * EXPECT: pattern:SEED  the data equals the pattern
 *         zero          the data is all zero bytes
 *         byte:V        every byte equals V
 *         zerofrom:N:SEED  the pattern up to byte N of the read, zeros after
 *         patternfrom:N:SEED  zeros up to byte N of the read, the pattern after
 *         short:N:SEED  the read returns N bytes of the pattern
 *         errno:NAME    the read fails with EINVAL, EIO, ...
 * COUNT repeats the read (for hit counting); default 1.
 *
 * hole-race makes PATH a hole of PAGES pages and fills a few bytes in the
 * second 1 KiB block of each page with buffered writes, page by page,
 * while a second thread drops each page from the page cache just before
 * it is written and reads it back buffered.  A read that instantiates the
 * page after the write allocated its block, but before the write locked
 * the page, must see zeros, not what the block held on disk before.
 * Every byte outside the written bytes must read zero, during the race
 * and again from disk afterwards.
 *
 * write writes the pattern with one pwrite, buffered (ENGINE buffered) or
 * O_DIRECT (psync), and prints what it returned: the bytes written or the
 * errno's name.  bmap prints the byte offset on the device of the file's
 * byte OFFSET (FIBMAP).  mmap-dio reads LENGTH bytes at SRC with O_DIRECT
 * through ENGINE (psync, libaio or io_uring) into a shared writable
 * mapping of the same file at DST, and fails unless the read returns
 * LENGTH.
 *
 * Exits 0 when every read matched, 1 with a one-line reason otherwise.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <libaio.h>
#include <liburing.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>
#include <linux/fs.h>

#define ALIGN 4096

static const struct {
	const char *name;
	int err;
} errnos[] = {
	{ "EINVAL", EINVAL }, { "EIO", EIO }, { "EFAULT", EFAULT },
	{ "EOPNOTSUPP", EOPNOTSUPP }, { "EAGAIN", EAGAIN },
};

static void __attribute__((noreturn, format(printf, 1, 2)))
fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("dio-check: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	exit(1);
}

static uint64_t pattern_word(uint64_t off, uint64_t seed)
{
	return off ^ seed;
}

static void fill_pattern(unsigned char *buf, uint64_t off, size_t len,
			 uint64_t seed)
{
	for (size_t i = 0; i < len; i++) {
		uint64_t x = off + i;
		uint64_t w = pattern_word(x & ~7ULL, seed);

		buf[i] = (unsigned char)(w >> (8 * (x & 7)));
	}
}

/* Return the first offset where buf differs from the pattern, or -1. */
static long long check_pattern(const unsigned char *buf, uint64_t off,
			       size_t len, uint64_t seed)
{
	for (size_t i = 0; i < len; i++) {
		uint64_t x = off + i;
		uint64_t w = pattern_word(x & ~7ULL, seed);

		if (buf[i] != (unsigned char)(w >> (8 * (x & 7))))
			return (long long)x;
	}
	return -1;
}

static int errno_by_name(const char *name)
{
	for (size_t i = 0; i < sizeof(errnos) / sizeof(errnos[0]); i++)
		if (!strcmp(errnos[i].name, name))
			return errnos[i].err;
	fail("unknown errno name %s", name);
}

static void *alloc_aligned(size_t len)
{
	void *p;

	if (posix_memalign(&p, ALIGN, len ? len : 1))
		fail("out of memory");
	return p;
}

static int do_fill(const char *path, uint64_t off, size_t len, uint64_t seed)
{
	unsigned char *buf = alloc_aligned(len);
	int fd = open(path, O_WRONLY | O_CREAT, 0644);
	ssize_t ret;

	if (fd < 0)
		fail("open %s: %s", path, strerror(errno));
	fill_pattern(buf, off, len, seed);
	ret = pwrite(fd, buf, len, off);
	if (ret != (ssize_t)len)
		fail("pwrite %s: %zd: %s", path, ret, strerror(errno));
	if (fsync(fd))
		fail("fsync %s: %s", path, strerror(errno));
	close(fd);
	free(buf);
	return 0;
}

/* Each engine returns bytes read or -errno, as the kernel reported it. */
static ssize_t read_psync(int fd, void *buf, size_t len, uint64_t off)
{
	ssize_t ret = pread(fd, buf, len, off);

	return ret < 0 ? -errno : ret;
}

static ssize_t read_libaio(int fd, void *buf, size_t len, uint64_t off)
{
	static io_context_t ctx;
	struct iocb cb, *cbs[1] = { &cb };
	struct io_event ev;
	int ret;

	if (!ctx && (ret = io_setup(1, &ctx)) < 0)
		fail("io_setup: %s", strerror(-ret));
	io_prep_pread(&cb, fd, buf, len, off);
	ret = io_submit(ctx, 1, cbs);
	if (ret < 0)
		return ret;
	if (ret != 1)
		fail("io_submit returned %d", ret);
	ret = io_getevents(ctx, 1, 1, &ev, NULL);
	if (ret != 1)
		fail("io_getevents returned %d", ret);
	return (ssize_t)(long)ev.res;
}

/* Submit @count reads of the same range at once, into bufs[i], then reap. */
static void read_libaio_batch(int fd, unsigned char **bufs, size_t len,
			      uint64_t off, long count, ssize_t *got)
{
	struct iocb *cbs[count], cb[count];
	struct io_event ev[count];
	io_context_t ctx = 0;
	int ret;

	ret = io_setup(count, &ctx);
	if (ret < 0)
		fail("io_setup: %s", strerror(-ret));
	for (long i = 0; i < count; i++) {
		io_prep_pread(&cb[i], fd, bufs[i], len, off);
		cb[i].data = &got[i];
		cbs[i] = &cb[i];
	}
	ret = io_submit(ctx, count, cbs);
	if (ret != count)
		fail("io_submit returned %d of %ld", ret, count);
	ret = io_getevents(ctx, count, count, ev, NULL);
	if (ret != count)
		fail("io_getevents returned %d of %ld", ret, count);
	for (long i = 0; i < count; i++)
		*(ssize_t *)ev[i].data = (ssize_t)(long)ev[i].res;
	io_destroy(ctx);
}

/* A ring of four entries for the io_uring engines; fails the run if none. */
static void init_ring(struct io_uring *ring, unsigned int flags)
{
	int ret = io_uring_queue_init(4, ring, flags);

	if (ret)
		fail("io_uring_queue_init: %s", strerror(-ret));
}

static ssize_t read_uring(struct io_uring *ring, const char *engine, int fd,
			  void *buf, size_t len, uint64_t off)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(ring);
	struct io_uring_cqe *cqe;
	int ret;

	if (!strcmp(engine, "io_uring_fixed"))
		io_uring_prep_read_fixed(sqe, fd, buf, len, off, 0);
	else
		io_uring_prep_read(sqe, fd, buf, len, off);
	if (!strcmp(engine, "io_uring_nowait"))
		sqe->rw_flags = RWF_NOWAIT;
	ret = io_uring_submit(ring);
	if (ret != 1)
		fail("io_uring_submit returned %d", ret);
	ret = io_uring_wait_cqe(ring, &cqe);
	if (ret)
		fail("io_uring_wait_cqe: %s", strerror(-ret));
	ret = cqe->res;
	io_uring_cqe_seen(ring, cqe);
	return ret;
}

/* Read through a shared read-only mapping of the file, up to its size. */
static ssize_t read_mmap(int fd, void *buf, size_t len, uint64_t off)
{
	uint64_t start = off & ~(uint64_t)(ALIGN - 1);
	struct stat st;
	size_t n;
	void *p;

	if (fstat(fd, &st))
		return -errno;
	if (off >= (uint64_t)st.st_size)
		return 0;
	n = (uint64_t)st.st_size - off < len ? st.st_size - off : len;
	p = mmap(NULL, off - start + n, PROT_READ, MAP_SHARED, fd, start);
	if (p == MAP_FAILED)
		return -errno;
	memcpy(buf, (char *)p + (off - start), n);
	munmap(p, off - start + n);
	return n;
}

/* preadv2() with one segment, or two with the first crossing a page. */
static ssize_t read_vec(int fd, unsigned char *buf, size_t len, uint64_t off,
			int segs, int flags)
{
	size_t first = len / 2 / 512 * 512, boundary;
	unsigned char *scratch;
	struct iovec iov[2];
	ssize_t ret;

	if (segs == 1) {
		iov[0] = (struct iovec){ buf, len };
		ret = preadv2(fd, iov, 1, off, flags);
		return ret < 0 ? -errno : ret;
	}
	if (len < 1024 || len % 512)
		fail("readv2 wants a multiple of 512 bytes, at least 1 KiB");
	/*
	 * The first segment ends 512 bytes past a page boundary, the second
	 * starts on the next page: room before the boundary for the first.
	 */
	boundary = (first + ALIGN - 1) / ALIGN * ALIGN;
	scratch = alloc_aligned(boundary + 2 * ALIGN + len);
	iov[0] = (struct iovec){ scratch + boundary + 512 - first, first };
	iov[1] = (struct iovec){ scratch + boundary + ALIGN, len - first };
	ret = preadv2(fd, iov, 2, off, flags);
	if (ret < 0) {
		ret = -errno;
	} else {
		size_t n0 = (size_t)ret < first ? (size_t)ret : first;

		memcpy(buf, iov[0].iov_base, n0);
		memcpy(buf + n0, iov[1].iov_base, ret - n0);
	}
	free(scratch);
	return ret;
}

/* Read a pipe or file until @len bytes or its end. */
static ssize_t read_all(int fd, unsigned char *buf, size_t len, bool at)
{
	size_t done = 0;

	while (done < len) {
		ssize_t ret = at ? pread(fd, buf + done, len - done, done) :
				   read(fd, buf + done, len - done);

		if (ret < 0)
			fail("read back: %s", strerror(errno));
		if (!ret)
			break;
		done += ret;
	}
	return done;
}

/*
 * The kernel reads the O_DIRECT file into its own pages (a bvec iterator)
 * for splice, sendfile and copy_file_range; the data is then read back from
 * where it went.
 */
static ssize_t read_spliced(const char *engine, const char *path, int fd,
			    unsigned char *buf, size_t len, uint64_t off)
{
	loff_t in = off, out = 0;
	ssize_t ret;
	int p[2], to;

	if (!strcmp(engine, "splice")) {
		if (pipe(p))
			fail("pipe: %s", strerror(errno));
		ret = splice(fd, &in, p[1], NULL, len, 0);
		if (ret > 0)
			ret = read_all(p[0], buf, ret, false);
		close(p[0]);
		close(p[1]);
		return ret < 0 ? -errno : ret;
	}
	if (!strcmp(engine, "sendfile")) {
		to = memfd_create("dio-check", 0);
		if (to < 0)
			fail("memfd_create: %s", strerror(errno));
		ret = sendfile(to, fd, &in, len);
		if (ret < 0)
			ret = -errno;
	} else {
		char name[4096];
		int back;

		snprintf(name, sizeof(name), "%s.cfr", path);
		to = open(name, O_WRONLY | O_CREAT | O_TRUNC | O_DIRECT, 0644);
		/* Read the copy back through the page cache, not counted. */
		back = open(name, O_RDONLY);
		if (to < 0 || back < 0)
			fail("open %s: %s", name, strerror(errno));
		unlink(name);
		ret = copy_file_range(fd, &in, to, &out, len, 0);
		if (ret < 0)
			ret = -errno;
		close(to);
		to = back;
	}
	if (ret > 0)
		ret = read_all(to, buf, ret, true);
	close(to);
	return ret;
}

static int do_read(const char *path, uint64_t off, size_t len,
		   const char *engine, const char *expect, long count)
{
	bool batch = !strcmp(engine, "libaio-batch");
	/* nowait512 reads into a buffer that starts 512 bytes into a page. */
	size_t buf_off = strcmp(engine, "nowait512") ? 0 : 512;
	long nbufs = batch ? count : 1;
	unsigned char *bufs[nbufs];
	ssize_t gots[nbufs];
	struct io_uring ring;
	uint64_t seed = 0;
	ssize_t want_len = len, got, zero_from = -1, pattern_from = -1;
	int want_err = 0, want_byte = -1, fd;

	if (!strncmp(expect, "pattern:", 8))
		seed = strtoull(expect + 8, NULL, 0);
	else if (!strcmp(expect, "zero"))
		want_byte = 0;
	else if (!strncmp(expect, "byte:", 5))
		want_byte = (int)strtol(expect + 5, NULL, 0);
	else if (!strncmp(expect, "short:", 6) ||
		 !strncmp(expect, "zerofrom:", 9) ||
		 !strncmp(expect, "patternfrom:", 12)) {
		char *colon = strchr(expect, ':'), *end;
		long long n = strtoll(colon + 1, &end, 0);

		if (*end != ':')
			fail("%.*s:N:SEED wanted, got %s",
			     (int)(colon - expect), expect, expect);
		seed = strtoull(end + 1, NULL, 0);
		if (expect[0] == 's')
			want_len = n;
		else if (expect[0] == 'z')
			zero_from = n;
		else
			pattern_from = n;
	}
	else if (!strncmp(expect, "errno:", 6))
		want_err = errno_by_name(expect + 6);
	else
		fail("unknown expectation %s", expect);

	fd = open(path, O_RDONLY | (strcmp(engine, "buffered") &&
				    strcmp(engine, "mmap") ? O_DIRECT : 0));
	if (fd < 0)
		fail("open %s: %s", path, strerror(errno));

	for (long i = 0; i < nbufs; i++) {
		bufs[i] = alloc_aligned(buf_off + len + ALIGN);
		/* Poison, so a read that copies nothing cannot pass. */
		memset(bufs[i], 0xa5, buf_off + len + ALIGN);
	}

	if (!strncmp(engine, "io_uring", 8)) {
		unsigned int flags = strcmp(engine, "io_uring_poll") ? 0 :
				     IORING_SETUP_IOPOLL;
		struct iovec fixed = { bufs[0], len + ALIGN };
		int ret;

		init_ring(&ring, flags);
		if (!strcmp(engine, "io_uring_fixed") &&
		    (ret = io_uring_register_buffers(&ring, &fixed, 1)))
			fail("io_uring_register_buffers: %s", strerror(-ret));
		if (strcmp(engine, "io_uring") && strcmp(engine, "io_uring_poll") &&
		    strcmp(engine, "io_uring_fixed") &&
		    strcmp(engine, "io_uring_nowait"))
			fail("unknown engine %s", engine);
	} else if (strcmp(engine, "psync") && strcmp(engine, "libaio") &&
		   strcmp(engine, "buffered") && strcmp(engine, "mmap") &&
		   strcmp(engine, "readv") && strcmp(engine, "readv2") &&
		   strcmp(engine, "nowait") && strcmp(engine, "nowait512") &&
		   strcmp(engine, "splice") &&
		   strcmp(engine, "sendfile") && strcmp(engine, "cfr") && !batch) {
		fail("unknown engine %s", engine);
	}
	if (batch)
		read_libaio_batch(fd, bufs, len, off, count, gots);

	for (long i = 0; i < count; i++) {
		unsigned char *buf = bufs[batch ? i : 0] + buf_off;
		long long bad;

		if (batch)
			got = gots[i];
		else if (!strcmp(engine, "psync") || !strcmp(engine, "buffered"))
			got = read_psync(fd, buf, len, off);
		else if (!strcmp(engine, "libaio"))
			got = read_libaio(fd, buf, len, off);
		else if (!strcmp(engine, "mmap"))
			got = read_mmap(fd, buf, len, off);
		else if (!strcmp(engine, "readv") || !strcmp(engine, "readv2"))
			got = read_vec(fd, buf, len, off,
				       strcmp(engine, "readv2") ? 1 : 2, 0);
		else if (!strcmp(engine, "nowait") ||
			 !strcmp(engine, "nowait512"))
			got = read_vec(fd, buf, len, off, 1, RWF_NOWAIT);
		else if (!strncmp(engine, "io_uring", 8))
			got = read_uring(&ring, engine, fd, buf, len, off);
		else
			got = read_spliced(engine, path, fd, buf, len, off);

		if (want_err) {
			if (got != -want_err)
				fail("%s %s @%" PRIu64 "+%zu: got %zd, want -%s",
				     engine, path, off, len, got,
				     expect + 6);
			continue;
		}
		if (got < 0)
			fail("%s %s @%" PRIu64 "+%zu: error %s", engine,
			     path, off, len, strerror((int)-got));
		if (got != want_len)
			fail("%s %s @%" PRIu64 "+%zu: read %zd bytes, want %zd",
			     engine, path, off, len, got, want_len);
		/*
		 * Bytes from..to-1 hold the pattern, the others one byte
		 * value: the expected byte, or zeros after zerofrom:N and
		 * before patternfrom:N.
		 */
		ssize_t from = pattern_from < 0 ? 0 :
			       pattern_from < got ? pattern_from : got;
		ssize_t to = want_byte >= 0 ? 0 :
			     zero_from >= 0 && zero_from < got ? zero_from : got;
		int fill = want_byte >= 0 ? want_byte : 0;

		bad = to > from ? check_pattern(buf + from, off + from,
						to - from, seed) : -1;
		if (bad >= 0)
			fail("%s %s: pattern mismatch at byte %lld",
			     engine, path, bad);
		for (ssize_t j = 0; j < got; j++)
			if ((j < from || j >= to) && buf[j] != fill)
				fail("%s %s: byte %" PRIu64 " is %#x, want %#x",
				     engine, path, off + j, buf[j], fill);
		/*
		 * A short read may fill the rest of its last block, but
		 * nothing may land past the length asked for.
		 */
		for (size_t j = len; j < len + ALIGN; j++)
			if (buf[j] != 0xa5)
				fail("%s %s: buffer written past %zu bytes",
				     engine, path, len);
		/* The next read into this buffer must not see this one's data. */
		memset(buf, 0xa5, len + ALIGN);
	}
	close(fd);
	for (long i = 0; i < nbufs; i++)
		free(bufs[i]);
	return 0;
}

#define RACE_PAGE 4096
#define RACE_OFF 1280		/* inside the page's second 1 KiB block */
#define RACE_LEN 64
#define RACE_BYTE 0x57

struct hole_race {
	int fd;
	long pages;
	atomic_long next;	/* the page being written, pages when done */
	long long stale;	/* first stale byte offset, or -1 */
};

/*
 * Check one page read back: zero outside the written bytes; those are
 * zero or RACE_BYTE while the write may be in flight, RACE_BYTE once
 * @written.  Return the offset of the first wrong byte, or -1.
 */
static long long race_check_page(const unsigned char *buf, long page,
				 int written)
{
	for (int i = 0; i < RACE_PAGE; i++) {
		int in = i >= RACE_OFF && i < RACE_OFF + RACE_LEN;

		if (in ? buf[i] == RACE_BYTE || (!written && !buf[i]) : !buf[i])
			continue;
		return (long long)page * RACE_PAGE + i;
	}
	return -1;
}

static void *race_reader(void *arg)
{
	struct hole_race *r = arg;
	unsigned char *buf = alloc_aligned(RACE_PAGE);
	long page;

	while ((page = atomic_load(&r->next)) < r->pages) {
		off_t off = (off_t)page * RACE_PAGE;
		long long bad;

		posix_fadvise(r->fd, off, RACE_PAGE, POSIX_FADV_DONTNEED);
		if (pread(r->fd, buf, RACE_PAGE, off) != RACE_PAGE)
			fail("race read @%lld: %s", (long long)off,
			     strerror(errno));
		bad = race_check_page(buf, page, 0);
		if (bad >= 0 && r->stale < 0)
			r->stale = bad;
	}
	free(buf);
	return NULL;
}

static int do_hole_race(const char *path, long pages)
{
	struct hole_race r = { .pages = pages, .stale = -1 };
	unsigned char data[RACE_LEN], *buf = alloc_aligned(RACE_PAGE);
	pthread_t reader;
	long page;

	r.fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (r.fd < 0)
		fail("open %s: %s", path, strerror(errno));
	if (ftruncate(r.fd, (off_t)pages * RACE_PAGE))
		fail("ftruncate %s: %s", path, strerror(errno));
	memset(data, RACE_BYTE, sizeof(data));
	if (pthread_create(&reader, NULL, race_reader, &r))
		fail("pthread_create failed");
	for (page = 0; page < pages; page++) {
		off_t off = (off_t)page * RACE_PAGE + RACE_OFF;

		atomic_store(&r.next, page);
		if (pwrite(r.fd, data, RACE_LEN, off) != RACE_LEN)
			fail("race write @%lld: %s", (long long)off,
			     strerror(errno));
	}
	atomic_store(&r.next, pages);
	pthread_join(reader, NULL);
	if (r.stale >= 0)
		fail("%s: stale byte at %lld read during the race", path,
		     r.stale);

	if (fsync(r.fd) ||
	    posix_fadvise(r.fd, 0, 0, POSIX_FADV_DONTNEED))
		fail("fsync %s: %s", path, strerror(errno));
	for (page = 0; page < pages; page++) {
		long long bad;

		if (pread(r.fd, buf, RACE_PAGE, (off_t)page * RACE_PAGE) !=
		    RACE_PAGE)
			fail("read back %s: %s", path, strerror(errno));
		bad = race_check_page(buf, page, 1);
		if (bad >= 0)
			fail("%s: byte %lld is %#x after the race", path, bad,
			     buf[bad % RACE_PAGE]);
	}
	close(r.fd);
	free(buf);
	return 0;
}

static const char *errno_name(int err)
{
	for (size_t i = 0; i < sizeof(errnos) / sizeof(errnos[0]); i++)
		if (errnos[i].err == err)
			return errnos[i].name;
	return strerror(err);
}

static int do_write(const char *path, uint64_t off, size_t len,
		    const char *engine, uint64_t seed)
{
	bool direct = !strcmp(engine, "psync");
	unsigned char *buf = alloc_aligned(len);
	ssize_t ret;
	int fd;

	if (!direct && strcmp(engine, "buffered"))
		fail("write: unknown engine %s", engine);
	fd = open(path, O_WRONLY | O_CREAT | (direct ? O_DIRECT : 0), 0644);
	if (fd < 0)
		fail("open %s: %s", path, strerror(errno));
	fill_pattern(buf, off, len, seed);
	ret = pwrite(fd, buf, len, off);
	if (ret < 0)
		printf("%s\n", errno_name(errno));
	else
		printf("%zd\n", ret);
	close(fd);
	free(buf);
	return 0;
}

static int do_bmap(const char *path, uint64_t off)
{
	int fd = open(path, O_RDONLY), bsz;

	if (fd < 0)
		fail("open %s: %s", path, strerror(errno));
	if (ioctl(fd, FIGETBSZ, &bsz) || bsz <= 0)
		fail("FIGETBSZ %s: %s", path, strerror(errno));
	int blk = (int)(off / bsz);

	if (ioctl(fd, FIBMAP, &blk))
		fail("FIBMAP %s: %s", path, strerror(errno));
	if (!blk)
		fail("FIBMAP %s: byte %" PRIu64 " is not mapped", path, off);
	printf("%" PRIu64 "\n", (uint64_t)blk * bsz + off % bsz);
	close(fd);
	return 0;
}

static int do_mmap_dio(const char *path, uint64_t src, size_t len,
		       uint64_t dst, const char *engine)
{
	int fd = open(path, O_RDWR), dfd = open(path, O_RDONLY | O_DIRECT);
	size_t maplen = (len + ALIGN - 1) & ~(size_t)(ALIGN - 1);
	ssize_t got;
	void *p;

	if (fd < 0 || dfd < 0)
		fail("open %s: %s", path, strerror(errno));
	p = mmap(NULL, maplen, PROT_READ | PROT_WRITE, MAP_SHARED, fd, dst);
	if (p == MAP_FAILED)
		fail("mmap %s: %s", path, strerror(errno));
	if (!strcmp(engine, "psync"))
		got = read_psync(dfd, p, len, src);
	else if (!strcmp(engine, "libaio"))
		got = read_libaio(dfd, p, len, src);
	else if (!strcmp(engine, "io_uring")) {
		struct io_uring ring;

		init_ring(&ring, 0);
		got = read_uring(&ring, engine, dfd, p, len, src);
		io_uring_queue_exit(&ring);
	} else
		fail("mmap-dio: unknown engine %s", engine);
	if (got != (ssize_t)len)
		fail("direct read of %zu bytes into the mapping: %zd", len,
		     got);
	if (msync(p, maplen, MS_SYNC))
		fail("msync %s: %s", path, strerror(errno));
	munmap(p, maplen);
	close(dfd);
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 6 && !strcmp(argv[1], "fill"))
		return do_fill(argv[2], strtoull(argv[3], NULL, 0),
			       strtoull(argv[4], NULL, 0),
			       strtoull(argv[5], NULL, 0));
	if ((argc == 7 || argc == 8) && !strcmp(argv[1], "read"))
		return do_read(argv[2], strtoull(argv[3], NULL, 0),
			       strtoull(argv[4], NULL, 0), argv[5], argv[6],
			       argc == 8 ? strtol(argv[7], NULL, 0) : 1);
	if (argc == 4 && !strcmp(argv[1], "hole-race"))
		return do_hole_race(argv[2], strtol(argv[3], NULL, 0));
	if (argc == 7 && !strcmp(argv[1], "write"))
		return do_write(argv[2], strtoull(argv[3], NULL, 0),
				strtoull(argv[4], NULL, 0), argv[5],
				strtoull(argv[6], NULL, 0));
	if (argc == 4 && !strcmp(argv[1], "bmap"))
		return do_bmap(argv[2], strtoull(argv[3], NULL, 0));
	if (argc == 7 && !strcmp(argv[1], "mmap-dio"))
		return do_mmap_dio(argv[2], strtoull(argv[3], NULL, 0),
				   strtoull(argv[4], NULL, 0),
				   strtoull(argv[5], NULL, 0), argv[6]);
	fprintf(stderr,
		"usage: dio-check fill PATH OFFSET LENGTH SEED\n"
		"       dio-check read PATH OFFSET LENGTH ENGINE EXPECT [COUNT]\n"
		"       dio-check hole-race PATH PAGES\n"
		"       dio-check write PATH OFFSET LENGTH ENGINE SEED\n"
		"       dio-check bmap PATH OFFSET\n"
		"       dio-check mmap-dio PATH SRC LENGTH DST ENGINE\n");
	return 2;
}
