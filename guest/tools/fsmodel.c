// SPDX-License-Identifier: GPL-2.0
/*
 * fsmodel: a seeded random file-operation tester.  It runs random
 * operations on two files and keeps what each file must hold in memory
 * (a byte array and a size), and checks every read, and now and then the
 * whole of both files, against that model.
 *
 *   fsmodel [options] DIR
 *
 *   -n N       instances, forked (default 1; one instance runs in-process).
 *              Instance i works on DIR/fsm.i.a and DIR/fsm.i.b with seed
 *              SEED + i.
 *   -s SEED    seed (default 1); the same seed and options replay the run
 *   -N OPS     random operations per instance (default 10000)
 *   -l BYTES   max file size (default 256k)
 *   -L BYTES   max length of one transfer (default 64k)
 *   -B BYTES   block size for collapse/insert ranges (default st_blksize)
 *   -A BYTES   O_DIRECT alignment when statx has no STATX_DIOALIGN
 *              (default st_blksize; misaligned I/O is then not tried)
 *   -w OP=W[,OP=W...]  operation weights, 0 disables (-v prints them)
 *   -c EVERY   compare both whole files every EVERY ops (default 1000)
 *              and always at the end; 0: only at the end
 *   -R CMD     remount command, run through system() with every file
 *              closed; enables the remount op (one instance only).  The
 *              -o logs stay open: keep them off the remounted filesystem
 *   -r EVERY   remount every EVERY ops; with -n > 1 at a barrier: all
 *              instances stop, the parent runs CMD once, all go on
 *   -D         drop caches on reopen (writes /proc/sys/vm/drop_caches)
 *   -o LOG     log every op (LOG.i per instance with -n > 1)
 *   -p LOG     replay LOG instead of drawing ops at random
 *   -S LOG     shrink the failing LOG into the shortest still-failing
 *              sequence (delta debugging), written to -o OUT
 *   -C OPNUM   after op OPNUM (or the first op after it with file a not
 *              empty) flip one byte of the model of file a and check both
 *              files: proof that a corruption is caught
 *   -v, -q     verbose, quiet (only the final line)
 *
 * Operations: read, write (buffered pread/pwrite), dread, dwrite (O_DIRECT,
 * aligned as statx says), badio (misaligned O_DIRECT: a misaligned offset
 * must fail with EINVAL and change nothing, a write from a misaligned
 * buffer within one page all or nothing, a read EINVAL or the right data),
 * readv, writev (preadv2/pwritev2, 2-5 segments, one crossing a
 * page in memory), uread (io_uring read), mread, mwrite (through a shared
 * mapping of file a kept across operations; the tail of the EOF page must
 * read zero), truncate, falloc (alloc, keep, punch, zero, zero-keep,
 * collapse, insert; EOPNOTSUPP disables a mode), fsync, fdatasync, msync,
 * copy (copy_file_range between the files), reopen, remount.  Not drawn:
 * check (both whole files against the model) and corrupt (-C).
 *
 * Every byte written is a hash of the op's 32-bit tag and its file offset,
 * never zero: a logged op says exactly what it wrote, and a lost write or
 * a stale hole never reads back right by chance.
 *
 * Log: a first line "# fsmodel seed=S instance=I maxsize=... maxlen=...
 * page=... block=... dio=OFFSET/MEM statx|fallback", then one line per op,
 * written and flushed before the op runs; '#' lines are notes:
 *
 *   read a OFF LEN                 write a OFF LEN tag=0xTAG
 *   dread a OFF LEN mem=M          dwrite a OFF LEN mem=M tag=0xTAG
 *   badio a read OFF LEN mem=M     badio a write OFF LEN mem=M tag=0xTAG
 *   readv a OFF LEN@M,LEN@M,...    writev a OFF LEN@M,... tag=0xTAG
 *   uread a OFF LEN [direct mem=M] mread a OFF LEN
 *   mwrite a OFF LEN tag=0xTAG     truncate a SIZE [shrinkmap]
 *   falloc a MODE OFF LEN          fsync a, fdatasync a
 *   copy SRC DST SRCOFF DSTOFF LEN msync, reopen, remount, check
 *   corrupt a OFF
 *
 * M is the buffer's offset from a page boundary; "shrinkmap" mremaps the
 * mapping down after the truncate.  A replay recreates both files empty,
 * takes max size and length from the log's first line, runs the logged ops
 * only (the checks are logged ops too) and skips, with a note, an op that
 * makes no sense in the state a shrunk log leaves (a mapped access past
 * EOF, a collapse past EOF).  Its -o log equals the replayed log.  -C in a
 * replay counts the replayed ops; a logged "corrupt" replays by itself.
 *
 * On a mismatch or an unexpected error, stderr gets the seed, the
 * instance, the op number and op, the last 50 ops, and a line saying "data
 * mismatch" (with the first bad offset, how many bytes of the range differ
 * and 16 bytes expected and found), "count mismatch", "size mismatch" or
 * "unexpected error".  Exit status: 0 all passed, 1 a failure, 2 usage or
 * setup error.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <liburing.h>
#include <linux/falloc.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define HISTORY_LEN	50
#define LINE_LEN	256
#define MAX_SEGS	5

#define RETRY_EINTR(expr) ({				\
	ssize_t __ret;					\
							\
	do {						\
		__ret = (expr);				\
	} while (__ret < 0 && errno == EINTR);		\
	__ret;						\
})

enum op_kind {
	OP_READ, OP_WRITE, OP_DREAD, OP_DWRITE, OP_BADIO, OP_READV,
	OP_WRITEV, OP_UREAD, OP_MREAD, OP_MWRITE, OP_TRUNCATE, OP_FALLOC,
	OP_FSYNC, OP_FDATASYNC, OP_MSYNC, OP_COPY, OP_REOPEN, OP_REMOUNT,
	NR_WEIGHTED,
	/* Never drawn: scheduled by -c, -r and -C. */
	OP_CHECK = NR_WEIGHTED, OP_CORRUPT,
	NR_OPS
};

static const char *const op_names[NR_OPS] = {
	"read", "write", "dread", "dwrite", "badio", "readv", "writev",
	"uread", "mread", "mwrite", "truncate", "falloc", "fsync",
	"fdatasync", "msync", "copy", "reopen", "remount", "check", "corrupt",
};

static const unsigned int default_weights[NR_WEIGHTED] = {
	[OP_READ] = 20, [OP_WRITE] = 20, [OP_DREAD] = 5, [OP_DWRITE] = 5,
	[OP_BADIO] = 1, [OP_READV] = 4, [OP_WRITEV] = 4, [OP_UREAD] = 4,
	[OP_MREAD] = 6, [OP_MWRITE] = 6, [OP_TRUNCATE] = 8, [OP_FALLOC] = 8,
	[OP_FSYNC] = 1, [OP_FDATASYNC] = 1, [OP_MSYNC] = 1, [OP_COPY] = 4,
	[OP_REOPEN] = 1, [OP_REMOUNT] = 1,
};

enum falloc_kind {
	FA_ALLOC, FA_KEEP, FA_PUNCH, FA_ZERO, FA_ZERO_KEEP, FA_COLLAPSE,
	FA_INSERT, NR_FALLOC
};

static const struct {
	const char *name;
	int mode;
} falloc_modes[NR_FALLOC] = {
	[FA_ALLOC] = { "alloc", 0 },
	[FA_KEEP] = { "keep", FALLOC_FL_KEEP_SIZE },
	[FA_PUNCH] = { "punch", FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE },
	[FA_ZERO] = { "zero", FALLOC_FL_ZERO_RANGE },
	[FA_ZERO_KEEP] = { "zero-keep",
			   FALLOC_FL_ZERO_RANGE | FALLOC_FL_KEEP_SIZE },
	[FA_COLLAPSE] = { "collapse", FALLOC_FL_COLLAPSE_RANGE },
	[FA_INSERT] = { "insert", FALLOC_FL_INSERT_RANGE },
};

struct config {
	uint64_t seed;
	long nops;
	int ninstances;
	size_t maxsize;
	size_t maxlen;
	size_t block;		/* -B, 0: st_blksize */
	size_t dio_align;	/* -A, 0: st_blksize */
	long check_every;
	long remount_every;
	long corrupt_after;	/* -C, 0: never (ops count from 1) */
	const char *remount_cmd;
	const char *log_path;
	const char *replay_path;
	const char *shrink_path;
	const char *dir;
	bool drop_caches;
	bool verbose;
	bool quiet;
	unsigned int weights[NR_WEIGHTED];
};

static struct config cfg = {
	.seed = 1, .nops = 10000, .ninstances = 1, .maxsize = 256 << 10,
	.maxlen = 64 << 10, .check_every = 1000,
};

struct op {
	enum op_kind kind;
	int file;		/* 0: file a, 1: file b */
	int dst;		/* copy: the destination file */
	size_t off;		/* truncate: new size; copy: source offset */
	size_t len;
	size_t dst_off;		/* copy */
	size_t mem;		/* O_DIRECT buffer: offset from a page */
	uint32_t tag;		/* the data written: see fill_pattern() */
	int mode;		/* falloc: enum falloc_kind */
	/* badio: a write; uread: O_DIRECT; truncate: shrink the mapping */
	bool flag;
	int nseg;
	size_t seg_len[MAX_SEGS];
	size_t seg_mem[MAX_SEGS];
};

struct script {
	char header[LINE_LEN];
	uint64_t seed;
	struct op *ops;
	size_t len;
};

struct file_state {
	char path[PATH_MAX];
	int fd;
	int dfd;		/* O_DIRECT, or -1 */
	unsigned char *model;	/* maxsize + a page; zero past size */
	size_t size;
};

