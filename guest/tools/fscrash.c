// SPDX-License-Identifier: GPL-2.0
/*
 * fscrash: does what fsync, fdatasync, O_DSYNC and RWF_DSYNC made durable
 * survive a power cut?  "run" drives a seeded random workload (or a
 * script) on a few files and records every operation that completed, in
 * order, in a state file kept off the filesystem under test; at a point
 * the workload chooses, a command cuts the power (makes the device drop
 * every write); "check", after the filesystem is repaired and mounted
 * again, replays the state file into a model of what each file may hold
 * and compares every byte and each file's size with it.
 *
 *   fscrash run [-d] [-n] [-u] [-H] [-T] [-f] [-L] [-s SEED] [-N OPS]
 *               [-F FILES] [-l BYTES] [-m BYTES] [-p SCRIPT]
 *               [-P K -x CMD] -o STATE DIR
 *   fscrash check [-C] [-v] -S STATE DIR
 *
 * run:
 *   -s SEED   seed (default 1): the same seed and options make the same ops
 *   -N OPS    workload operations after the setup (default 300)
 *   -F FILES  files DIR/f0... (default 4, at most 15)
 *   -l BYTES  largest file size (default 128k; rounded down to 4k)
 *   -m BYTES  longest write (default 32k)
 *   -p SCRIPT the workload's ops from SCRIPT instead, one a line as the
 *             state file has them without their number ('#': a comment)
 *   -d        O_DIRECT writes too, aligned as statx STATX_DIOALIGN says
 *             (else to st_blksize); the caller says whether the filesystem
 *             has O_DIRECT, so that a filesystem that loses it fails
 *   -n        the filesystem makes a new file's name durable with the
 *             file's fsync: one more file is created after the setup's
 *             sync, and only fsynced; check then requires it
 *   -u        the filesystem has no journal and no order between data and
 *             metadata writes (see below); recorded for check
 *   -H        it has no holes: growing a file allocates (with -u)
 *   -T        fsync a file right after a truncate down or a punch, so that
 *             no other file can be given and write the freed blocks
 *             before the file lets go of them on disk
 *   -P K      the cut: after workload op K, record "cut" and run CMD (-x),
 *             which makes the device drop every write; the workload goes
 *             on to OPS ops, all of them lost
 *   -x CMD    the command that cuts the power, run through system()
 *   -f        at the cut, fsync every file first: the whole state is then
 *             durable and must come back exactly
 *   -L        lie: the workload's fsync, fdatasync, O_DSYNC and RWF_DSYNC
 *             are left out but recorded as done, so that check must find
 *             lost data after a cut (the setup still syncs for real)
 *   -o STATE  the state file (put it on tmpfs)
 *
 * check:
 *   -S STATE  the state file of the run
 *   -C        corrupt the expectation: one byte the model holds durable
 *             and untouched expects another value, which must be reported
 *   -v        a line per file even when all holds
 *
 * Exit status: 0 all holds, 1 a violation (check), 2 usage, setup or
 * workload error.
 *
 * The workload, after a setup that creates the files, writes each to a
 * random size and makes all of it durable (fsync of each file, of DIR,
 * and sync()), draws from: buffered pwrite and pwritev, pwrite on an
 * O_DSYNC descriptor, pwritev2 with RWF_DSYNC, and with -d the same three
 * through O_DIRECT; ftruncate up and down; fsync; fdatasync; and
 * fallocate punch, zero range (both keeping the size) and allocate past
 * EOF, each mode dropped for good when the filesystem says EOPNOTSUPP.
 *
 * Every byte written is a non-zero hash of the seed, the op's number (its
 * tag) and the file offset, so a byte read back tells which write put it
 * there, and data from another offset, another file or an older run (or
 * stale blocks) does not pass for it.
 *
 * The model, per file: the live bytes (the tag of each), and for each byte
 * the durable tag, the op that made it durable and whether a truncate,
 * punch or zero range has zeroed it since or the file grew over it; the
 * bounds of the size after a crash; whether its name is durable.  What
 * each call guarantees:
 *   - fsync and fdatasync: every byte of the file and its size; fsync with
 *     -n also its name (the setup's sync: every file, with its name);
 *   - an O_DSYNC or RWF_DSYNC write: its own bytes, and a size of at least
 *     its end (later truncates may lower that again).
 * So after a crash:
 *   - a file whose name is durable exists;
 *   - its size lies between the smallest and the largest size it had since
 *     its size was last made durable, and is at least the end of every
 *     O_DSYNC write since, unless a truncate down came after that write;
 *   - each byte below that size holds its durable value (zero past the
 *     durable size), or the value of a write at that offset made after the
 *     byte was last made durable, or zero if a truncate, punch or zero
 *     range covered it since; a byte nothing touched since it was made
 *     durable must hold exactly its durable value;
 *   - with -u, a byte may also hold anything (stale data, another file's)
 *     where a block may have been linked to the file since without its
 *     data: its durable value is zero (a hole or past the size) and a
 *     write since covered its block (st_blksize, at least a page), or with
 *     -H the file grew over it; or a truncate or punch freed it since;
 *   - nothing written after the cut is on disk.
 * Every violation is reported with the file, the offsets, the value
 * expected and the op that made it durable, the value found and what it
 * looks like (zeros, another op's data for these offsets or others, or no
 * op's data: stale), then the ops on that file since.
 *
 * The state file: a header line
 *   fscrash 1 seed=S files=N maxsize=M names=0|1 lie=0|1 unordered=0|1
 *   noholes=0|1 block=B dio=A
 * (one line), then one line per op, written with one write(2) once the op
 * has returned, so that at any moment it holds exactly the ops that have
 * completed:
 *   NUM create fI             NUM write fI OFF LEN KIND
 *   NUM truncate fI SIZE      NUM fsync fI         NUM fdatasync fI
 *   NUM punch fI OFF LEN      NUM zero fI OFF LEN
 *   NUM extend fI OFF LEN     NUM sync             NUM cut
 * fI is file DIR/fI; KIND is buffered, vector, odsync, rwf-dsync, direct,
 * direct-odsync or direct-rwf-dsync.  The ops after the cut are recorded
 * too, for check to find none of their data.  A cut must come at a point
 * the workload knows of: with drop_writes a flush after the cut succeeds
 * without writing anything, so the model must end at the cut.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <linux/falloc.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tools.h"

#define MAX_FILES	16
#define LINE_LEN	256
/* An op as the state file has it, and "op " before it. */
#define OP_LEN		96
#define DESC_LEN	(OP_LEN + 8)
/* Violations reported in full per file; the rest are counted. */
#define MAX_REPORTS	8
/* The ops on a file with violations that are listed, the last ones. */
#define MAX_HISTORY	40
/*
 * Wrong bytes this close together are one run: a wrong byte matches the
 * expected one by chance once in 255.
 */