struct instance {
	int id;
	uint64_t seed;
	uint64_t rng;
	const struct script *script;	/* replaying it, or NULL */
	struct file_state files[2];
	unsigned char *map;		/* shared mapping of file a */
	size_t map_len;
	size_t page;
	size_t block;
	size_t dio_off_align;
	size_t dio_mem_align;
	size_t buf_align;
	bool dio_align_known;		/* statx: misaligned I/O fails */
	bool dio_ok;
	/* An O_DIRECT transfer has worked: EINVAL is a failure from then on */
	bool dio_worked;
	bool ring_ok;
	bool copy_unsupported;
	/* A copy has worked: EINVAL is a failure from then on */
	bool copy_worked;
	bool falloc_unsupported[NR_FALLOC];
	struct io_uring ring;
	unsigned int weights[NR_WEIGHTED];
	unsigned char *iobuf;
	size_t iobuf_len;
	unsigned char *filebuf;
	unsigned char *iovbuf;
	size_t iov_region;
	FILE *log;
	int barrier_up;			/* pipes to the parent, or -1 */
	int barrier_down;
	long seq;			/* the running op's number, from 1 */
	char current[LINE_LEN];
	char history[HISTORY_LEN][LINE_LEN];
	long counts[NR_OPS];
	bool corrupted;
};

static size_t min_size(size_t a, size_t b)
{
	return a < b ? a : b;
}

static size_t max_size(size_t a, size_t b)
{
	return a > b ? a : b;
}

static size_t round_up(size_t x, size_t align)
{
	return (x + align - 1) / align * align;
}

static size_t round_down(size_t x, size_t align)
{
	return x / align * align;
}

/* What a read of @len bytes at @off returns from a file of @size bytes. */
static size_t expected_count(size_t size, size_t off, size_t len)
{
	return off >= size ? 0 : min_size(len, size - off);
}

/* splitmix64's finaliser: seeds the generator and hashes the data. */
static uint64_t mix64(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

/* xorshift64*: our own, so a seed means the same run everywhere. */
static uint64_t next_random(struct instance *in)
{
	uint64_t x = in->rng;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	in->rng = x;
	return x * 0x2545f4914f6cdd1dULL;
}

static size_t rnd(struct instance *in, size_t n)
{
	return n ? next_random(in) % n : 0;
}

static uint32_t random_tag(struct instance *in)
{
	return next_random(in) >> 32;
}

/*
 * The bytes a write with @tag puts at file offsets @off...: a hash of the
 * tag and the offset, so data read from the wrong place is caught too.
 * Zero is mapped away, so lost writes and holes always show.
 */
static void fill_pattern(unsigned char *buf, uint32_t tag, size_t off,
			 size_t len)
{
	uint64_t word = 0;
	size_t i;

	for (i = 0; i < len; i++) {
		size_t pos = off + i;
		unsigned char byte;

		if (i == 0 || !(pos & 7))
			word = mix64(((uint64_t)tag << 32) ^ (pos >> 3));
		byte = word >> (pos & 7) * 8;
		buf[i] = byte ? byte : 0xa5;
	}
}

static void format_op(const struct op *op, char *s, size_t n)
{
	const char *name = op_names[op->kind];
	char file = 'a' + op->file;
	int used, i;

	switch (op->kind) {
	case OP_READ:
	case OP_MREAD:
		snprintf(s, n, "%s %c %zu %zu", name, file, op->off, op->len);
		break;
	case OP_WRITE:
	case OP_MWRITE:
		snprintf(s, n, "%s %c %zu %zu tag=0x%08" PRIx32, name, file,
			 op->off, op->len, op->tag);
		break;
	case OP_DREAD:
		snprintf(s, n, "%s %c %zu %zu mem=%zu", name, file, op->off,
			 op->len, op->mem);
		break;
	case OP_DWRITE:
		snprintf(s, n, "%s %c %zu %zu mem=%zu tag=0x%08" PRIx32, name,
			 file, op->off, op->len, op->mem, op->tag);
		break;
	case OP_BADIO:
		if (op->flag)
			snprintf(s, n, "%s %c write %zu %zu mem=%zu tag=0x%08"
				 PRIx32, name, file, op->off, op->len, op->mem,
				 op->tag);
		else
			snprintf(s, n, "%s %c read %zu %zu mem=%zu", name,
				 file, op->off, op->len, op->mem);
		break;
	case OP_UREAD:
		if (op->flag)
			snprintf(s, n, "%s %c %zu %zu direct mem=%zu", name,
				 file, op->off, op->len, op->mem);
		else
			snprintf(s, n, "%s %c %zu %zu", name, file, op->off,
				 op->len);
		break;
	case OP_READV:
	case OP_WRITEV:
		used = snprintf(s, n, "%s %c %zu", name, file, op->off);
		for (i = 0; i < op->nseg; i++)
			used += snprintf(s + used, n - used, "%c%zu@%zu",
					 i ? ',' : ' ', op->seg_len[i],
					 op->seg_mem[i]);
		if (op->kind == OP_WRITEV)
			snprintf(s + used, n - used, " tag=0x%08" PRIx32,
				 op->tag);
		break;
	case OP_TRUNCATE:
		snprintf(s, n, "%s %c %zu%s", name, file, op->off,
			 op->flag ? " shrinkmap" : "");
		break;
	case OP_FALLOC:
		snprintf(s, n, "%s %c %s %zu %zu", name, file,
			 falloc_modes[op->mode].name, op->off, op->len);
		break;
	case OP_FSYNC:
	case OP_FDATASYNC:
		snprintf(s, n, "%s %c", name, file);
		break;
	case OP_COPY:
		snprintf(s, n, "%s %c %c %zu %zu %zu", name, file,
			 'a' + op->dst, op->off, op->dst_off, op->len);
		break;
	case OP_CORRUPT:
		snprintf(s, n, "%s %c %zu", name, file, op->off);
		break;
	default:
		snprintf(s, n, "%s", name);
	}
}

static bool parse_segments(char *tok, struct op *op)
{
	char *end;

	for (;;) {
		if (op->nseg == MAX_SEGS || !isdigit(*tok))
			return false;
		op->seg_len[op->nseg] = strtoull(tok, &end, 10);
		if (*end != '@' || !isdigit(end[1]))
			return false;
		op->seg_mem[op->nseg] = strtoull(end + 1, &end, 10);
		op->len += op->seg_len[op->nseg++];
		if (!*end)
			return true;
		if (*end != ',')
			return false;
		tok = end + 1;
	}
}

/*
 * Read one log line.  The fields are picked up loosely, then the op is
 * printed back: only a line that reads back identically is accepted.
 */
static bool parse_op(const char *line, struct op *op)
{
	char copy[LINE_LEN], again[LINE_LEN], *tok, *save;
	size_t nums[3];
	int nnums = 0, nfiles = 0, kind, mode;

	if (strlen(line) >= sizeof(copy))
		return false;
	strcpy(copy, line);
	memset(op, 0, sizeof(*op));
	tok = strtok_r(copy, " ", &save);
	if (!tok)
		return false;
	for (kind = 0; kind < NR_OPS && strcmp(tok, op_names[kind]); kind++)
		;
	if (kind == NR_OPS)
		return false;
	op->kind = kind;
	while ((tok = strtok_r(NULL, " ", &save))) {
		if ((!strcmp(tok, "a") || !strcmp(tok, "b")) && nfiles < 2) {
			*(nfiles++ ? &op->dst : &op->file) = tok[0] - 'a';
		} else if (!strncmp(tok, "mem=", 4)) {
			op->mem = strtoull(tok + 4, NULL, 10);
		} else if (!strncmp(tok, "tag=", 4)) {
			op->tag = strtoul(tok + 4, NULL, 16);
		} else if (!strcmp(tok, "write") || !strcmp(tok, "direct") ||
			   !strcmp(tok, "shrinkmap")) {
			op->flag = true;
		} else if (strchr(tok, '@')) {
			if (!parse_segments(tok, op))
				return false;
		} else if (isdigit(*tok) && nnums < 3) {
			nums[nnums++] = strtoull(tok, NULL, 10);
		} else if (strcmp(tok, "read")) {
			for (mode = 0; mode < NR_FALLOC &&
			     strcmp(tok, falloc_modes[mode].name); mode++)
				;
			if (mode == NR_FALLOC)
				return false;
			op->mode = mode;
		}
	}
	if (nnums > 0)
		op->off = nums[0];
	if (nnums > 1)
		op->len = nums[1];
	if (op->kind == OP_COPY && nnums == 3) {
		op->dst_off = nums[1];
		op->len = nums[2];
	}
	format_op(op, again, sizeof(again));
	return !strcmp(again, line);
}

static void note(struct instance *in, const char *fmt, ...)
{
	char msg[LINE_LEN];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (!cfg.quiet) {
		printf("fsmodel[%d]: note: %s\n", in->id, msg);
		fflush(stdout);
	}
	if (in->log) {
		fprintf(in->log, "# note: %s\n", msg);
		fflush(in->log);
	}
}

/* Report a failure of the running op, with what led to it. */
static bool fail(struct instance *in, const char *fmt, ...)
{
	long first = max_size(in->seq, HISTORY_LEN) - HISTORY_LEN + 1, seq;
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	fprintf(stderr, "fsmodel: FAIL seed=%" PRIu64
		" instance=%d op=%ld: %s\n", in->seed, in->id, in->seq,
		in->current);
	fprintf(stderr, "last %ld operations:\n", in->seq - first + 1);
	for (seq = first; seq <= in->seq; seq++)
		fprintf(stderr, "%8ld %s\n", seq,
			in->history[seq % HISTORY_LEN]);
	fprintf(stderr, "%s\n", msg);
	if (in->log) {
		fprintf(in->log, "# FAIL at op %ld (details on stderr)\n",
			in->seq);
		fflush(in->log);
	}
	return false;
}

/* A call failed where the model expects success. */
static bool fail_errno(struct instance *in, const char *what)
{
	return fail(in, "%s: unexpected error: %s", what, strerror(errno));
}

static bool verify(struct instance *in, int file, size_t off,
		   const unsigned char *found, size_t n, const char *what)
{
	const unsigned char *want = in->files[file].model + off;
	char want_hex[16 * 3 + 1] = "", found_hex[16 * 3 + 1] = "";
	size_t first = n, differ = 0, i;

	if (!memcmp(want, found, n))
		return true;
	for (i = 0; i < n; i++) {
		if (want[i] == found[i])
			continue;
		if (first == n)
			first = i;
		differ++;
	}
	for (i = first; i < n && i < first + 16; i++) {
		sprintf(want_hex + 3 * (i - first), "%02x ", want[i]);
		sprintf(found_hex + 3 * (i - first), "%02x ", found[i]);
	}
	return fail(in, "%s: data mismatch in file %c: first bad offset %zu: "
		    "expected 0x%02x, found 0x%02x\n"
		    "%zu of %zu bytes differ in %zu..%zu\n"
		    "expected: %s\nfound:    %s", what, 'a' + file,
		    off + first, want[first], found[first], differ, n, off,
		    off + n - 1, want_hex, found_hex);
}

/* A read of @len at @off returned @got into @buf: count and bytes. */
static bool verify_read(struct instance *in, int file, size_t off,
			size_t len, const unsigned char *buf, ssize_t got,
			const char *what)
{
	size_t size = in->files[file].size;
	size_t want = expected_count(size, off, len);

	if (got < 0)
		return fail_errno(in, what);
	if ((size_t)got != want)
		return fail(in, "%s: count mismatch: returned %zd, the model "
			    "expects %zu (file %c is %zu bytes)", what, got,
			    want, 'a' + file, size);
	return verify(in, file, off, buf, got, what);
}

static bool check_size(struct instance *in, int file)
{
	struct stat st;

	if (fstat(in->files[file].fd, &st))
		return fail_errno(in, "fstat");
	if ((size_t)st.st_size != in->files[file].size)
		return fail(in, "size mismatch: file %c is %lld bytes, the "
			    "model says %zu",
			    'a' + file, (long long)st.st_size,
			    in->files[file].size);
	return true;
}

static bool check_file(struct instance *in, int file)
{
	size_t len = cfg.maxsize + in->page;
	ssize_t ret;

	if (!check_size(in, file))
		return false;
	ret = RETRY_EINTR(pread(in->files[file].fd, in->filebuf, len, 0));
	return verify_read(in, file, 0, len, in->filebuf, ret,
			   "whole-file pread");
}

/* The model takes @n bytes of the pattern of @tag written at @off. */
static void model_write(struct file_state *f, size_t off, size_t n,
			uint32_t tag)
{
	fill_pattern(f->model + off, tag, off, n);
	f->size = max_size(f->size, off + n);
}

static void model_zero(struct file_state *f, size_t from, size_t to)
{
	if (from < to)
		memset(f->model + from, 0, to - from);
}

/*
 * A write of @len bytes at @off returned @ret.  Only running out of space
 * (ENOSPC, EFBIG) may cut it short: the model takes what was written, and
 * the rest is written again through the page cache to hear the reason.
 */
static bool finish_write(struct instance *in, int file, size_t off,
			 size_t len, uint32_t tag, ssize_t ret,
			 const char *what)
{
	struct file_state *f = &in->files[file];
	size_t done = 0;

	if ((size_t)ret == len) {
		model_write(f, off, len, tag);
		return true;
	}
	if (ret >= 0) {
		done = ret;
		model_write(f, off, done, tag);
		fill_pattern(in->iobuf, tag, off + done, len - done);
		ret = RETRY_EINTR(pwrite(f->fd, in->iobuf, len - done,
					 off + done));
		if (ret >= 0) {
			model_write(f, off + done, ret, tag);
			return fail(in, "%s: short write of %zu bytes out of "
				    "%zu, not for lack of space", what, done,
				    len);
		}
	}
	if (errno != ENOSPC && errno != EFBIG)
		return fail_errno(in, what);
	note(in, "%s: %s after %zu of %zu bytes", what, strerror(errno), done,
	     len);
	return true;
}

static void unmap_file(struct instance *in)
{
	if (in->map)
		munmap(in->map, in->map_len);
	in->map = NULL;
	in->map_len = 0;
}

/* Make the mapping of file a reach @end, growing it to the whole file. */
static bool map_cover(struct instance *in, size_t end)
{
	size_t want = round_up(in->files[0].size, in->page);
	void *map;

	if (in->map && end <= in->map_len)
		return true;
	if (in->map)
		map = mremap(in->map, in->map_len, want, MREMAP_MAYMOVE);
	else
		map = mmap(NULL, want, PROT_READ | PROT_WRITE, MAP_SHARED,
			   in->files[0].fd, 0);
	if (map == MAP_FAILED)
		return fail_errno(in, in->map ? "mremap" : "mmap");
	in->map = map;
	in->map_len = want;
	return true;
}

static void close_files(struct instance *in)
{
	int i;

	unmap_file(in);
	for (i = 0; i < 2; i++) {
		if (in->files[i].fd >= 0)
			close(in->files[i].fd);
		if (in->files[i].dfd >= 0)
			close(in->files[i].dfd);
		in->files[i].fd = in->files[i].dfd = -1;
	}
}

/* Open both files, and their O_DIRECT twins when O_DIRECT works: 0 or errno. */
static int open_files(struct instance *in, int create)
{
	int i;

	for (i = 0; i < 2; i++) {
		struct file_state *f = &in->files[i];

		f->fd = open(f->path, O_RDWR | create, 0644);
		if (f->fd < 0)
			return errno;
		if (!in->dio_ok)
			continue;
		f->dfd = open(f->path, O_RDWR | O_DIRECT);
		if (f->dfd < 0)
			return errno;
	}
	return 0;
}

static bool run_remount_cmd(void)
{
	int status;

	fflush(NULL);
	status = system(cfg.remount_cmd);
	if (status != -1 && WIFEXITED(status) && !WEXITSTATUS(status))
		return true;
	fprintf(stderr, "fsmodel: remount command '%s' failed (status %#x)\n",
		cfg.remount_cmd, status);
	return false;
}

/* With every file closed: let the command (or the parent) remount. */
static bool remount(struct instance *in)
{
	char c = 'r';

	if (in->barrier_up < 0)
		return !cfg.remount_cmd || run_remount_cmd() ||
		       fail(in, "the remount command failed");
	if (RETRY_EINTR(write(in->barrier_up, &c, 1)) != 1 ||
	    RETRY_EINTR(read(in->barrier_down, &c, 1)) != 1)
		return fail(in, "lost the parent at the remount barrier");
	return c == 'g' || fail(in, "the remount command failed");
}

static void drop_caches(struct instance *in)
{
	int fd = open("/proc/sys/vm/drop_caches", O_WRONLY);
	int err;

	if (fd >= 0 && write(fd, "3", 1) == 1) {
		close(fd);
		return;
	}
	err = errno;
	if (fd >= 0)
		close(fd);
	note(in, "cannot drop caches (%s): -D off", strerror(err));
	cfg.drop_caches = false;
}

static bool op_reopen(struct instance *in, bool remounting)
{
	int err;

	close_files(in);
	if (remounting && !remount(in))
		return false;
	if (!remounting && cfg.drop_caches)
		drop_caches(in);
	err = open_files(in, 0);
	if (err)
		return fail(in, "reopen: unexpected error: %s",
			    strerror(err));
	if (in->files[0].size && !map_cover(in, 0))
		return false;
	return !remounting || (check_file(in, 0) && check_file(in, 1));
}

/*
 * Called with the result @ret of a valid O_DIRECT transfer.  EINVAL before
 * any such transfer worked: the filesystem accepts O_DIRECT at open but has
 * no direct I/O (stock minix), so O_DIRECT cannot work on it at all.  Turns
 * O_DIRECT off, as open_direct() does when open itself fails, and says
 * whether it did.
 */
static bool direct_io_missing(struct instance *in, ssize_t ret,
			      const char *what)
{
	int i;

	if (ret > 0)
		in->dio_worked = true;
	if (ret >= 0 || errno != EINVAL || in->dio_worked)
		return false;
	note(in, "%s: EINVAL before any O_DIRECT transfer worked: dread, "
	     "dwrite, badio and O_DIRECT uread disabled", what);
	for (i = 0; i < 2; i++) {
		close(in->files[i].dfd);
		in->files[i].dfd = -1;
	}
	in->dio_ok = false;
	in->weights[OP_DREAD] = in->weights[OP_DWRITE] = 0;
	in->weights[OP_BADIO] = 0;
	return true;
}

static bool op_uread(struct instance *in, const struct op *op)
{
	struct file_state *f = &in->files[op->file];
	unsigned char *buf = in->iobuf + op->mem;
	struct io_uring_sqe *sqe = io_uring_get_sqe(&in->ring);
	struct io_uring_cqe *cqe;
	ssize_t ret;
	int err;

	if (!sqe)
		return fail(in, "io_uring: no free submission entry");
	io_uring_prep_read(sqe, op->flag ? f->dfd : f->fd, buf, op->len,
			   op->off);
	err = io_uring_submit(&in->ring);
	if (err < 0)
		return fail(in, "io_uring_submit: unexpected error: %s",
			    strerror(-err));
	do
		err = io_uring_wait_cqe(&in->ring, &cqe);
	while (err == -EINTR);
	if (err < 0)
		return fail(in, "io_uring_wait_cqe: unexpected error: %s",
			    strerror(-err));
	ret = cqe->res;
	io_uring_cqe_seen(&in->ring, cqe);
	if (ret < 0) {
		errno = -ret;
		ret = -1;
	}
	if (op->flag && direct_io_missing(in, ret, "O_DIRECT io_uring read"))
		return true;
	return verify_read(in, op->file, op->off, op->len, buf, ret,
			   "io_uring read");
}

static bool op_badio(struct instance *in, const struct op *op)
{
	struct file_state *f = &in->files[op->file];
	unsigned char *buf = in->iobuf + op->mem;
	ssize_t ret;

	if (!op->flag) {
		ret = RETRY_EINTR(pread(f->dfd, buf, op->len, op->off));
		/*
		 * Holes, unwritten extents and reads at EOF are answered
		 * without looking at the alignment: then the data must be
		 * right.
		 */
		if (ret < 0 && errno == EINVAL)
			return true;
		return verify_read(in, op->file, op->off, op->len, buf, ret,
				   "misaligned O_DIRECT pread");
	}
	fill_pattern(buf, op->tag, op->off, op->len);
	ret = RETRY_EINTR(pwrite(f->dfd, buf, op->len, op->off));
	/* Only the buffer misaligned: all or nothing (see gen_badio()). */
	if (ret >= 0 && !(op->off % in->dio_off_align))
		return finish_write(in, op->file, op->off, op->len, op->tag,
				    ret, "misaligned-buffer O_DIRECT pwrite");
	if (ret >= 0)
		return fail(in, "misaligned O_DIRECT pwrite returned %zd, "
			    "expected EINVAL", ret);
	if (errno != EINVAL)
		return fail_errno(in, "misaligned O_DIRECT pwrite (expected "
				  "EINVAL)");
	/* It must have changed nothing: look at the range. */
	if (!check_size(in, op->file))
		return false;
	ret = RETRY_EINTR(pread(f->fd, in->iobuf, op->len, op->off));
	return verify_read(in, op->file, op->off, op->len, in->iobuf, ret,
			   "pread after a failed misaligned write");
}

static void build_iov(struct instance *in, const struct op *op,
		      struct iovec *iov)
{
	int i;

	for (i = 0; i < op->nseg; i++) {
		iov[i].iov_base = in->iovbuf + i * in->iov_region +
				  op->seg_mem[i];
		iov[i].iov_len = op->seg_len[i];
	}
}

static bool op_readv(struct instance *in, const struct op *op)
{
	struct iovec iov[MAX_SEGS];
	size_t want = expected_count(in->files[op->file].size, op->off,
				     op->len);
	size_t pos = 0;
	ssize_t ret;
	int i;

	build_iov(in, op, iov);
	ret = RETRY_EINTR(preadv2(in->files[op->file].fd, iov, op->nseg,
				  op->off, 0));
	if (ret < 0)
		return fail_errno(in, "preadv2");
	if ((size_t)ret != want)
		return fail(in, "preadv2: count mismatch: returned %zd, the "
			    "model expects %zu", ret, want);
	for (i = 0; i < op->nseg && pos < want; i++) {
		size_t n = min_size(op->seg_len[i], want - pos);

		if (!verify(in, op->file, op->off + pos, iov[i].iov_base, n,
			    "preadv2"))
			return false;
		pos += n;
	}
	return true;
}

static bool op_writev(struct instance *in, const struct op *op)
{
	struct iovec iov[MAX_SEGS];
	size_t pos = 0;
	ssize_t ret;
	int i;

	build_iov(in, op, iov);
	for (i = 0; i < op->nseg; i++) {
		fill_pattern(iov[i].iov_base, op->tag, op->off + pos,
			     op->seg_len[i]);
		pos += op->seg_len[i];
	}
	ret = RETRY_EINTR(pwritev2(in->files[op->file].fd, iov, op->nseg,
				   op->off, 0));
	return finish_write(in, op->file, op->off, op->len, op->tag, ret,
			    "pwritev2");
}

static bool op_truncate(struct instance *in, const struct op *op)
{
	struct file_state *f = &in->files[op->file];
	size_t want;
	void *map;

	if (RETRY_EINTR(ftruncate(f->fd, op->off)))
		return fail_errno(in, "ftruncate");
	model_zero(f, op->off, f->size);
	f->size = op->off;
	if (op->file || !op->flag || !in->map)
		return true;
	want = round_up(f->size, in->page);
	if (!want) {
		unmap_file(in);
	} else if (want < in->map_len) {
		map = mremap(in->map, in->map_len, want, 0);
		if (map == MAP_FAILED)
			return fail_errno(in, "mremap down");
		in->map = map;
		in->map_len = want;
	}
	return true;
}

static bool op_falloc(struct instance *in, const struct op *op)
{
	struct file_state *f = &in->files[op->file];
	size_t end = op->off + op->len;
	int i;

	if (RETRY_EINTR(fallocate(f->fd, falloc_modes[op->mode].mode,
				  op->off, op->len))) {
		if (errno != EOPNOTSUPP)
			return fail_errno(in, "fallocate");
		if (!in->falloc_unsupported[op->mode])
			note(in, "fallocate %s: EOPNOTSUPP, mode disabled",
			     falloc_modes[op->mode].name);
		in->falloc_unsupported[op->mode] = true;
		for (i = 0; i < NR_FALLOC && in->falloc_unsupported[i]; i++)
			;
		if (i == NR_FALLOC)
			in->weights[OP_FALLOC] = 0;
		return true;
	}
	switch (op->mode) {
	case FA_ALLOC:
		f->size = max_size(f->size, end);
		break;
	case FA_KEEP:
		break;
	case FA_PUNCH:
	case FA_ZERO_KEEP:
		model_zero(f, op->off, min_size(end, f->size));
		break;
	case FA_ZERO:
		model_zero(f, op->off, end);
		f->size = max_size(f->size, end);
		break;
	case FA_COLLAPSE:
		memmove(f->model + op->off, f->model + end, f->size - end);
		model_zero(f, f->size - op->len, f->size);
		f->size -= op->len;
		break;
	case FA_INSERT:
		memmove(f->model + end, f->model + op->off,
			f->size - op->off);
		model_zero(f, op->off, end);
		f->size += op->len;
		break;
	}
	return true;
}

/* copy_file_range may stop short (source EOF, a reflink cut to blocks). */
static bool op_copy(struct instance *in, const struct op *op)
{
	struct file_state *src = &in->files[op->file];
	struct file_state *dst = &in->files[op->dst];
	size_t want = expected_count(src->size, op->off, op->len);
	size_t done = 0;
	ssize_t ret;

	do {
		loff_t in_off = op->off + done, out_off = op->dst_off + done;

		ret = RETRY_EINTR(copy_file_range(src->fd, &in_off, dst->fd,
						  &out_off, op->len - done,
						  0));
		/*
		 * EINVAL for a valid request before any copy worked: the
		 * filesystem has no splice_write for the fallback to use
		 * (minix), so copy_file_range() cannot work on it at all.
		 */
		if (ret < 0 && !done && (errno == EOPNOTSUPP ||
					 (errno == EINVAL && !in->copy_worked))) {
			note(in, "copy_file_range: %s, copy disabled",
			     strerror(errno));
			in->copy_unsupported = true;
			in->weights[OP_COPY] = 0;
			return true;
		}
		if (ret < 0 && (errno == ENOSPC || errno == EFBIG)) {
			note(in, "copy_file_range: %s after %zu of %zu bytes",
			     strerror(errno), done, want);
			return true;
		}
		if (ret < 0)
			return fail_errno(in, "copy_file_range");
		if (!ret)
			break;
		in->copy_worked = true;
		if (done + ret > want)
			return fail(in, "copy_file_range: count mismatch: "
				    "copied %zu bytes, the model expects %zu",
				    done + ret, want);
		memcpy(dst->model + op->dst_off + done,
		       src->model + op->off + done, ret);
		done += ret;
		dst->size = max_size(dst->size, op->dst_off + done);
	} while (done < want);
	if (done != want)
		return fail(in, "copy_file_range: count mismatch: copied %zu "
			    "bytes, the model expects %zu", done, want);
	return true;
}

static bool execute(struct instance *in, const struct op *op)
{
	struct file_state *f = &in->files[op->file];
	unsigned char *buf = in->iobuf + op->mem;
	ssize_t ret;

	if ((op->kind == OP_DREAD || op->kind == OP_DWRITE ||
	     op->kind == OP_BADIO || (op->kind == OP_UREAD && op->flag)) &&
	    f->dfd < 0)
		return fail(in, "O_DIRECT is not available here");
	if (op->kind == OP_UREAD && !in->ring_ok)
		return fail(in, "io_uring is not available here");

	switch (op->kind) {
	case OP_READ:
	case OP_DREAD:
		ret = RETRY_EINTR(pread(op->kind == OP_READ ? f->fd : f->dfd,
					buf, op->len, op->off));
		if (op->kind == OP_DREAD &&
		    direct_io_missing(in, ret, "O_DIRECT pread"))
			return true;
		return verify_read(in, op->file, op->off, op->len, buf, ret,
				   op->kind == OP_READ ? "pread" :
				   "O_DIRECT pread");
	case OP_WRITE:
	case OP_DWRITE:
		fill_pattern(buf, op->tag, op->off, op->len);
		ret = RETRY_EINTR(pwrite(op->kind == OP_WRITE ? f->fd : f->dfd,
					 buf, op->len, op->off));
		if (op->kind == OP_DWRITE &&
		    direct_io_missing(in, ret, "O_DIRECT pwrite"))
			return true;
		return finish_write(in, op->file, op->off, op->len, op->tag,
				    ret, op->kind == OP_WRITE ? "pwrite" :
				    "O_DIRECT pwrite");
	case OP_BADIO:
		return op_badio(in, op);
	case OP_READV:
		return op_readv(in, op);
	case OP_WRITEV:
		return op_writev(in, op);
	case OP_UREAD:
		return op_uread(in, op);
	case OP_MREAD:
		/* Past EOF to the end of its page, mapped bytes read zero. */
		if (!map_cover(in, op->off + op->len))
			return false;
		memcpy(in->iobuf, in->map + op->off, op->len);
		return verify(in, 0, op->off, in->iobuf, op->len,
			      "mapped read");
	case OP_MWRITE:
		if (!map_cover(in, op->off + op->len))
			return false;
		fill_pattern(in->map + op->off, op->tag, op->off, op->len);
		model_write(f, op->off, op->len, op->tag);
		return true;
	case OP_TRUNCATE:
		return op_truncate(in, op);
	case OP_FALLOC:
		return op_falloc(in, op);
	case OP_FSYNC:
		return !RETRY_EINTR(fsync(f->fd)) ||
		       fail_errno(in, "fsync");
	case OP_FDATASYNC:
		return !RETRY_EINTR(fdatasync(f->fd)) ||
		       fail_errno(in, "fdatasync");
	case OP_MSYNC:
		return !msync(in->map, in->map_len, MS_SYNC) ||
		       fail_errno(in, "msync");
	case OP_COPY:
		return op_copy(in, op);
	case OP_REOPEN:
	case OP_REMOUNT:
		return op_reopen(in, op->kind == OP_REMOUNT);
	case OP_CHECK:
		return check_file(in, 0) && check_file(in, 1);
	case OP_CORRUPT:
		f->model[op->off] = ~f->model[op->off];
		in->corrupted = true;
		return true;
	default:
		return fail(in, "unknown op");
	}
}

/*
 * Whether a replayed op fits the current state and the buffers: a shrunk
 * log may hold ops that made sense only after the ops taken out.
 */
static bool op_valid(const struct instance *in, const struct op *op)
{
	const struct file_state *f = &in->files[op->file];
	size_t end = op->off + op->len;
	bool writes = op->kind == OP_WRITE || op->kind == OP_DWRITE ||
		      op->kind == OP_WRITEV || op->kind == OP_FALLOC ||
		      (op->kind == OP_BADIO && op->flag);
	int i;

	if (op->off > cfg.maxsize || op->len > cfg.maxsize ||
	    op->dst_off > cfg.maxsize || op->mem >= 2 * in->buf_align ||
	    (writes && end > cfg.maxsize))
		return false;
	switch (op->kind) {
	case OP_READ:
	case OP_WRITE:
	case OP_DREAD:
	case OP_DWRITE:
	case OP_BADIO:
	case OP_UREAD:
		return op->len && op->len <= cfg.maxlen;
	case OP_READV:
	case OP_WRITEV:
		for (i = 0; i < op->nseg; i++)
			if (!op->seg_len[i] ||
			    op->seg_mem[i] + op->seg_len[i] > in->iov_region)
				return false;
		return op->nseg >= 2;
	case OP_MREAD:
		return !op->file && op->len && op->len <= cfg.maxlen &&
		       end <= round_up(f->size, in->page);
	case OP_MWRITE:
		return !op->file && op->len && op->len <= cfg.maxlen &&
		       end <= f->size;
	case OP_FALLOC:
		if (op->mode == FA_COLLAPSE)
			return op->len && end < f->size;
		if (op->mode == FA_INSERT)
			return op->len && op->off < f->size &&
			       f->size + op->len <= cfg.maxsize;
		return op->len;
	case OP_MSYNC:
		return in->map;
	case OP_COPY:
		return op->len && op->file != op->dst &&
		       op->dst_off + op->len <= cfg.maxsize;
	case OP_CORRUPT:
		return op->off < f->size;
	default:
		return true;
	}
}

/* An offset in [0, limit], often where bugs live: 0, EOF, boundaries. */
static size_t pick_offset(struct instance *in, size_t size, size_t limit)
{
	size_t off;

	switch (rnd(in, 8)) {
	case 0:
		return 0;
	case 1:		/* within a page either side of EOF */
		off = size + rnd(in, 2 * in->page);
		off = off > in->page ? off - in->page : 0;
		break;
	case 2:
		off = rnd(in, limit / in->page + 1) * in->page;
		break;
	case 3:		/* a block boundary, or a byte either side */
		off = rnd(in, limit / in->block + 1) * in->block +
		      rnd(in, 3);
		off = off ? off - 1 : 0;
		break;
	default:
		off = rnd(in, limit + 1);
	}
	return min_size(off, limit);
}

/* A length in [1, max], often small. */
static size_t pick_length(struct instance *in, size_t max)
{
	switch (rnd(in, 4)) {
	case 0:
		return 1 + rnd(in, min_size(max, 64));
	case 1:
		return 1 + rnd(in, min_size(max, in->page));
	default:
		return 1 + rnd(in, max);
	}
}

/* A new size: boundaries, their middles, 0, and up or down from @size. */
static size_t pick_size(struct instance *in, size_t size)
{
	size_t unit = rnd(in, 2) ? in->page : in->block;
	size_t units = rnd(in, cfg.maxsize / unit + 1), new;

	switch (rnd(in, 10)) {
	case 0:
		new = 0;
		break;
	case 1:
		new = units * unit;
		break;
	case 2:
		new = units * unit + unit / 2;
		break;
	case 3:
	case 4:
		new = size - rnd(in, min_size(size, cfg.maxlen) + 1);
		break;
	case 5:
	case 6:
		new = size + rnd(in, cfg.maxlen + 1);
		break;
	case 7:		/* a byte either side */
		new = size + rnd(in, 3);
		new = new ? new - 1 : 0;
		break;
	default:
		new = rnd(in, cfg.maxsize + 1);
	}
	return min_size(new, cfg.maxsize);
}

/*
 * An O_DIRECT transfer: offset and length multiples of the offset
 * alignment, the buffer a multiple of the memory alignment past a page.
 */
static void pick_dio(struct instance *in, struct op *op, bool write)
{
	size_t align = in->dio_off_align;
	size_t limit = cfg.maxsize;

	op->len = pick_length(in, cfg.maxlen / align) * align;
	if (write)
		limit -= op->len;
	op->off = round_down(pick_offset(in, in->files[op->file].size, limit),
			     align);
	op->mem = rnd(in, in->page / in->dio_mem_align) * in->dio_mem_align;
}

/*
 * A misaligned O_DIRECT transfer: the file offset, or only the buffer.  A
 * write's misaligned buffer stays within one page: Linux 6.18 takes such a
 * write whole, and returns EINVAL after writing the first page of one that
 * crosses pages; 6.12 refuses either before writing anything.
 */
static bool gen_badio(struct instance *in, struct op *op)
{
	size_t off_align = in->dio_off_align, mem_align = in->dio_mem_align;
	size_t page = in->page, mem_units;
	bool misalign_mem;

	op->flag = rnd(in, 2);
	misalign_mem = mem_align > 1 && (!op->flag || (off_align < page &&
					 page - off_align >= mem_align));
	if (off_align > 1 && (!misalign_mem || rnd(in, 2)))
		misalign_mem = false;
	else if (!misalign_mem)
		return false;
	pick_dio(in, op, op->flag);
	if (!misalign_mem) {
		op->off += 1 + rnd(in, off_align - 1);
		if (op->off + (op->flag ? op->len : 0) > cfg.maxsize &&
		    op->off > off_align)
			op->off -= off_align;
	} else if (!op->flag) {
		op->mem += 1 + rnd(in, mem_align - 1);
	} else {
		mem_units = (page - off_align) / mem_align;
		op->mem = rnd(in, mem_units) * mem_align + 1 +
			  rnd(in, mem_align - 1);
		op->len = off_align * (1 + rnd(in, (page - op->mem) /
						   off_align));
	}
	if (op->flag)
		op->tag = random_tag(in);
	return !op->flag || op->off + op->len <= cfg.maxsize;
}

static void gen_vector(struct instance *in, struct op *op, bool write)
{
	size_t each = max_size(cfg.maxlen / MAX_SEGS, 2), limit = cfg.maxsize;
	size_t cross;
	int i;

	op->nseg = 2 + rnd(in, MAX_SEGS - 1);
	cross = rnd(in, op->nseg);
	for (i = 0; i < op->nseg; i++) {
		size_t len = pick_length(in, each);

		if ((size_t)i == cross) {
			/* Start below a page boundary and end past it. */
			len = max_size(len, 2);
			op->seg_mem[i] = in->page - 1 -
				rnd(in, min_size(len - 1, in->page - 1));
		} else {
			op->seg_mem[i] = rnd(in, in->page);
		}
		op->seg_len[i] = len;
		op->len += len;
	}
	if (write)
		limit -= op->len;
	op->off = pick_offset(in, in->files[op->file].size, limit);
}

static bool gen_falloc(struct instance *in, struct op *op)
{
	struct file_state *f = &in->files[op->file];
	size_t bs = in->block, max_units = max_size(cfg.maxlen / bs, 1);
	size_t units;
	int modes[NR_FALLOC], n = 0, i;

	for (i = 0; i < NR_FALLOC; i++)
		if (!in->falloc_unsupported[i])
			modes[n++] = i;
	op->mode = modes[rnd(in, n)];
	switch (op->mode) {
	case FA_COLLAPSE:
		/* Whole blocks, ending before EOF. */
		units = f->size ? (f->size - 1) / bs : 0;
		if (!units)
			return false;
		op->len = (1 + rnd(in, min_size(units, max_units))) * bs;
		op->off = rnd(in, units - op->len / bs + 1) * bs;
		return true;
	case FA_INSERT:
		/* Whole blocks, from inside the file, within the max size. */
		units = (cfg.maxsize - f->size) / bs;
		if (!f->size || !units)
			return false;
		op->len = (1 + rnd(in, min_size(units, max_units))) * bs;
		op->off = rnd(in, (f->size - 1) / bs + 1) * bs;
		return true;
	default:
		op->len = pick_length(in, cfg.maxlen);
		op->off = pick_offset(in, f->size, cfg.maxsize - op->len);
		return true;
	}
}

/* Fill in the arguments of @op; false if it cannot run now. */
static bool fill_op(struct instance *in, struct op *op)
{
	struct file_state *f = &in->files[op->file];

	switch (op->kind) {
	case OP_READ:
	case OP_WRITE:
		op->len = pick_length(in, cfg.maxlen);
		op->off = pick_offset(in, f->size, cfg.maxsize -
				      (op->kind == OP_WRITE ? op->len : 0));
		break;
	case OP_DREAD:
	case OP_DWRITE:
		pick_dio(in, op, op->kind == OP_DWRITE);
		break;
	case OP_BADIO:
		return gen_badio(in, op);
	case OP_READV:
	case OP_WRITEV:
		gen_vector(in, op, op->kind == OP_WRITEV);
		break;
	case OP_UREAD:
		op->flag = in->dio_ok && !rnd(in, 5);
		if (op->flag) {
			pick_dio(in, op, false);
			break;
		}
		op->len = pick_length(in, cfg.maxlen);
		op->off = pick_offset(in, f->size, cfg.maxsize);
		break;
	case OP_MREAD:
	case OP_MWRITE:
		/* Mapped writes stay below EOF, reads in the EOF page. */
		if (!f->size)
			return false;
		op->off = pick_offset(in, f->size, f->size - 1);
		op->len = pick_length(in, min_size(cfg.maxlen,
			(op->kind == OP_MREAD ? round_up(f->size, in->page) :
			 f->size) - op->off));
		break;
	case OP_TRUNCATE:
		op->off = pick_size(in, f->size);
		op->flag = !op->file && in->map && op->off < f->size &&
			   rnd(in, 2);
		break;
	case OP_FALLOC:
		return gen_falloc(in, op);
	case OP_MSYNC:
		return in->map;
	case OP_COPY:
		op->dst = !op->file;
		op->len = pick_length(in, cfg.maxlen);
		op->off = pick_offset(in, f->size, cfg.maxsize);
		op->dst_off = pick_offset(in, in->files[op->dst].size,
					  cfg.maxsize - op->len);
		break;
	default:
		break;
	}
	if (op->kind == OP_WRITE || op->kind == OP_DWRITE ||
	    op->kind == OP_WRITEV || op->kind == OP_MWRITE)
		op->tag = random_tag(in);
	return true;
}

static void generate_op(struct instance *in, struct op *op)
{
	unsigned int total = 0, r;
	int kind, tries;

	for (kind = 0; kind < NR_WEIGHTED; kind++)
		total += in->weights[kind];
	/*
	 * Redraw an op that cannot run now (a mapped access to an empty
	 * file); if the weights leave nothing that can, check instead.
	 */
	for (tries = 0; total && tries < 100; tries++) {
		memset(op, 0, sizeof(*op));
		r = rnd(in, total);
		for (kind = 0; r >= in->weights[kind]; kind++)
			r -= in->weights[kind];
		op->kind = kind;
		/* File a, which is also mapped, twice as often as b. */
		op->file = rnd(in, 3) == 0 && kind != OP_MREAD &&
			   kind != OP_MWRITE;
		if (fill_op(in, op))
			return;
	}
	memset(op, 0, sizeof(*op));
	op->kind = OP_CHECK;
}

/* Log @op (flushed, so a crash leaves it), then run it. */
static bool run_op(struct instance *in, const struct op *op)
{
	format_op(op, in->current, sizeof(in->current));
	in->seq++;
	strcpy(in->history[in->seq % HISTORY_LEN], in->current);
	if (in->log) {
		fprintf(in->log, "%s\n", in->current);
		fflush(in->log);
	}
	in->counts[op->kind]++;
	return execute(in, op);
}

static bool run_kind(struct instance *in, enum op_kind kind)
{
	struct op op = { .kind = kind };

	return run_op(in, &op);
}

/* -C: once past op OPNUM, with file a not empty, corrupt the model. */
static bool maybe_corrupt(struct instance *in)
{
	struct op op = { .kind = OP_CORRUPT };

	if (!cfg.corrupt_after || in->corrupted ||
	    in->seq < cfg.corrupt_after || !in->files[0].size)
		return true;
	op.off = mix64(in->seed ^ in->seq) % in->files[0].size;
	return run_op(in, &op) && run_kind(in, OP_CHECK);
}

static bool run_random(struct instance *in)
{
	struct op op;
	long done;

	for (done = 1; done <= cfg.nops; done++) {
		generate_op(in, &op);
		if (!run_op(in, &op) || !maybe_corrupt(in))
			return false;
		if (cfg.check_every && done % cfg.check_every == 0 &&
		    done < cfg.nops && !run_kind(in, OP_CHECK))
			return false;
		if (cfg.remount_every && done % cfg.remount_every == 0 &&
		    !run_kind(in, OP_REMOUNT))
			return false;
	}
	return run_kind(in, OP_CHECK);
}

static bool run_script(struct instance *in)
{
	char line[LINE_LEN];
	size_t i;

	for (i = 0; i < in->script->len; i++) {
		const struct op *op = &in->script->ops[i];

		if (!op_valid(in, op)) {
			format_op(op, line, sizeof(line));
			if (in->log)
				fprintf(in->log, "# skipped: %s\n", line);
			continue;
		}
		if (!run_op(in, op) || !maybe_corrupt(in))
			return false;
	}
	return true;
}

static void *alloc_buffer(size_t align, size_t len)
{
	void *buf;

	if (posix_memalign(&buf, align, len))
		return NULL;
	memset(buf, 0, len);
	return buf;
}

static int setup_error(struct instance *in, const char *what, int err)
{
	fprintf(stderr, "fsmodel[%d]: %s: %s\n", in->id, what, strerror(err));
	return 2;
}

static int open_log(struct instance *in, bool from_statx)
{
	char path[PATH_MAX];

	if (!cfg.log_path)
		return 0;
	snprintf(path, sizeof(path), cfg.ninstances > 1 ? "%s.%d" : "%s",
		 cfg.log_path, in->id);
	in->log = fopen(path, "w");
	if (!in->log)
		return setup_error(in, path, errno);
	if (in->script)
		fprintf(in->log, "%s\n", in->script->header);
	else
		fprintf(in->log, "# fsmodel seed=%" PRIu64 " instance=%d "
			"maxsize=%zu maxlen=%zu page=%zu block=%zu dio=%zu/%zu"
			" %s\n", cfg.seed, in->id, cfg.maxsize, cfg.maxlen,
			in->page, in->block, in->dio_off_align,
			in->dio_mem_align, from_statx ? "statx" : "fallback");
	fflush(in->log);
	return 0;
}

/* The O_DIRECT twins: EINVAL from open means no O_DIRECT here. */
static int open_direct(struct instance *in)
{
	int i;

	if (cfg.maxlen < in->dio_off_align) {
		note(in, "-L is below the O_DIRECT alignment %zu: no O_DIRECT",
		     in->dio_off_align);
		return 0;
	}
	for (i = 0; i < 2; i++) {
		in->files[i].dfd = open(in->files[i].path, O_RDWR | O_DIRECT);
		if (in->files[i].dfd >= 0)
			continue;
		if (errno != EINVAL)
			return setup_error(in, "open O_DIRECT", errno);
		note(in, "open O_DIRECT: EINVAL: dread, dwrite, badio and "
		     "O_DIRECT uread disabled");
		if (i) {
			close(in->files[0].dfd);
			in->files[0].dfd = -1;
		}
		return 0;
	}
	in->dio_ok = true;
	return 0;
}

static int setup_instance(struct instance *in)
{
	struct statx stx;
	struct stat st;
	size_t len;
	int i, err;

	in->page = sysconf(_SC_PAGESIZE);
	in->seed = in->script ? in->script->seed : cfg.seed + in->id;
	in->rng = mix64(in->seed) | 1;
	for (i = 0; i < 2; i++) {
		struct file_state *f = &in->files[i];

		snprintf(f->path, sizeof(f->path), "%s/fsm.%d.%c", cfg.dir,
			 in->id, 'a' + i);
		f->fd = f->dfd = -1;
		f->model = calloc(1, cfg.maxsize + in->page);
		if (!f->model)
			return setup_error(in, "model", ENOMEM);
		if (unlink(f->path) && errno != ENOENT)
			return setup_error(in, f->path, errno);
	}
	err = open_files(in, O_CREAT | O_EXCL);
	if (err)
		return setup_error(in, "create", err);
	if (fstat(in->files[0].fd, &st))
		return setup_error(in, "fstat", errno);
	in->block = cfg.block ? cfg.block : (size_t)st.st_blksize;
	memset(&stx, 0, sizeof(stx));
	if (!statx(in->files[0].fd, "", AT_EMPTY_PATH, STATX_DIOALIGN, &stx) &&
	    (stx.stx_mask & STATX_DIOALIGN) && stx.stx_dio_offset_align) {
		in->dio_align_known = true;
		in->dio_off_align = stx.stx_dio_offset_align;
		in->dio_mem_align = stx.stx_dio_mem_align;
	} else {
		in->dio_off_align = cfg.dio_align ? cfg.dio_align :
				    (size_t)st.st_blksize;
		in->dio_mem_align = in->dio_off_align;
	}
	in->buf_align = max_size(in->page, in->dio_mem_align);
	err = open_log(in, in->dio_align_known);
	if (!err)
		err = open_direct(in);
	if (err)
		return err;

	err = io_uring_queue_init(4, &in->ring, 0);
	in->ring_ok = err >= 0;
	if (!in->ring_ok)
		note(in, "io_uring_queue_init: %s: uread disabled",
		     strerror(-err));

	in->iobuf_len = round_up(cfg.maxlen, in->buf_align) +
			2 * in->buf_align;
	in->iov_region = round_up(cfg.maxlen + 2 * in->page, in->page);
	in->iobuf = alloc_buffer(in->buf_align, in->iobuf_len);
	in->filebuf = alloc_buffer(in->page, cfg.maxsize + in->page);
	in->iovbuf = alloc_buffer(in->page, MAX_SEGS * in->iov_region);
	if (!in->iobuf || !in->filebuf || !in->iovbuf)
		return setup_error(in, "buffers", ENOMEM);

	memcpy(in->weights, cfg.weights, sizeof(in->weights));
	if (!in->dio_ok)
		in->weights[OP_DREAD] = in->weights[OP_DWRITE] = 0;
	if (!in->dio_ok || !in->dio_align_known ||
	    (in->dio_off_align == 1 && in->dio_mem_align == 1))
		in->weights[OP_BADIO] = 0;
	if (!in->ring_ok)
		in->weights[OP_UREAD] = 0;
	if (!cfg.remount_cmd || cfg.ninstances > 1)
		in->weights[OP_REMOUNT] = 0;
	if (cfg.verbose) {
		char text[LINE_LEN];

		for (i = 0, len = 0; i < NR_WEIGHTED; i++)
			len += snprintf(text + len, sizeof(text) - len,
					" %s=%u", op_names[i], in->weights[i]);
		printf("fsmodel[%d]: page %zu, block %zu, O_DIRECT %s%zu/%zu "
		       "(%s)\nfsmodel[%d]: weights:%s\n", in->id, in->page,
		       in->block, in->dio_ok ? "" : "off, ", in->dio_off_align,
		       in->dio_mem_align, in->dio_align_known ? "statx" :
		       "fallback", in->id, text);
	}
	return 0;
}

static void teardown_instance(struct instance *in)
{
	close_files(in);
	if (in->ring_ok)
		io_uring_queue_exit(&in->ring);
	if (in->log)
		fclose(in->log);
	free(in->files[0].model);
	free(in->files[1].model);
	free(in->iobuf);
	free(in->filebuf);
	free(in->iovbuf);
	free(in);
}

static void print_summary(struct instance *in, bool ok, double secs)
{
	char counts[1024] = "", unsupported[LINE_LEN] = "";
	size_t len = 0, ulen = 0;
	int i;

	for (i = 0; i < NR_OPS; i++)
		if (in->counts[i])
			len += snprintf(counts + len, sizeof(counts) - len,
					"%s%s=%ld", len ? " " : "",
					op_names[i], in->counts[i]);
	for (i = 0; i < NR_FALLOC; i++)
		if (in->falloc_unsupported[i])
			ulen += snprintf(unsupported + ulen,
					 sizeof(unsupported) - ulen, " %s",
					 falloc_modes[i].name);
	snprintf(unsupported + ulen, sizeof(unsupported) - ulen, "%s%s%s",
		 in->dio_ok ? "" : " O_DIRECT", in->ring_ok ? "" : " io_uring",
		 in->copy_unsupported ? " copy_file_range" : "");
	printf("fsmodel[%d]: %ld ops, %.2f s, %.0f ops/s; %s; unsupported:%s; "
	       "%s\n", in->id, in->seq, secs, secs > 0 ? in->seq / secs : 0,
	       counts, unsupported[0] ? unsupported : " none",
	       ok ? "OK" : "FAIL");
	fflush(stdout);
}

static struct instance *running;

static void die_on_signal(int sig)
{
	/*
	 * Not async-signal-safe, but the process dies here anyway and the
	 * report (which op, what led to it) is what makes the death useful.
	 */
	fail(running, "killed by signal %d (%s)", sig, strsignal(sig));
	_exit(1);
}

/* One instance, random or replaying @script: the exit status. */
static int run_instance(int id, const struct script *script, int up,
			int down)
{
	struct sigaction sa = { .sa_handler = die_on_signal,
				.sa_flags = SA_RESETHAND };
	struct instance *in = calloc(1, sizeof(*in));
	struct timespec start, end;
	int status;
	bool ok;

	if (!in)
		return 2;
	in->id = id;
	in->script = script;
	in->barrier_up = up;
	in->barrier_down = down;
	status = setup_instance(in);
	if (status) {
		teardown_instance(in);
		return status;
	}
	running = in;
	sigaction(SIGBUS, &sa, NULL);
	sigaction(SIGSEGV, &sa, NULL);
	clock_gettime(CLOCK_MONOTONIC, &start);
	ok = script ? run_script(in) : run_random(in);
	clock_gettime(CLOCK_MONOTONIC, &end);
	if (!cfg.quiet)
		print_summary(in, ok, end.tv_sec - start.tv_sec +
			      (end.tv_nsec - start.tv_nsec) / 1e9);
	teardown_instance(in);
	return ok ? 0 : 1;
}

/*
 * -n > 1: fork the instances.  With -r they meet at a barrier: each
 * closes its files and writes a byte up its pipe; once every live one has,
 * the parent runs the remount command once and answers 'g' (go) or 'x'.
 */
static int run_parallel(void)
{
	int n = cfg.ninstances, i, j, live, arrived, status, result = 0;
	int (*up)[2] = calloc(n, sizeof(*up));
	int (*down)[2] = calloc(n, sizeof(*down));
	pid_t *pids = calloc(n, sizeof(*pids));
	bool *alive = calloc(n, sizeof(*alive));
	char c;

	if (!up || !down || !pids || !alive)
		return 2;
	for (i = 0; i < n; i++)
		if (pipe(up[i]) || pipe(down[i])) {
			perror("fsmodel: pipe");
			return 2;
		}
	fflush(NULL);
	for (i = 0; i < n; i++) {
		pids[i] = fork();
		if (pids[i] < 0) {
			perror("fsmodel: fork");
			return 2;
		}
		if (pids[i])
			continue;
		for (j = 0; j < n; j++) {
			if (j == i)
				continue;
			close(up[j][1]);
			close(down[j][0]);
		}
		for (j = 0; j < n; j++) {
			close(up[j][0]);
			close(down[j][1]);
		}
		exit(run_instance(i, NULL, up[i][1], down[i][0]));
	}
	signal(SIGPIPE, SIG_IGN);
	for (i = 0; i < n; i++) {
		close(up[i][1]);
		close(down[i][0]);
		alive[i] = true;
	}
	for (live = n; live; ) {
		for (i = 0, arrived = 0; i < n; i++) {
			if (!alive[i])
				continue;
			if (RETRY_EINTR(read(up[i][0], &c, 1)) == 1) {
				arrived++;
				continue;
			}
			alive[i] = false;	/* done, or died */
			live--;
		}
		if (!arrived)
			break;
		c = run_remount_cmd() ? 'g' : 'x';
		for (i = 0; i < n; i++)
			if (alive[i] &&
			    RETRY_EINTR(write(down[i][1], &c, 1)) != 1)
				alive[i] = false;
	}
	for (i = 0; i < n; i++) {
		if (RETRY_EINTR(waitpid(pids[i], &status, 0)) < 0 ||
		    !WIFEXITED(status)) {
			fprintf(stderr, "fsmodel: instance %d died%s%s\n", i,
				WIFSIGNALED(status) ? ": " : "",
				WIFSIGNALED(status) ?
				strsignal(WTERMSIG(status)) : "");
			status = 1 << 8;
		}
		if (WEXITSTATUS(status) > result)
			result = WEXITSTATUS(status);
	}
	free(up);
	free(down);
	free(pids);
	free(alive);
	return result;
}

static bool header_value(const char *header, const char *key, uint64_t *v)
{
	const char *p = strstr(header, key);

	if (!p || !isdigit(p[strlen(key)]))
		return false;
	*v = strtoull(p + strlen(key), NULL, 10);
	return true;
}

/* Read a log; the sizes in its first line replace -l and -L. */
static int load_script(const char *path, struct script *s)
{
	FILE *fp = fopen(path, "r");
	size_t cap = 0, alloc = 0, lineno = 0;
	uint64_t maxsize, maxlen;
	char *line = NULL;
	ssize_t n;

	memset(s, 0, sizeof(*s));
	if (!fp) {
		perror(path);
		return 2;
	}
	while ((n = getline(&line, &cap, fp)) >= 0) {
		lineno++;
		if (n && line[n - 1] == '\n')
			line[--n] = 0;
		if (lineno == 1) {
			if (strncmp(line, "# fsmodel ", 10) ||
			    (size_t)n >= sizeof(s->header))
				break;
			strcpy(s->header, line);
			continue;
		}
		if (!n || line[0] == '#')
			continue;
		if (s->len == alloc) {
			alloc = alloc ? 2 * alloc : 1024;
			s->ops = realloc(s->ops, alloc * sizeof(*s->ops));
			if (!s->ops)
				break;
		}
		if (!parse_op(line, &s->ops[s->len])) {
			fprintf(stderr, "fsmodel: %s:%zu: cannot parse '%s'\n",
				path, lineno, line);
			break;
		}
		s->len++;
	}
	free(line);
	fclose(fp);
	if (n >= 0 || !s->header[0] || !header_value(s->header, " seed=",
						     &s->seed) ||
	    !header_value(s->header, " maxsize=", &maxsize) ||
	    !header_value(s->header, " maxlen=", &maxlen) ||
	    maxsize < 4096 || !maxlen || maxlen > maxsize) {
		fprintf(stderr, "fsmodel: %s: not a usable fsmodel log\n",
			path);
		return 2;
	}
	cfg.maxsize = maxsize;
	cfg.maxlen = maxlen;
	return 0;
}

/* Replay @s in a child, silenced: does it fail (or die)? */
static bool replay_fails(const struct script *s)
{
	int status, null;
	pid_t pid;

	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		perror("fsmodel: fork");
		exit(2);
	}
	if (!pid) {
		null = open("/dev/null", O_WRONLY);
		dup2(null, STDOUT_FILENO);
		dup2(null, STDERR_FILENO);
		cfg.log_path = NULL;
		exit(run_instance(0, s, -1, -1));
	}
	if (RETRY_EINTR(waitpid(pid, &status, 0)) < 0)
		return false;
	return WIFSIGNALED(status) ||
	       (WIFEXITED(status) && WEXITSTATUS(status) == 1);
}