#define RUN_GAP		64
/* Bytes compared to find where misplaced data comes from. */
#define MISPLACED_LEN	16
/* A tag no op has: check -C expects it for the byte it corrupts. */
#define CORRUPT_TAG	UINT32_MAX

enum write_kind {
	W_BUFFERED, W_VECTOR, W_ODSYNC, W_RWF_DSYNC, W_DIRECT,
	W_DIRECT_ODSYNC, W_DIRECT_RWF_DSYNC, NR_WRITE_KINDS
};

static const struct {
	const char *name;
	bool direct;
	bool dsync;		/* makes its own range durable */
	bool rwf;		/* RWF_DSYNC, not an O_DSYNC descriptor */
} write_kinds[NR_WRITE_KINDS] = {
	[W_BUFFERED] = { "buffered", false, false, false },
	[W_VECTOR] = { "vector", false, false, false },
	[W_ODSYNC] = { "odsync", false, true, false },
	[W_RWF_DSYNC] = { "rwf-dsync", false, true, true },
	[W_DIRECT] = { "direct", true, false, false },
	[W_DIRECT_ODSYNC] = { "direct-odsync", true, true, false },
	[W_DIRECT_RWF_DSYNC] = { "direct-rwf-dsync", true, true, true },
};

enum op_kind {
	OP_WRITE, OP_TRUNCATE, OP_FSYNC, OP_FDATASYNC, OP_PUNCH, OP_ZERO,
	OP_EXTEND, OP_CREATE, OP_SYNC, OP_CUT, NR_OP_KINDS
};

static const char *const op_names[NR_OP_KINDS] = {
	"write", "truncate", "fsync", "fdatasync", "punch", "zero", "extend",
	"create", "sync", "cut",
};

/*
 * What the workload draws: the write kinds first, in their order, then the
 * other ops; the weights are out of their sum.
 */
enum choice {
	C_TRUNCATE = NR_WRITE_KINDS, C_FSYNC, C_FDATASYNC, C_PUNCH, C_ZERO,
	C_EXTEND, NR_CHOICES
};

static const unsigned int default_weights[NR_CHOICES] = {
	[W_BUFFERED] = 22, [W_VECTOR] = 8, [W_ODSYNC] = 5, [W_RWF_DSYNC] = 5,
	[W_DIRECT] = 8, [W_DIRECT_ODSYNC] = 3, [W_DIRECT_RWF_DSYNC] = 3,
	[C_TRUNCATE] = 10, [C_FSYNC] = 4, [C_FDATASYNC] = 4, [C_PUNCH] = 3,
	[C_ZERO] = 3, [C_EXTEND] = 2,
};

struct op {
	long num;		/* from 1; also the tag of what it writes */
	enum op_kind kind;
	int file;
	uint64_t off;		/* truncate: the new size */
	uint64_t len;
	enum write_kind wkind;
};

/* struct mfile's flags of a byte since it was last made durable */
#define ZEROED	1	/* a truncate, punch or zero range covered it */
#define GROWN	2	/* the file grew over it */

struct mfile {
	bool created;
	bool named;		/* its name is durable */
	uint64_t size;		/* live */
	uint64_t lo, hi;	/* bounds of its size after a crash */
	long size_op;		/* the op that last made the size durable */
	uint32_t *live;		/* tag of each byte, 0: zero */
	uint32_t *dur;		/* tag of the durable byte */
	uint32_t *since;	/* the op that last made the byte durable */
	unsigned char *flags;	/* what happened to it since then */
};

struct model {
	uint64_t seed;
	int nfiles;
	uint64_t maxsize;
	bool names;
	bool lie;
	bool unordered;		/* -u */
	bool no_holes;		/* -H */
	uint64_t block;		/* allocation unit for -u: st_blksize, a page */
	uint64_t dio_align;
	struct mfile f[MAX_FILES];
	struct op *ops;		/* ops[i] is op i + 1 */
	size_t nops, cap;
	long cut;		/* the op recorded as the cut, or 0 */
	struct op *after;	/* check: the writes after the cut */
	size_t nafter;
};