/*
 * Delta debugging: take out chunks of half the ops, then a quarter, ...
 * down to single ops (repeated until none can go), keeping each removal
 * after which the replay still fails.
 */
static int shrink_log(void)
{
	struct script s, trial;
	size_t chunk, start, cut, replays = 1, i;
	char line[LINE_LEN];
	bool removed;
	FILE *out;

	if (load_script(cfg.shrink_path, &s))
		return 2;
	if (!replay_fails(&s)) {
		fprintf(stderr, "fsmodel: %s does not fail on replay\n",
			cfg.shrink_path);
		return 2;
	}
	trial = s;
	trial.ops = malloc((s.len + 1) * sizeof(*s.ops));
	if (!trial.ops)
		return 2;
	for (chunk = max_size(s.len / 2, 1); ; ) {
		removed = false;
		for (start = 0; start < s.len && s.len > 1; ) {
			cut = min_size(chunk, s.len - start);
			memcpy(trial.ops, s.ops, start * sizeof(*s.ops));
			memcpy(trial.ops + start, s.ops + start + cut,
			       (s.len - start - cut) * sizeof(*s.ops));
			trial.len = s.len - cut;
			replays++;
			if (!replay_fails(&trial)) {
				start += cut;
				continue;
			}
			memcpy(s.ops, trial.ops, trial.len * sizeof(*s.ops));
			s.len = trial.len;
			removed = true;
		}
		fprintf(stderr, "fsmodel: shrink: chunk %zu: %zu ops left, "
			"%zu replays\n", chunk, s.len, replays);
		if (chunk > 1)
			chunk = max_size(min_size(chunk / 2, s.len / 2), 1);
		else if (!removed)
			break;
	}
	out = fopen(cfg.log_path, "w");
	if (!out) {
		perror(cfg.log_path);
		return 2;
	}
	fprintf(out, "%s\n", s.header);
	printf("%s\n", s.header);
	for (i = 0; i < s.len; i++) {
		format_op(&s.ops[i], line, sizeof(line));
		fprintf(out, "%s\n", line);
		printf("%s\n", line);
	}
	if (fclose(out)) {
		perror(cfg.log_path);
		return 2;
	}
	printf("fsmodel: %zu ops still fail: %s\n", s.len, cfg.log_path);
	return 0;
}

static void usage(const char *why)
{
	if (why)
		fprintf(stderr, "fsmodel: %s\n", why);
	fprintf(stderr,
		"usage: fsmodel [-n N] [-s SEED] [-N OPS] [-l BYTES] [-L BYTES]"
		" [-B BYTES] [-A BYTES]\n"
		"               [-w OP=W,...] [-c EVERY] [-R CMD] [-r EVERY] "
		"[-D] [-o LOG]\n"
		"               [-p LOG | -S LOG] [-C OPNUM] [-v] [-q] DIR\n");
	exit(2);
}

/* A number, with an optional k, m or g (binary) suffix. */
static uint64_t parse_number(const char *s, uint64_t min, uint64_t max)
{
	uint64_t v;
	char *end;

	errno = 0;
	v = strtoull(s, &end, 0);
	switch (tolower(*end)) {
	case 'g':
		v <<= 10;
		/* fall through */
	case 'm':
		v <<= 10;
		/* fall through */
	case 'k':
		v <<= 10;
		end++;
	}
	if (errno || end == s || *end || v < min || v > max)
		usage("bad number");
	return v;
}

static void parse_weights(char *arg)
{
	char *item, *save, *eq;
	int kind;

	for (item = strtok_r(arg, ",", &save); item;
	     item = strtok_r(NULL, ",", &save)) {
		eq = strchr(item, '=');
		if (!eq)
			usage("-w takes OP=WEIGHT");
		*eq = 0;
		for (kind = 0; kind < NR_WEIGHTED &&
		     strcmp(item, op_names[kind]); kind++)
			;
		if (kind == NR_WEIGHTED)
			usage("-w: unknown op");
		cfg.weights[kind] = parse_number(eq + 1, 0, 1000000);
	}
}