static void die(const char *fmt, ...)
{
	va_list ap;

	fputs("fscrash: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(2);
}

static void *zalloc(size_t n)
{
	void *p = calloc(1, n ? n : 1);

	if (!p)
		die("out of memory");
	return p;
}

/* The byte op @tag writes at file offset @off: never zero but for tag 0. */
static unsigned char byte_of(uint64_t seed, uint32_t tag, uint64_t off)
{
	if (!tag)
		return 0;
	return mix64(seed ^ mix64(((uint64_t)tag << 40) ^ off)) % 255 + 1;
}

static void model_init(struct model *m)
{
	int i;

	for (i = 0; i < m->nfiles; i++) {
		struct mfile *f = &m->f[i];

		f->live = zalloc(m->maxsize * sizeof(*f->live));
		f->dur = zalloc(m->maxsize * sizeof(*f->dur));
		f->since = zalloc(m->maxsize * sizeof(*f->since));
		f->flags = zalloc(m->maxsize);
	}
}

/* Everything @f holds now, size and bytes, becomes durable by op @num. */
static void make_durable(struct mfile *f, uint64_t maxsize, long num)
{
	uint64_t b;

	/* Live bytes past the size are zero: they become zero, durably. */
	for (b = 0; b < maxsize; b++) {
		f->dur[b] = f->live[b];
		f->since[b] = num;
		f->flags[b] = 0;
	}
	f->lo = f->hi = f->size;
	f->size_op = num;
}

static void set_size(struct mfile *f, uint64_t size)
{
	uint64_t b;

	for (b = f->size; b < size; b++)
		f->flags[b] |= GROWN;
	f->size = size;
	f->lo = min_u64(f->lo, size);
	f->hi = max_u64(f->hi, size);
}

/* The live bytes [@from, @to) become zero, and may read zero after a cut. */
static void zero_range(struct mfile *f, uint64_t from, uint64_t to)
{
	uint64_t b;

	for (b = from; b < to; b++) {
		f->live[b] = 0;
		f->flags[b] |= ZEROED;
	}
}

/*
 * Apply a completed op to the model, as the run does for each op it makes
 * and check for each op the state file records.  Returns false for an op
 * that makes no sense in the model (a corrupt state file).
 */
static bool model_apply(struct model *m, const struct op *op)
{
	uint64_t end = op->off + op->len, b;
	struct mfile *f;
	int i;

	if (op->file < 0 || op->file >= m->nfiles)
		return false;
	f = &m->f[op->file];
	if (op->kind != OP_SYNC && op->kind != OP_CUT &&
	    (op->kind == OP_CREATE) == f->created)
		return false;
	if (op->off > m->maxsize || op->len > m->maxsize - op->off)
		return false;
	switch (op->kind) {
	case OP_CREATE:
		f->created = true;
		break;
	case OP_WRITE:
		if (!op->len)
			return false;
		for (b = op->off; b < end; b++)
			f->live[b] = op->num;
		if (end > f->size)
			set_size(f, end);
		if (write_kinds[op->wkind].dsync) {
			for (b = op->off; b < end; b++) {
				f->dur[b] = op->num;
				f->since[b] = op->num;
				f->flags[b] = 0;
			}
			f->lo = max_u64(f->lo, end);
		}
		break;
	case OP_TRUNCATE:
		if (op->off < f->size)
			zero_range(f, op->off, f->size);
		set_size(f, op->off);
		break;
	case OP_FSYNC:
	case OP_FDATASYNC:
		make_durable(f, m->maxsize, op->num);
		if (op->kind == OP_FSYNC && m->names)
			f->named = true;
		break;
	case OP_PUNCH:
	case OP_ZERO:
		if (op->off < f->size)
			zero_range(f, op->off, min_u64(end, f->size));
		break;
	case OP_EXTEND:
		if (end > f->size)
			set_size(f, end);
		break;
	case OP_SYNC:
		for (i = 0; i < m->nfiles; i++) {
			if (!m->f[i].created)
				continue;
			make_durable(&m->f[i], m->maxsize, op->num);
			m->f[i].named = true;
		}
		break;
	case OP_CUT:
		m->cut = op->num;
		break;
	default:
		return false;
	}
	if (m->nops == m->cap) {
		m->cap = m->cap ? 2 * m->cap : 1024;
		m->ops = realloc(m->ops, m->cap * sizeof(*m->ops));
		if (!m->ops)
			die("out of memory");
	}
	m->ops[m->nops++] = *op;
	return true;
}

static void format_op(const struct op *op, char *s, size_t n)
{
	int len = snprintf(s, n, "%ld %s", op->num, op_names[op->kind]);

	switch (op->kind) {
	case OP_SYNC:
	case OP_CUT:
		break;
	case OP_CREATE:
	case OP_FSYNC:
	case OP_FDATASYNC:
		snprintf(s + len, n - len, " f%d", op->file);
		break;
	case OP_TRUNCATE:
		snprintf(s + len, n - len, " f%d %" PRIu64, op->file, op->off);
		break;
	case OP_WRITE:
		snprintf(s + len, n - len, " f%d %" PRIu64 " %" PRIu64 " %s",
			 op->file, op->off, op->len,
			 write_kinds[op->wkind].name);
		break;
	default:
		snprintf(s + len, n - len, " f%d %" PRIu64 " %" PRIu64,
			 op->file, op->off, op->len);
	}
}

static bool parse_op(const char *line, struct op *op)
{
	char verb[32], kind[32];
	int n;

	memset(op, 0, sizeof(*op));
	if (sscanf(line, "%ld %31s%n", &op->num, verb, &n) != 2)
		return false;
	line += n;
	for (op->kind = 0; op->kind < NR_OP_KINDS &&
	     strcmp(verb, op_names[op->kind]); op->kind++)
		;
	switch (op->kind) {
	case OP_SYNC:
	case OP_CUT:
		return true;
	case OP_CREATE:
	case OP_FSYNC:
	case OP_FDATASYNC:
		return sscanf(line, " f%d", &op->file) == 1;
	case OP_TRUNCATE:
		return sscanf(line, " f%d %" SCNu64, &op->file, &op->off) == 2;
	case OP_WRITE:
		if (sscanf(line, " f%d %" SCNu64 " %" SCNu64 " %31s", &op->file,
			   &op->off, &op->len, kind) != 4)
			return false;
		for (op->wkind = 0; op->wkind < NR_WRITE_KINDS &&
		     strcmp(kind, write_kinds[op->wkind].name); op->wkind++)
			;
		return op->wkind < NR_WRITE_KINDS;
	case OP_PUNCH:
	case OP_ZERO:
	case OP_EXTEND:
		return sscanf(line, " f%d %" SCNu64 " %" SCNu64, &op->file,
			      &op->off, &op->len) == 3;
	default:
		return false;
	}
}

/* ---------------------------------------------------------------- run */

struct run {
	struct model m;
	const char *dir;
	const char *state_path;
	const char *cut_cmd;
	long nops;
	long cut_after;		/* -P, 0: no cut */
	bool direct;
	bool sync_all_at_cut;
	bool sync_frees;	/* -T */
	FILE *script;		/* -p */
	int nsetup;		/* files made by the setup (without -n's) */
	uint64_t maxlen;
	uint64_t rng;
	unsigned int weights[NR_CHOICES];
	int state_fd;
	int dirfd;
	/* per file: plain, O_DSYNC, O_DIRECT, O_DIRECT | O_DSYNC */
	int fd[MAX_FILES][4];
	uint64_t dio_mem_align;
	unsigned char *buf;
	long num;		/* the last op's number */
	bool after_cut;
};

static uint64_t next_random(struct run *r)
{
	return xorshift_next(&r->rng);
}

static uint64_t rnd(struct run *r, uint64_t n)
{
	return n ? next_random(r) % n : 0;
}

/* Record a completed op in the model and the state. */
static void record(struct run *r, const struct op *op)
{
	char line[LINE_LEN];
	size_t len;

	if (!model_apply(&r->m, op))
		die("op %ld makes no sense to the model", op->num);
	format_op(op, line, sizeof(line) - 1);
	len = strlen(line);
	line[len++] = '\n';
	/* One write to an O_APPEND file: a line is there whole or not. */
	if (write(r->state_fd, line, len) != (ssize_t)len)
		die("%s: %s", r->state_path, strerror(errno));
}

/* What execute() did. */
enum outcome { DONE, UNSUPPORTED, STOPPED };

/*
 * A failing call: before the cut the run is no good (exit 2); after it the
 * workload only has to keep the kernel busy while its writes are dropped,
 * so it stops there.
 */
static enum outcome failed(struct run *r, const struct op *op,
			   const char *what)
{
	char line[LINE_LEN];

	format_op(op, line, sizeof(line));
	if (!r->after_cut)
		die("op %s: %s: %s", line, what, strerror(errno));
	fprintf(stderr, "fscrash: after the cut, op %s: %s: %s; stopping\n",
		line, what, strerror(errno));
	return STOPPED;
}

static int open_file(struct run *r, int i, int flags)
{
	char name[16];
	int fd;

	snprintf(name, sizeof(name), "f%d", i);
	fd = openat(r->dirfd, name, O_RDWR | flags, 0644);
	if (fd < 0)
		die("open %s/%s: %s", r->dir, name, strerror(errno));
	return fd;
}

/* Create file @i and open its descriptors. */
static void create_file(struct run *r, int i)
{
	/* A lie leaves O_DSYNC out but records the writes as durable. */
	int dsync = r->m.lie ? 0 : O_DSYNC;

	r->fd[i][0] = open_file(r, i, O_CREAT | O_TRUNC);
	r->fd[i][1] = open_file(r, i, dsync);
	r->fd[i][2] = r->fd[i][3] = -1;
	if (r->direct) {
		r->fd[i][2] = open_file(r, i, O_DIRECT);
		r->fd[i][3] = open_file(r, i, O_DIRECT | dsync);
	}
}

static void fill(struct run *r, const struct op *op)
{
	uint64_t i;

	for (i = 0; i < op->len; i++)
		r->buf[i] = byte_of(r->m.seed, op->num, op->off + i);
}

static enum outcome do_write(struct run *r, const struct op *op, bool lie)
{
	const typeof(write_kinds[0]) *k = &write_kinds[op->wkind];
	int fd = r->fd[op->file][(k->direct ? 2 : 0) +
				 (k->dsync && !k->rwf ? 1 : 0)];
	int flags = k->rwf && !lie ? RWF_DSYNC : 0;
	struct iovec iov[3];
	int nseg = 1;
	ssize_t ret;

	fill(r, op);
	iov[0].iov_base = r->buf;
	iov[0].iov_len = op->len;
	if (op->wkind == W_VECTOR && op->len >= 3) {
		/* Three segments, cut at random places. */
		size_t a = 1 + rnd(r, op->len - 2);
		size_t b = a + 1 + rnd(r, op->len - a - 1);

		iov[0].iov_len = a;
		iov[1].iov_base = r->buf + a;
		iov[1].iov_len = b - a;
		iov[2].iov_base = r->buf + b;
		iov[2].iov_len = op->len - b;
		nseg = 3;
	}
	if (k->rwf || nseg > 1)
		ret = pwritev2(fd, iov, nseg, op->off, flags);
	else
		ret = pwrite(fd, r->buf, op->len, op->off);
	if (ret < 0)
		return failed(r, op, "write");
	if ((uint64_t)ret != op->len) {
		errno = EIO;
		return failed(r, op, "short write");
	}
	return DONE;
}

static enum outcome do_falloc(struct run *r, const struct op *op)
{
	int mode = op->kind == OP_PUNCH ?
		   FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE :
		   op->kind == OP_ZERO ?
		   FALLOC_FL_ZERO_RANGE | FALLOC_FL_KEEP_SIZE : 0;

	if (!fallocate(r->fd[op->file][0], mode, op->off, op->len))
		return DONE;
	if (errno != EOPNOTSUPP)
		return failed(r, op, "fallocate");
	/* This filesystem has no such mode: never draw it again. */
	r->weights[op->kind == OP_PUNCH ? C_PUNCH :
		   op->kind == OP_ZERO ? C_ZERO : C_EXTEND] = 0;
	return UNSUPPORTED;
}

/* Run @op; with @lie, leave out what makes data durable. */
static enum outcome execute(struct run *r, const struct op *op, bool lie)
{
	int fd = r->fd[op->file][0];

	switch (op->kind) {
	case OP_WRITE:
		return do_write(r, op, lie);
	case OP_TRUNCATE:
		if (ftruncate(fd, op->off))
			return failed(r, op, "ftruncate");
		return DONE;
	case OP_FSYNC:
		if (!lie && fsync(fd))
			return failed(r, op, "fsync");
		return DONE;
	case OP_FDATASYNC:
		if (!lie && fdatasync(fd))
			return failed(r, op, "fdatasync");
		return DONE;
	default:
		return do_falloc(r, op);
	}
}

static uint64_t pick_len(struct run *r)
{
	switch (rnd(r, 4)) {
	case 0:
		return 1 + rnd(r, 512);
	case 1:
		return 1 + rnd(r, 4096);
	case 2:
		return 4096 * (1 + rnd(r, r->maxlen / 4096));
	default:
		return 1 + rnd(r, r->maxlen);
	}
}

/* An offset at most a little past EOF, often block aligned. */
static uint64_t pick_off(struct run *r, uint64_t size)
{
	uint64_t limit = min_u64(size + r->maxlen / 2, r->m.maxsize - 1);
	uint64_t off = rnd(r, limit + 1);

	switch (rnd(r, 3)) {
	case 0:
		return round_down(off, 4096);
	case 1:
		return round_down(off, 512);
	default:
		return off;
	}
}

/*
 * -p: the next op of the script, as the state file has it without its
 * number; false at its end.
 */
static bool next_scripted(struct run *r, struct op *op)
{
	char line[LINE_LEN], numbered[LINE_LEN + 4];

	do {
		if (!fgets(line, sizeof(line), r->script))
			return false;
	} while (line[0] == '#' || line[0] == '\n');
	snprintf(numbered, sizeof(numbered), "0 %s", line);
	if (!parse_op(numbered, op) || op->kind == OP_CREATE ||
	    op->kind == OP_SYNC || op->kind == OP_CUT ||
	    op->file < 0 || op->file >= r->m.nfiles ||
	    !r->m.f[op->file].created || op->off > r->m.maxsize ||
	    op->len > r->m.maxsize - op->off ||
	    (op->kind == OP_WRITE && (!op->len ||
	     (write_kinds[op->wkind].direct &&
	      (!r->direct || (op->off | op->len) % r->m.dio_align)))))
		die("the script has an op this run cannot make: %s", line);
	return true;
}

/* Draw the next op; false when the drawn one cannot be made now. */
static bool draw(struct run *r, struct op *op)
{
	unsigned int total = 0, pick;
	uint64_t size, align;
	int c;

	for (c = 0; c < NR_CHOICES; c++)
		total += r->weights[c];
	pick = rnd(r, total);
	for (c = 0; pick >= r->weights[c]; c++)
		pick -= r->weights[c];
	memset(op, 0, sizeof(*op));
	op->file = rnd(r, r->m.nfiles);
	size = r->m.f[op->file].size;
	if (c < NR_WRITE_KINDS) {
		op->kind = OP_WRITE;
		op->wkind = c;
		op->off = pick_off(r, size);
		op->len = pick_len(r);
		if (write_kinds[c].direct) {
			align = r->m.dio_align;
			op->off = round_down(op->off, align);
			op->len = round_up(op->len, align);
		}
		op->len = min_u64(op->len, r->m.maxsize - op->off);
		return true;
	}
	switch (c) {
	case C_TRUNCATE:
		op->kind = OP_TRUNCATE;
		if (size && rnd(r, 2))
			op->off = rnd(r, size);
		else
			op->off = size + rnd(r, r->m.maxsize - size + 1);
		if (!rnd(r, 3))
			op->off = round_down(op->off, 4096);
		return true;
	case C_FSYNC:
	case C_FDATASYNC:
		op->kind = c == C_FSYNC ? OP_FSYNC : OP_FDATASYNC;
		return true;
	case C_PUNCH:
	case C_ZERO:
		if (!size)
			return false;
		op->kind = c == C_PUNCH ? OP_PUNCH : OP_ZERO;
		op->off = rnd(r, size);
		op->len = 1 + rnd(r, min_u64(r->maxlen, size - op->off));
		return true;
	default:
		if (size >= r->m.maxsize)
			return false;
		op->kind = OP_EXTEND;
		op->off = rnd(r, size + 1);
		op->len = 1 + rnd(r, min_u64(r->maxlen,
					     r->m.maxsize - op->off));
		return true;
	}
}

static void setup_direct(struct run *r)
{
	struct statx stx;
	struct stat st;
	int fd = r->fd[0][0];

	if (fstat(fd, &st))
		die("fstat: %s", strerror(errno));
	r->m.dio_align = st.st_blksize;
	r->m.block = max_u64(st.st_blksize, 4096);
	r->dio_mem_align = 4096;
	memset(&stx, 0, sizeof(stx));
	if (!statx(fd, "", AT_EMPTY_PATH, STATX_DIOALIGN, &stx) &&
	    (stx.stx_mask & STATX_DIOALIGN) && stx.stx_dio_offset_align) {
		r->m.dio_align = stx.stx_dio_offset_align;
		r->dio_mem_align = max_u64(stx.stx_dio_mem_align, 4096);
	}
	if (r->direct && (r->maxlen % r->m.dio_align ||
			  r->m.maxsize % r->m.dio_align))
		die("O_DIRECT alignment %" PRIu64 " does not fit -l and -m",
		    r->m.dio_align);
}

static void write_header(struct run *r)
{
	char line[LINE_LEN];
	int len;

	len = snprintf(line, sizeof(line), "fscrash 1 seed=%" PRIu64
		       " files=%d maxsize=%" PRIu64 " names=%d lie=%d "
		       "unordered=%d noholes=%d block=%" PRIu64 " dio=%" PRIu64
		       "\n", r->m.seed, r->m.nfiles, r->m.maxsize, r->m.names,
		       r->m.lie, r->m.unordered, r->m.no_holes, r->m.block,
		       r->direct ? r->m.dio_align : 0);
	if (write(r->state_fd, line, len) != len)
		die("%s: %s", r->state_path, strerror(errno));
}

/* Make and record an op of a kind draw() does not make, or the setup's. */
static void fixed_op(struct run *r, enum op_kind kind, int file,
		     uint64_t len, bool lie)
{
	struct op op = { .num = ++r->num, .kind = kind, .file = file,
			 .len = len, .wkind = W_BUFFERED };

	if (kind == OP_WRITE || kind == OP_FSYNC)
		execute(r, &op, lie);
	record(r, &op);
}

/*
 * The setup: every file created, written to a random size and, with its
 * name, made durable by fsync of each and of DIR, and sync() (ext2 and
 * minix make a name durable only with its directory).  With -n, one more
 * file is created after that, written and fsynced: only the file.
 */
static void setup(struct run *r)
{
	int i;

	for (i = 0; i < r->nsetup; i++)
		create_file(r, i);
	setup_direct(r);
	write_header(r);
	for (i = 0; i < r->nsetup; i++)
		fixed_op(r, OP_CREATE, i, 0, false);
	for (i = 0; i < r->nsetup; i++)
		fixed_op(r, OP_WRITE, i, 1 + rnd(r, r->m.maxsize / 2), false);
	for (i = 0; i < r->nsetup; i++)
		if (fsync(r->fd[i][0]))
			die("fsync: %s", strerror(errno));
	if (fsync(r->dirfd))
		die("fsync %s: %s", r->dir, strerror(errno));
	sync();
	fixed_op(r, OP_SYNC, 0, 0, false);
	if (r->nsetup == r->m.nfiles)
		return;
	i = r->nsetup;
	create_file(r, i);
	fixed_op(r, OP_CREATE, i, 0, false);
	fixed_op(r, OP_WRITE, i, 1 + rnd(r, r->m.maxsize / 2), false);
	fixed_op(r, OP_FSYNC, i, 0, false);
}

/* The cut: after -f's fsyncs, record it, then drop every write. */
static void cut(struct run *r)
{
	int i, status;

	for (i = 0; r->sync_all_at_cut && i < r->m.nfiles; i++)
		fixed_op(r, OP_FSYNC, i, 0, r->m.lie);
	fixed_op(r, OP_CUT, 0, 0, false);
	status = system(r->cut_cmd);
	if (status == -1 || !WIFEXITED(status) || WEXITSTATUS(status))
		die("the cut command failed (status %d): %s", status,
		    r->cut_cmd);
	r->after_cut = true;
}

/* ------------------------------------------------------------- check */

struct checker {
	struct model m;
	int dirfd;
	bool verbose;
	unsigned char *disk;	/* the file as read back */
	unsigned char *bad;
	long violations;
	uint64_t stale;		/* bytes allow_stale() let pass */
};

/* "op N VERB ...", as the state file has op @num, or "no op" for 0. */
static void describe(const struct model *m, long num, char *s, size_t n)
{
	char line[OP_LEN];

	if (!num) {
		snprintf(s, n, "no op");
		return;
	}
	format_op(&m->ops[num - 1], line, sizeof(line));
	snprintf(s, n, "op %s", line);
}

/*
 * Where the first MISPLACED_LEN bytes found from @from, none of them data
 * a write put at these offsets, come from: the data of a write for another
 * offset (a multiple of 512 away), or nothing this run wrote: stale.
 */
static void misplaced(const struct checker *c, uint64_t from, uint64_t to,
		      char *s, size_t n)
{
	const struct model *m = &c->m;
	uint64_t src, b, len = min_u64(to - from, MISPLACED_LEN);
	char d[DESC_LEN];
	size_t k;

	for (k = 0; len == MISPLACED_LEN && k < m->nops; k++) {
		const struct op *op = &m->ops[k];

		if (op->kind != OP_WRITE || op->len < len)
			continue;
		src = op->off + (from % 512 + 512 - op->off % 512) % 512;
		for (; src + len <= op->off + op->len; src += 512) {
			for (b = 0; b < len && c->disk[from + b] ==
			     byte_of(m->seed, op->num, src + b); b++)
				;
			if (b < len)
				continue;
			describe(m, op->num, d, sizeof(d));
			snprintf(s, n, "%s's data for offset %" PRIu64
				 " (misplaced)", d, src);
			return;
		}
	}
	snprintf(s, n, "no write's data for these offsets or any other "
		 "(stale)");
}

/*
 * What the bytes [@from, @to) of file @file found on disk look like: zeros,
 * the data a write op put at these offsets (in this file or another), or
 * no write's data: stale blocks, or data from other offsets.
 */
static void identify(const struct checker *c, int file, uint64_t from,
		     uint64_t to, char *s, size_t n)
{
	const struct model *m = &c->m;
	uint64_t best = 0, zeros = 0, b;
	size_t k, best_op = 0;
	char d[DESC_LEN];

	for (b = from; b < to; b++)
		zeros += !c->disk[b];
	if (zeros == to - from) {
		snprintf(s, n, "all zero");
		return;
	}
	for (k = 0; k < m->nops; k++) {
		const struct op *op = &m->ops[k];
		uint64_t hits = 0;

		if (op->kind != OP_WRITE)
			continue;
		for (b = from; b < to; b++)
			hits += c->disk[b] &&
				c->disk[b] == byte_of(m->seed, op->num, b);
		if (hits > best) {
			best = hits;
			best_op = k;
		}
	}
	/* A byte matches a given op by chance once in 255. */
	if (best < 4 || best * 2 <= to - from - zeros) {
		misplaced(c, from, to, s, n);
	} else {
		describe(m, m->ops[best_op].num, d, sizeof(d));
		snprintf(s, n, "%" PRIu64 " bytes zero, %" PRIu64 " those %s "
			 "wrote at these offsets%s", zeros, best, d,
			 m->ops[best_op].file == file ? "" :
			 " of another file");
	}
}

static void violation(struct checker *c, int file, const char *fmt, ...)
{
	va_list ap;

	c->violations++;
	printf("fscrash: VIOLATION f%d: ", file);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

/*
 * Report the bytes [@from, @to) of file @file, @wrong of them (the first
 * and the last among them) not allowed.
 */
static void report_bytes(struct checker *c, int file, uint64_t from,
			 uint64_t to, uint64_t wrong)
{
	const struct model *m = &c->m;
	const struct mfile *f = &m->f[file];
	char made[DESC_LEN], origin[DESC_LEN], found[LINE_LEN];
	char later[LINE_LEN] = "";
	size_t k, len = 0, nlater = 0;

	describe(m, f->since[from], made, sizeof(made));
	if (f->dur[from] == CORRUPT_TAG)
		snprintf(origin, sizeof(origin), "the corrupted expectation");
	else if (f->dur[from])
		describe(m, f->dur[from], origin, sizeof(origin));
	else
		snprintf(origin, sizeof(origin), "zero, no durable data");
	for (k = 0; k < m->nops; k++) {
		const struct op *op = &m->ops[k];

		if (op->kind == OP_WRITE && op->file == file &&
		    op->num > f->since[from] && op->off <= from &&
		    from < op->off + op->len && nlater++ < 4)
			len += snprintf(later + len, sizeof(later) - len,
					" %ld", op->num);
	}
	identify(c, file, from, to, found, sizeof(found));
	violation(c, file, "bytes %" PRIu64 "..%" PRIu64 " (%" PRIu64 " wrong):"
		  " at %" PRIu64 " found 0x%02x, expected 0x%02x (%s, made "
		  "durable by %s)%s%s%s%s; the bytes found: %s", from, to - 1,
		  wrong, from, c->disk[from],
		  byte_of(m->seed, f->dur[from], from),
		  origin, made, f->flags[from] & ZEROED ? " or zero" : "",
		  nlater ? " or the data of later ops" : "", later,
		  nlater > 4 ? " ..." : "", found);
}

static bool on_file(const struct op *op, int file)
{
	return op->kind == OP_SYNC ||
	       (op->kind != OP_CUT && op->file == file);
}

/*
 * -u: a filesystem without a journal or an order between its writes (ext2,
 * minix, exfat) may link a block to a file before its data is on disk: after
 * a cut the block holds whatever it held, another file's data or stale
 * bytes.  That may be so for a byte whose durable value is zero (a hole, or
 * past the size) if a write since covered its block, and for a byte a
 * truncate or punch freed since (its block may have gone to any file).
 * With -H (no holes: exfat allocates every cluster up to the size, and
 * those past valid_size read as zeros) a byte whose durable value is zero
 * may also hold what its cluster held if the file grew over it since, or
 * a write since lay beyond it: valid_size, which moves past it then, may
 * reach the disk before the zeros written below it.  Clear those of the
 * bad bytes of file @i, the first @n, and return how many.
 */
static uint64_t allow_stale(struct checker *c, int i, uint64_t n)
{
	const struct model *m = &c->m;
	const struct mfile *f = &m->f[i];
	uint64_t b, end, cleared = 0, *beyond = NULL;
	size_t k;

	if (m->no_holes) {
		/* beyond[k]: 1 + the furthest write start from op k + 1 on */
		beyond = zalloc((m->nops + 1) * sizeof(*beyond));
		for (k = m->nops; k-- > 0; ) {
			const struct op *op = &m->ops[k];

			beyond[k] = beyond[k + 1];
			if (op->kind == OP_WRITE && op->file == i)
				beyond[k] = max_u64(beyond[k], op->off + 1);
		}
	}
	for (k = 0; k < m->nops; k++) {
		const struct op *op = &m->ops[k];

		if (op->kind != OP_WRITE || op->file != i)
			continue;
		end = min_u64(round_up(op->off + op->len, m->block), n);
		for (b = round_down(op->off, m->block); b < end; b++) {
			if (c->bad[b] && !f->dur[b] && op->num > f->since[b]) {
				c->bad[b] = 0;
				cleared++;
			}
		}
	}
	for (b = 0; b < n; b++) {
		if (c->bad[b] && ((f->flags[b] & ZEROED) ||
				  (beyond && !f->dur[b] &&
				   ((f->flags[b] & GROWN) ||
				    beyond[f->since[b]] > b + 1)))) {
			c->bad[b] = 0;
			cleared++;
		}
	}
	free(beyond);
	c->stale += cleared;
	return cleared;
}

/*
 * Nothing written after the cut may be on disk: the device dropped it.  A
 * run of MISPLACED_LEN bytes, in the first @n of file @i, that a write
 * after the cut put there says the cut let writes through.
 */
static void check_lost(struct checker *c, int i, uint64_t n)
{
	const struct model *m = &c->m;
	uint64_t b, end, run;
	size_t k;

	for (k = 0; k < m->nafter; k++) {
		const struct op *op = &m->after[k];

		if (op->file != i)
			continue;
		end = min_u64(op->off + op->len, n);
		for (b = op->off, run = 0; b < end && run < MISPLACED_LEN; b++)
			run = c->disk[b] == byte_of(m->seed, op->num, b) ?
			      run + 1 : 0;
		if (run == MISPLACED_LEN)
			violation(c, i, "bytes from %" PRIu64 " hold the data "
				  "of op %ld, made after the cut: the cut let "
				  "writes through", b - run, op->num);
	}
}

/* List the ops on file @file from op @from on, the last MAX_HISTORY. */
static void print_history(const struct model *m, int file, long from)
{
	char line[OP_LEN];
	size_t k, n = 0, skip;

	for (k = from - 1; k < m->nops; k++)
		n += on_file(&m->ops[k], file);
	skip = n > MAX_HISTORY ? n - MAX_HISTORY : 0;
	printf("fscrash: f%d: its ops from op %ld on%s:\n", file, from,
	       skip ? ", the last of them" : "");
	for (k = from - 1; k < m->nops; k++) {
		if (!on_file(&m->ops[k], file))
			continue;
		if (skip) {
			skip--;
			continue;
		}
		format_op(&m->ops[k], line, sizeof(line));
		printf("fscrash:   %s\n", line);
	}
}

static void check_file(struct checker *c, int i)
{
	const struct model *m = &c->m;
	const struct mfile *f = &m->f[i];
	uint64_t size, n, b, nbad = 0, runs = 0, from, last, wrong;
	long before = c->violations, first = LONG_MAX;
	char name[16], d[DESC_LEN];
	struct stat st;
	size_t k;
	int fd;

	snprintf(name, sizeof(name), "f%d", i);
	fd = openat(c->dirfd, name, O_RDONLY);
	if (fd < 0) {
		if (errno != ENOENT)
			die("open f%d: %s", i, strerror(errno));
		if (f->named)
			violation(c, i, "missing, but its name was durable");
		else if (c->verbose)
			printf("fscrash: f%d: absent; its name was not "
			       "durable\n", i);
		return;
	}
	if (fstat(fd, &st))
		die("fstat f%d: %s", i, strerror(errno));
	size = st.st_size;
	if (size < f->lo || size > f->hi) {
		first = f->size_op;
		describe(m, f->size_op, d, sizeof(d));
		violation(c, i, "size %" PRIu64 ", allowed %" PRIu64 "..%"
			  PRIu64 " (the sizes it had since %s made it "
			  "durable, O_DSYNC writes' ends since)", size, f->lo,
			  f->hi, d);
	}
	n = min_u64(size, m->maxsize);
	for (b = 0; b < n; ) {
		ssize_t ret = pread(fd, c->disk + b, n - b, b);

		if (ret <= 0)
			die("read f%d at %" PRIu64 ": %s", i, b,
			    ret ? strerror(errno) : "early EOF");
		b += ret;
	}
	close(fd);

	/* First what the durable state or a zeroing explains... */
	for (b = 0; b < n; b++) {
		c->bad[b] = c->disk[b] != byte_of(m->seed, f->dur[b], b) &&
			    (c->disk[b] || !(f->flags[b] & ZEROED));
		nbad += c->bad[b];
	}
	/* ...then what a write after the byte's durable point does. */
	for (k = 0; nbad && k < m->nops; k++) {
		const struct op *op = &m->ops[k];
		uint64_t end = min_u64(op->off + op->len, n);

		if (op->kind != OP_WRITE || op->file != i)
			continue;
		for (b = op->off; b < end; b++) {
			if (c->bad[b] && op->num > f->since[b] &&
			    c->disk[b] == byte_of(m->seed, op->num, b)) {
				c->bad[b] = 0;
				nbad--;
			}
		}
	}
	if (m->unordered && nbad)
		nbad -= allow_stale(c, i, n);
	check_lost(c, i, n);
	for (b = 0; b < n; ) {
		if (!c->bad[b]) {
			b++;
			continue;
		}
		/* A run of wrong bytes made durable by the same op. */
		for (from = last = b, wrong = 0;
		     b < n && b - last <= RUN_GAP &&
		     f->since[b] == f->since[from]; b++) {
			if (c->bad[b]) {
				last = b;
				wrong++;
			}
		}
		b = last + 1;
		if (runs++ < MAX_REPORTS)
			report_bytes(c, i, from, b, wrong);
		else
			c->violations++;
		if (f->since[from] < first)
			first = f->since[from];
	}
	if (runs > MAX_REPORTS)
		printf("fscrash: f%d: %" PRIu64 " more runs of wrong bytes\n",
		       i, runs - MAX_REPORTS);
	if (c->verbose || runs)
		printf("fscrash: f%d: size %" PRIu64 " (allowed %" PRIu64 "..%"
		       PRIu64 "), %" PRIu64 " bytes read, %" PRIu64
		       " wrong\n", i, size, f->lo, f->hi, n, nbad);
	if (c->violations > before)
		print_history(m, i, first ? first : 1);
}

/* The number after " KEY=" in @header, which must have it. */
static uint64_t header_value(const char *header, const char *key,
			     const char *path)
{
	char pattern[32];
	const char *at;

	snprintf(pattern, sizeof(pattern), " %s=", key);
	at = strstr(header, pattern);
	if (!at)
		die("%s: no %s in its header", path, key);
	return strtoull(at + strlen(pattern), NULL, 10);
}

static void load_state(struct checker *c, const char *path)
{
	struct model *m = &c->m;
	char line[LINE_LEN];
	long expect = 1;
	struct op op;
	FILE *in;

	in = fopen(path, "r");
	if (!in)
		die("%s: %s", path, strerror(errno));
	if (!fgets(line, sizeof(line), in) || strncmp(line, "fscrash 1 ", 10))
		die("%s: not a state file of this fscrash", path);
	m->seed = header_value(line, "seed", path);
	m->nfiles = header_value(line, "files", path);
	m->maxsize = header_value(line, "maxsize", path);
	m->names = header_value(line, "names", path);
	m->lie = header_value(line, "lie", path);
	m->unordered = header_value(line, "unordered", path);
	m->no_holes = header_value(line, "noholes", path);
	m->block = header_value(line, "block", path);
	m->dio_align = header_value(line, "dio", path);
	if (m->nfiles < 1 || m->nfiles > MAX_FILES || !m->maxsize ||
	    m->maxsize > 1 << 30 || !m->block)
		die("%s: bad header: %s", path, line);
	model_init(m);
	while (fgets(line, sizeof(line), in)) {
		if (!parse_op(line, &op) || op.num != expect++ ||
		    (!m->cut && !model_apply(m, &op)))
			die("%s: bad line: %s", path, line);
		if (!m->cut || op.kind != OP_WRITE)
			continue;
		m->after = realloc(m->after, (m->nafter + 1) * sizeof(op));
		if (!m->after)
			die("out of memory");
		m->after[m->nafter++] = op;
	}
	fclose(in);
}

/*
 * -C: the durable, untouched byte nearest the middle of the first file
 * that has one expects another value: check must report it.
 */
static void corrupt(struct checker *c)
{
	struct model *m = &c->m;
	uint64_t b, mid, i, lo;
	size_t k;
	int fi;

	for (fi = 0; fi < m->nfiles; fi++) {
		struct mfile *f = &m->f[fi];
		unsigned char *touched = c->bad;

		lo = min_u64(f->lo, m->maxsize);
		if (!f->created || !lo)
			continue;
		for (b = 0; b < lo; b++)
			touched[b] = f->flags[b] & ZEROED;
		for (k = 0; k < m->nops; k++) {
			const struct op *op = &m->ops[k];

			if (op->kind != OP_WRITE || op->file != fi)
				continue;
			for (b = op->off; b < min_u64(op->off + op->len, lo);
			     b++)
				touched[b] |= op->num > f->since[b];
		}
		mid = lo / 2;
		for (i = 0; i < lo; i++) {
			b = (mid + i) % lo;
			if (touched[b] || byte_of(m->seed, CORRUPT_TAG, b) ==
					  byte_of(m->seed, f->dur[b], b))
				continue;
			printf("fscrash: corrupted the expectation: f%d byte "
			       "%" PRIu64 " now expects 0x%02x, not 0x%02x\n",
			       fi, b, byte_of(m->seed, CORRUPT_TAG, b),
			       byte_of(m->seed, f->dur[b], b));
			f->dur[b] = CORRUPT_TAG;
			return;
		}
	}
	die("-C: no durable untouched byte to corrupt");
}

static int cmd_check(int argc, char **argv)
{
	struct checker c = { .verbose = false };
	const char *dir;
	const char *state = NULL;
	bool corrupting = false;
	int opt, i;

	while ((opt = getopt(argc, argv, "S:Cv")) != -1) {
		switch (opt) {
		case 'S':
			state = optarg;
			break;
		case 'C':
			corrupting = true;
			break;
		case 'v':
			c.verbose = true;
			break;
		default:
			return 2;
		}
	}
	if (!state || optind != argc - 1)
		die("usage: fscrash check [-C] [-v] -S STATE DIR");
	dir = argv[optind];
	c.dirfd = open(dir, O_RDONLY | O_DIRECTORY);
	if (c.dirfd < 0)
		die("%s: %s", dir, strerror(errno));
	load_state(&c, state);
	c.disk = zalloc(c.m.maxsize);
	c.bad = zalloc(c.m.maxsize);
	if (corrupting)
		corrupt(&c);
	for (i = 0; i < c.m.nfiles; i++)
		if (c.m.f[i].created)
			check_file(&c, i);
	if (c.violations) {
		printf("fscrash: FAIL: %ld violations (seed %" PRIu64
		       ", %zu ops%s)\n", c.violations, c.m.seed, c.m.nops,
		       c.m.cut ? ", the last the cut" : "");
		return 1;
	}
	printf("fscrash: OK: seed %" PRIu64 ", %zu ops%s, every file as "
	       "allowed", c.m.seed, c.m.nops,
	       c.m.cut ? ", the last the cut" : "");
	if (c.m.unordered)
		printf(" (%" PRIu64 " bytes stale where -u allows it)",
		       c.stale);
	putchar('\n');
	return 0;
}

static uint64_t number_arg(const char *s, uint64_t min, uint64_t max)
{
	uint64_t v;

	if (!parse_number(s, min, max, &v))
		die("bad number: %s", s);
	return v;
}

static int cmd_run(int argc, char **argv)
{
	struct run r = { .nops = 300, .maxlen = 32 << 10, .state_fd = -1 };
	struct op op;
	int opt, nfiles = 4, i;
	bool frees;
	long k;

	r.m.seed = 1;
	r.m.maxsize = 128 << 10;
	while ((opt = getopt(argc, argv, "s:N:F:l:m:dnuHTp:P:x:fLo:")) != -1) {
		switch (opt) {
		case 's':
			r.m.seed = number_arg(optarg, 0, UINT64_MAX);
			break;
		case 'N':
			r.nops = number_arg(optarg, 0, LONG_MAX);
			break;
		case 'F':
			nfiles = number_arg(optarg, 1, MAX_FILES - 1);
			break;
		case 'l':
			r.m.maxsize = number_arg(optarg, 8192, 1 << 30);
			break;
		case 'm':
			r.maxlen = number_arg(optarg, 4096, 1 << 30);
			break;
		case 'd':
			r.direct = true;
			break;
		case 'n':
			r.m.names = true;
			break;
		case 'u':
			r.m.unordered = true;
			break;
		case 'H':
			r.m.no_holes = true;
			break;
		case 'T':
			r.sync_frees = true;
			break;
		case 'p':
			r.script = fopen(optarg, "r");
			if (!r.script)
				die("%s: %s", optarg, strerror(errno));
			break;
		case 'P':
			r.cut_after = number_arg(optarg, 1, LONG_MAX);
			break;
		case 'x':
			r.cut_cmd = optarg;
			break;
		case 'f':
			r.sync_all_at_cut = true;
			break;
		case 'L':
			r.m.lie = true;
			break;
		case 'o':
			r.state_path = optarg;
			break;
		default:
			return 2;
		}
	}
	if (!r.state_path || optind != argc - 1 ||
	    !r.cut_after != !r.cut_cmd || r.cut_after > r.nops)
		die("usage: fscrash run [-d] [-n] [-f] [-L] [-s SEED] [-N OPS]"
		    " [-F FILES] [-l BYTES] [-m BYTES] [-P K -x CMD] -o STATE"
		    " DIR (K at most OPS)");
	r.dir = argv[optind];
	r.m.maxsize = round_down(r.m.maxsize, 4096);
	r.maxlen = min_u64(round_down(r.maxlen, 4096), r.m.maxsize);
	r.nsetup = nfiles;
	r.m.nfiles = nfiles + r.m.names;
	r.rng = mix64(r.m.seed) | 1;
	memcpy(r.weights, default_weights, sizeof(r.weights));
	if (!r.direct)
		for (i = 0; i < NR_WRITE_KINDS; i++)
			if (write_kinds[i].direct)
				r.weights[i] = 0;
	model_init(&r.m);
	r.dirfd = open(r.dir, O_RDONLY | O_DIRECTORY);
	if (r.dirfd < 0)
		die("%s: %s", r.dir, strerror(errno));
	r.state_fd = open(r.state_path, O_WRONLY | O_CREAT | O_TRUNC |
			  O_APPEND, 0644);
	if (r.state_fd < 0)
		die("%s: %s", r.state_path, strerror(errno));
	if (posix_memalign((void **)&r.buf, 4096, r.maxlen))
		die("out of memory");

	setup(&r);
	if (r.dio_mem_align > 4096) {
		free(r.buf);
		if (posix_memalign((void **)&r.buf, r.dio_mem_align, r.maxlen))
			die("out of memory");
	}
	for (k = 1; k <= r.nops; k++) {
		if (r.script) {
			if (!next_scripted(&r, &op))
				break;
		} else {
			while (!draw(&r, &op))
				;
		}
		op.num = r.num + 1;
		frees = op.kind == OP_PUNCH || (op.kind == OP_TRUNCATE &&
						op.off < r.m.f[op.file].size);
		switch (execute(&r, &op, r.m.lie)) {
		case UNSUPPORTED:
			/* A fallocate mode the filesystem lacks: draw again. */
			if (!r.script)
				k--;
			continue;
		case STOPPED:
			return 0;
		case DONE:
			break;
		}
		r.num++;
		record(&r, &op);
		if (r.sync_frees && frees)
			fixed_op(&r, OP_FSYNC, op.file, 0, r.m.lie);
		if (k == r.cut_after)
			cut(&r);
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "run"))
		return cmd_run(argc - 1, argv + 1);
	if (argc > 1 && !strcmp(argv[1], "check"))
		return cmd_check(argc - 1, argv + 1);
	die("usage: fscrash run|check ... (see the source's header)");
	return 2;
}