static bool power_of_two(size_t x)
{
	return x && !(x & (x - 1));
}

static void parse_options(int argc, char **argv)
{
	unsigned int total = 0;
	int opt, kind;

	memcpy(cfg.weights, default_weights, sizeof(cfg.weights));
	while ((opt = getopt(argc, argv, "n:s:N:l:L:B:A:w:c:R:r:Do:p:S:C:vq"))
	       != -1) {
		switch (opt) {
		case 'n':
			cfg.ninstances = parse_number(optarg, 1, 1024);
			break;
		case 's':
			cfg.seed = parse_number(optarg, 0, UINT64_MAX);
			break;
		case 'N':
			cfg.nops = parse_number(optarg, 0, LONG_MAX);
			break;
		case 'l':
			cfg.maxsize = parse_number(optarg, 4096, 1ULL << 30);
			break;
		case 'L':
			cfg.maxlen = parse_number(optarg, 1, 1ULL << 30);
			break;
		case 'B':
			cfg.block = parse_number(optarg, 1, 1 << 24);
			break;
		case 'A':
			cfg.dio_align = parse_number(optarg, 1, 1 << 24);
			break;
		case 'w':
			parse_weights(optarg);
			break;
		case 'c':
			cfg.check_every = parse_number(optarg, 0, LONG_MAX);
			break;
		case 'R':
			cfg.remount_cmd = optarg;
			break;
		case 'r':
			cfg.remount_every = parse_number(optarg, 0, LONG_MAX);
			break;
		case 'D':
			cfg.drop_caches = true;
			break;
		case 'o':
			cfg.log_path = optarg;
			break;
		case 'p':
			cfg.replay_path = optarg;
			break;
		case 'S':
			cfg.shrink_path = optarg;
			break;
		case 'C':
			cfg.corrupt_after = parse_number(optarg, 1, LONG_MAX);
			break;
		case 'v':
			cfg.verbose = true;
			break;
		case 'q':
			cfg.quiet = true;
			break;
		default:
			usage(NULL);
		}
	}
	if (optind != argc - 1)
		usage("one DIR, please");
	cfg.dir = argv[optind];
	for (kind = 0; kind < NR_WEIGHTED; kind++)
		total += cfg.weights[kind];
	if (!total)
		usage("every op has weight 0");
	if (cfg.maxlen > cfg.maxsize)
		usage("-L is above -l");
	if ((cfg.block && !power_of_two(cfg.block)) ||
	    (cfg.dio_align && !power_of_two(cfg.dio_align)))
		usage("-B and -A take powers of two");
	if (cfg.remount_every && !cfg.remount_cmd)
		usage("-r needs -R");
	if (cfg.replay_path && cfg.shrink_path)
		usage("-p or -S, not both");
	if ((cfg.replay_path || cfg.shrink_path) && cfg.ninstances > 1)
		usage("a replay runs one instance");
	if (cfg.shrink_path && !cfg.log_path)
		usage("-S needs -o OUT");
}

int main(int argc, char **argv)
{
	struct script script;
	int status;

	parse_options(argc, argv);
	if (cfg.shrink_path)
		return shrink_log();
	if (cfg.replay_path) {
		status = load_script(cfg.replay_path, &script);
		if (!status)
			status = run_instance(0, &script, -1, -1);
	} else if (cfg.ninstances == 1) {
		status = run_instance(0, NULL, -1, -1);
	} else {
		status = run_parallel();
	}
	printf("fsmodel: %s: ", status == 0 ? "OK" : status == 1 ? "FAIL" :
	       "ERROR");
	if (cfg.replay_path)
		printf("replay of %s\n", cfg.replay_path);
	else
		printf("%d instance%s, seed %" PRIu64 "\n", cfg.ninstances,
		       cfg.ninstances > 1 ? "s" : "", cfg.seed);
	return status;
}
