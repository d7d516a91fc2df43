// SPDX-License-Identifier: GPL-2.0
/*
 * fsmodel: a seeded random file-operation tester.  It runs random
 * operations on two files and keeps what each file must hold in memory
 * (a byte array and a size), and checks every read, and now and then the
 * whole of both files, against that model.
 *
 *   fsmodel -F CAPS [options] DIR
 *   fsmodel -P DIR
 *
 *   -F CAPS    what the filesystem can do, declared: nothing is guessed.
 *              Words separated by spaces:
 *                dio        O_DIRECT opens and transfers work
 *                dioalign   statx reports STATX_DIOALIGN (needs dio)
 *                copy       copy_file_range() between the two files
 *                falloc=M,M...  these fallocate modes: alloc, keep, punch,
 *                           zero, zero-keep, collapse, insert
 *                nowait=K,K...  RWF_NOWAIT for these: read, write (through
 *                           the page cache), dread, dwrite (O_DIRECT)
 *                seek       SEEK_HOLE and SEEK_DATA
 *                fiemap     the FIEMAP ioctl
 *                eofzero    bytes stored through a mapping past EOF, in
 *                           the EOF page, read back as zeros once a write
 *                           or a truncate takes the file past them
 *              An op that needs what is not declared is never drawn; one
 *              that is declared and fails (EINVAL, EOPNOTSUPP, ENOSPC or
 *              any other error) is a failure.  dio is checked at the start
 *              (O_DIRECT opens), and so is dioalign, both ways: statx must
 *              report the alignment exactly when it is declared
 *   -P         probe DIR and print what it can do in -F's form, then exit:
 *              to compare a declaration with, never to run from
 *   -n N       instances, forked (default 1; one instance runs in-process).
 *              Instance i works on DIR/fsm.i.a and DIR/fsm.i.b with seed
 *              SEED + i.
 *   -s SEED    seed (default 1); the same seed and options replay the run
 *   -N OPS     random operations per instance (default 10000)
 *   -l BYTES   max file size (default 256k), or with -X where most
 *              offsets and sizes stay
 *   -X BYTES   far size: one offset or size in 64 is drawn up to BYTES
 *              instead of -l, so that the files now and then grow sparse
 *              and large (default 0: off).  The model is a sparse mapping:
 *              only what was written costs memory
 *   -L BYTES   max length of one transfer (default 64k)
 *   -B BYTES   block size for collapse/insert ranges (default st_blksize)
 *   -A BYTES   O_DIRECT alignment without dioalign (default st_blksize)
 *   -w OP=W[,OP=W...]  operation weights, 0 disables (-v prints them)
 *   -c EVERY   compare both whole files every EVERY ops (default 1000)
 *              and always at the end; 0: only at the end
 *   -R CMD     remount command, run through system() with every file
 *              closed; enables the remount op (one instance only).  The
 *              -o logs stay open: keep them off the remounted filesystem
 *   -r EVERY   remount every EVERY ops; with -n > 1 at a barrier: all
 *              instances stop, the parent runs CMD once, all go on
 *   -D         drop caches on reopen (writes /proc/sys/vm/drop_caches;
 *              a reopen that cannot fails)
 *   -o LOG     log every op (LOG.i per instance with -n > 1)
 *   -p LOG     replay LOG instead of drawing ops at random, with the
 *              capabilities its first line names (a log written before
 *              they were logged: those -F gives)
 *   -S LOG     shrink the failing LOG into the shortest sequence that
 *              still fails the same way (delta debugging), written to -o
 *              OUT.  The same way: the same class of failure (data, count,
 *              size or mapping mismatch, unexpected error, signal), and
 *              for an unexpected error the same op kind and errno
 *   -C OPNUM   after op OPNUM (or the first op after it with file a not
 *              empty) flip one byte of the model of file a and check both
 *              files: proof that a corruption is caught
 *   -v, -q     verbose, quiet (only the closing line)
 *
 * Operations (their -w names):
 *   read, write     buffered pread/pwrite
 *   dread, dwrite   O_DIRECT, aligned as statx says (dio)
 *   badio           misaligned O_DIRECT (dio, dioalign): a misaligned
 *                   offset must fail with EINVAL and change nothing, a
 *                   write from a misaligned buffer within one page all or
 *                   nothing, a read EINVAL or the right data
 *   readv, writev   preadv2/pwritev2, 2-5 segments, one crossing a page
 *   uread, uwrite   io_uring read and write
 *   ufwrite         io_uring write from a registered (fixed) buffer
 *   nread, nwrite   preadv2/pwritev2 with RWF_NOWAIT (nowait=): EAGAIN, or
 *                   a short count, is taken (a write's EAGAIN must have
 *                   changed nothing), and the rest is done without the flag
 *   dswrite         pwritev2 with RWF_DSYNC
 *   oswrite         a write through a descriptor opened with O_DSYNC
 *   aread, awrite   libaio
 *   append          a write through an O_APPEND descriptor: it lands at
 *                   the model's size, and leaves the offset at the new size
 *   mread, mwrite   through a shared mapping of file a kept across
 *                   operations; the tail of the EOF page must read zero
 *   eoftail         a store through the mapping into the EOF page past
 *                   EOF, then the file extended past it by a truncate or a
 *                   write further out: the stored bytes must read zero
 *                   (eofzero)
 *   truncate, falloc (the declared modes), fsync, fdatasync, msync
 *   copy            copy_file_range between the files (copy)
 *   seek            SEEK_DATA and SEEK_HOLE from an offset (seek): no data
 *                   of the model (its bytes are never zero) may be skipped
 *                   by SEEK_DATA or lie in a hole SEEK_HOLE reports; a
 *                   filesystem may report the whole file as data
 *   fiemap          FIEMAP of the whole file (fiemap): extents sorted, not
 *                   overlapping, within the file (the last rounded up to
 *                   the block; past it only unwritten or delayed ones), and
 *                   with FIEMAP_FLAG_SYNC every byte of the model's data in
 *                   one of them (without it, dirty data that has no blocks
 *                   yet, as after ext2's mapped writes, need not show)
 *   reopen, remount
 * uread, uwrite, ufwrite, nread, nwrite, dswrite, oswrite, aread and
 * awrite go through O_DIRECT one time in four when dio is declared.  Not
 * drawn: check (both whole files against the model) and corrupt (-C).
 *
 * Every byte written is a hash of the op's 32-bit tag and its file offset,
 * never zero: a logged op says exactly what it wrote, and a lost write or
 * a stale hole never reads back right by chance.
 *
 * Log: a first line "# fsmodel seed=S instance=I maxsize=... farsize=...
 * maxlen=... page=... block=... dio=OFFSET/MEM statx|fallback caps: CAPS",
 * then one line per op, written and flushed before the op runs; '#' lines
 * are notes:
 *
 *   read a OFF LEN                 write a OFF LEN tag=0xTAG
 *   dread a OFF LEN mem=M          dwrite a OFF LEN mem=M tag=0xTAG
 *   badio a read OFF LEN mem=M     badio a write OFF LEN mem=M tag=0xTAG
 *   readv a OFF LEN@M,LEN@M,...    writev a OFF LEN@M,... tag=0xTAG
 *   KIND a OFF LEN [direct mem=M] [tag=0xTAG]   for uread, uwrite,
 *                  ufwrite, nread, nwrite, dswrite, oswrite, aread, awrite
 *   append a LEN tag=0xTAG         mread a OFF LEN
 *   mwrite a OFF LEN tag=0xTAG     eoftail a OFF LEN SIZE [write] tag=0xTAG
 *   truncate a SIZE [shrinkmap]    falloc a MODE OFF LEN
 *   fsync a, fdatasync a           copy SRC DST SRCOFF DSTOFF LEN
 *   seek a OFF                     fiemap a [sync]
 *   msync, reopen, remount, check  corrupt a OFF
 *
 * M is the buffer's offset from a page boundary; "shrinkmap" mremaps the
 * mapping down after the truncate.  eoftail stores LEN bytes at OFF and
 * extends the file to SIZE, with "write" by writing its last bytes (from
 * the end of the stored ones, at most 512 bytes), else by a truncate.
 * "sync" asks FIEMAP to flush first.  A replay recreates both files empty,
 * takes the sizes and the capabilities from the log's first line (-F may
 * not be given), runs the logged ops only (the checks are logged ops too)
 * and skips, with a note, an op that makes no sense in the state a shrunk
 * log leaves (a mapped access past EOF, a collapse past EOF).  Its -o log
 * equals the replayed log.  -C in a replay counts the replayed ops; a
 * logged "corrupt" replays by itself.
 *
 * A random run also fails when an op kind that could be drawn (declared,
 * non-zero weight) never ran, and so does a declared fallocate mode: the
 * run would have tested less than it says.
 *
 * On a mismatch or an unexpected error, stderr gets the seed, the
 * instance, the op number and op, the last 50 ops, and a line saying "data
 * mismatch" (with the first bad offset, how many bytes of the range differ
 * and 16 bytes expected and found), "count mismatch", "size mismatch",
 * "mapping mismatch" (seek, fiemap) or "unexpected error".  The closing
 * line on stdout is "fsmodel: OK|FAIL|ERROR N ops: KIND=COUNT ...; ..."
 * with the ops of every instance by kind.  Exit status: 0 all passed, 1 a
 * failure, 2 usage or setup error.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <libaio.h>
#include <limits.h>
#include <liburing.h>
#include <linux/falloc.h>
#include <linux/fiemap.h>
#include <linux/fs.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tools.h"

#define HISTORY_LEN	50
#define LINE_LEN	512
#define MAX_SEGS	5
/* What a whole-file check reads at a time. */
#define CHECK_CHUNK	(1 << 20)
/* The FIEMAP extents asked for; more make the list incomplete. */
#define FIEMAP_MAX	512
/*
 * With -X, one offset or size in this many reaches past -l.  A file that
 * went far stays large until a truncate brings it back, and every
 * whole-file check reads all of it: rarer far draws keep the run short.
 */
#define FAR_ONE_IN	64
/* The most an eoftail write writes. */
#define TAIL_WRITE_MAX	512

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
	OP_WRITEV, OP_UREAD, OP_UWRITE, OP_UFWRITE, OP_NREAD, OP_NWRITE,
	OP_DSWRITE, OP_OSWRITE, OP_AREAD, OP_AWRITE, OP_APPEND, OP_MREAD,
	OP_MWRITE, OP_EOFTAIL, OP_TRUNCATE, OP_FALLOC, OP_FSYNC,
	OP_FDATASYNC, OP_MSYNC, OP_COPY, OP_SEEK, OP_FIEMAP, OP_REOPEN,
	OP_REMOUNT,
	NR_WEIGHTED,
	/* Never drawn: scheduled by -c, -r and -C. */
	OP_CHECK = NR_WEIGHTED, OP_CORRUPT,
	NR_OPS
};

static const char *const op_names[NR_OPS] = {
	"read", "write", "dread", "dwrite", "badio", "readv", "writev",
	"uread", "uwrite", "ufwrite", "nread", "nwrite", "dswrite",
	"oswrite", "aread", "awrite", "append", "mread", "mwrite", "eoftail",
	"truncate", "falloc", "fsync", "fdatasync", "msync", "copy", "seek",
	"fiemap", "reopen", "remount", "check", "corrupt",
};

static const unsigned int default_weights[NR_WEIGHTED] = {
	[OP_READ] = 20, [OP_WRITE] = 20, [OP_DREAD] = 5, [OP_DWRITE] = 5,
	[OP_BADIO] = 1, [OP_READV] = 4, [OP_WRITEV] = 4, [OP_UREAD] = 4,
	[OP_UWRITE] = 3, [OP_UFWRITE] = 2, [OP_NREAD] = 2, [OP_NWRITE] = 2,
	[OP_DSWRITE] = 2, [OP_OSWRITE] = 2, [OP_AREAD] = 2, [OP_AWRITE] = 2,
	[OP_APPEND] = 3, [OP_MREAD] = 6, [OP_MWRITE] = 6, [OP_EOFTAIL] = 2,
	[OP_TRUNCATE] = 8, [OP_FALLOC] = 8, [OP_FSYNC] = 1,
	[OP_FDATASYNC] = 1, [OP_MSYNC] = 1, [OP_COPY] = 4, [OP_SEEK] = 2,
	[OP_FIEMAP] = 1, [OP_REOPEN] = 1, [OP_REMOUNT] = 1,
};

/*
 * The kinds that read or write one range through some interface, with an
 * O_DIRECT variant: logged alike, and drawn alike by pick_transfer().
 */
static bool transfer_kind(enum op_kind kind)
{
	switch (kind) {
	case OP_UREAD:
	case OP_UWRITE:
	case OP_UFWRITE:
	case OP_NREAD:
	case OP_NWRITE:
	case OP_DSWRITE:
	case OP_OSWRITE:
	case OP_AREAD:
	case OP_AWRITE:
		return true;
	default:
		return false;
	}
}

/* The kinds that write the pattern of a tag (a badio write does too). */
static bool tagged_kind(enum op_kind kind)
{
	switch (kind) {
	case OP_WRITE:
	case OP_DWRITE:
	case OP_WRITEV:
	case OP_UWRITE:
	case OP_UFWRITE:
	case OP_NWRITE:
	case OP_DSWRITE:
	case OP_OSWRITE:
	case OP_AWRITE:
	case OP_APPEND:
	case OP_MWRITE:
	case OP_EOFTAIL:
		return true;
	default:
		return false;
	}
}

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

/* RWF_NOWAIT, through the page cache and O_DIRECT. */
enum nowait_kind { NW_READ, NW_WRITE, NW_DREAD, NW_DWRITE, NR_NOWAIT };

static const char *const nowait_names[NR_NOWAIT] = {
	"read", "write", "dread", "dwrite",
};

enum cap {
	CAP_DIO, CAP_DIOALIGN, CAP_COPY, CAP_FALLOC, CAP_NOWAIT, CAP_SEEK,
	CAP_FIEMAP, CAP_EOFZERO, NR_CAPS
};

static const char *const cap_names[NR_CAPS] = {
	"dio", "dioalign", "copy", "falloc", "nowait", "seek", "fiemap",
	"eofzero",
};

/* -F: a bit per enum cap; the fallocate modes and RWF_NOWAIT kinds. */
struct caps {
	unsigned int has;
	unsigned int falloc;
	unsigned int nowait;
};

/* The descriptors each file is open through. */
enum fd_kind { FD_PLAIN, FD_DIRECT, FD_DSYNC, FD_DIRECT_DSYNC, FD_APPEND,
	       NR_FDS };

static const int fd_flags[NR_FDS] = {
	[FD_PLAIN] = 0,
	[FD_DIRECT] = O_DIRECT,
	[FD_DSYNC] = O_DSYNC,
	[FD_DIRECT_DSYNC] = O_DIRECT | O_DSYNC,
	[FD_APPEND] = O_APPEND,
};

struct config {
	uint64_t seed;
	long nops;
	int ninstances;
	size_t maxsize;
	size_t farsize;		/* -X, 0: off */
	size_t limit;		/* the larger of the two: no file grows past */
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
	bool caps_given;
	bool probe;
	bool drop_caches;
	bool verbose;
	bool quiet;
	struct caps caps;
	unsigned int weights[NR_WEIGHTED];
};

static struct config cfg = {
	.seed = 1, .nops = 10000, .ninstances = 1, .maxsize = 256 << 10,
	.maxlen = 64 << 10, .check_every = 1000,
};

static size_t page_size;

struct op {
	enum op_kind kind;
	int file;		/* 0: file a, 1: file b */
	int dst;		/* copy: the destination file */
	size_t off;		/* truncate: new size; copy: source offset */
	size_t len;
	size_t dst_off;		/* copy */
	size_t to;		/* eoftail: the size the file is extended to */
	size_t mem;		/* O_DIRECT buffer: offset from a page */
	uint32_t tag;		/* the data written: see fill_pattern() */
	int mode;		/* falloc: enum falloc_kind */
	/*
	 * badio and eoftail: a write; transfers: O_DIRECT; truncate: shrink
	 * the mapping; fiemap: FIEMAP_FLAG_SYNC
	 */
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

/*
 * How a run failed, for the shrinker: a shrunk log must fail the same way.
 * The classes are the words the report uses.
 */
enum failure_class {
	FAIL_NONE, FAIL_DATA, FAIL_COUNT, FAIL_SIZE, FAIL_MAPPING,
	FAIL_ERROR, FAIL_SIGNAL, FAIL_OTHER
};

static const char *const failure_names[] = {
	"none", "data mismatch", "count mismatch", "size mismatch",
	"mapping mismatch", "unexpected error", "signal", "other",
};

struct failure {
	enum failure_class class;
	int kind;		/* the failing op's enum op_kind */
	int err;		/* an unexpected error's errno, a signal */
};

/*
 * What an instance did, in memory shared with the process that forked it:
 * the closing line adds up the counts, the shrinker compares failures.
 */
struct outcome {
	long counts[NR_OPS];
	long direct_counts[NR_OPS];	/* transfers through O_DIRECT */
	long falloc_counts[NR_FALLOC];
	long nowait_retries;
	struct failure failure;
};

static struct outcome *outcomes;

struct file_state {
	char path[PATH_MAX];
	int fds[NR_FDS];	/* -1 where not open */
	unsigned char *model;	/* cfg.limit + a page; zero past size */
	size_t size;
};

struct instance {
	int id;
	uint64_t seed;
	uint64_t rng;
	const struct script *script;	/* replaying it, or NULL */
	struct caps caps;
	struct file_state files[2];
	unsigned char *map;		/* shared mapping of file a */
	size_t map_len;
	size_t page;
	size_t block;
	size_t dio_off_align;
	size_t dio_mem_align;
	size_t buf_align;
	bool dio_align_known;		/* statx: misaligned I/O fails */
	bool ring_up;
	bool aio_up;
	struct io_uring ring;
	io_context_t aio;
	unsigned int weights[NR_WEIGHTED];
	unsigned char *iobuf;		/* registered with the ring */
	size_t iobuf_len;
	unsigned char *filebuf;
	unsigned char *iovbuf;
	size_t iov_region;
	struct fiemap *fiemap;
	FILE *log;
	int barrier_up;			/* pipes to the parent, or -1 */
	int barrier_down;
	long seq;			/* the running op's number, from 1 */
	enum op_kind running_kind;
	char current[LINE_LEN];
	char history[HISTORY_LEN][LINE_LEN];
	struct outcome *out;
	bool corrupted;
};

/* What a read of @len bytes at @off returns from a file of @size bytes. */
static size_t expected_count(size_t size, size_t off, size_t len)
{
	return off >= size ? 0 : min_u64(len, size - off);
}

/* xorshift64* (tools.h): our own, so a seed means the same run everywhere. */
static uint64_t next_random(struct instance *in)
{
	return xorshift_next(&in->rng);
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
	int used = 0, i;

	switch (op->kind) {
	case OP_READ:
	case OP_WRITE:
	case OP_MREAD:
	case OP_MWRITE:
		used = snprintf(s, n, "%s %c %zu %zu", name, file, op->off,
				op->len);
		break;
	case OP_DREAD:
	case OP_DWRITE:
		used = snprintf(s, n, "%s %c %zu %zu mem=%zu", name, file,
				op->off, op->len, op->mem);
		break;
	case OP_BADIO:
		used = snprintf(s, n, "%s %c %s %zu %zu mem=%zu", name, file,
				op->flag ? "write" : "read", op->off, op->len,
				op->mem);
		break;
	case OP_READV:
	case OP_WRITEV:
		used = snprintf(s, n, "%s %c %zu", name, file, op->off);
		for (i = 0; i < op->nseg; i++)
			used += snprintf(s + used, n - used, "%c%zu@%zu",
					 i ? ',' : ' ', op->seg_len[i],
					 op->seg_mem[i]);
		break;
	case OP_APPEND:
		used = snprintf(s, n, "%s %c %zu", name, file, op->len);
		break;
	case OP_EOFTAIL:
		used = snprintf(s, n, "%s %c %zu %zu %zu%s", name, file,
				op->off, op->len, op->to,
				op->flag ? " write" : "");
		break;
	case OP_TRUNCATE:
		used = snprintf(s, n, "%s %c %zu%s", name, file, op->off,
				op->flag ? " shrinkmap" : "");
		break;
	case OP_FALLOC:
		used = snprintf(s, n, "%s %c %s %zu %zu", name, file,
				falloc_modes[op->mode].name, op->off,
				op->len);
		break;
	case OP_FSYNC:
	case OP_FDATASYNC:
		used = snprintf(s, n, "%s %c", name, file);
		break;
	case OP_COPY:
		used = snprintf(s, n, "%s %c %c %zu %zu %zu", name, file,
				'a' + op->dst, op->off, op->dst_off, op->len);
		break;
	case OP_SEEK:
	case OP_CORRUPT:
		used = snprintf(s, n, "%s %c %zu", name, file, op->off);
		break;
	case OP_FIEMAP:
		used = snprintf(s, n, "%s %c%s", name, file,
				op->flag ? " sync" : "");
		break;
	default:
		if (!transfer_kind(op->kind)) {
			used = snprintf(s, n, "%s", name);
			break;
		}
		used = snprintf(s, n, "%s %c %zu %zu", name, file, op->off,
				op->len);
		if (op->flag)
			used += snprintf(s + used, n - used, " direct mem=%zu",
					 op->mem);
	}
	if (tagged_kind(op->kind) || (op->kind == OP_BADIO && op->flag))
		snprintf(s + used, n - used, " tag=0x%08" PRIx32, op->tag);
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
			   !strcmp(tok, "shrinkmap") || !strcmp(tok, "sync")) {
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
	if (op->kind == OP_APPEND && nnums == 1) {
		op->len = nums[0];
	} else if (op->kind == OP_COPY && nnums == 3) {
		op->off = nums[0];
		op->dst_off = nums[1];
		op->len = nums[2];
	} else {
		if (nnums > 0)
			op->off = nums[0];
		if (nnums > 1)
			op->len = nums[1];
		if (nnums > 2)
			op->to = nums[2];
	}
	format_op(op, again, sizeof(again));
	return !strcmp(again, line);
}

static bool has_cap(const struct instance *in, enum cap cap)
{
	return in->caps.has & 1u << cap;
}

/* @word of -F's form ("name" or "name=v,v..."): the bits of its values. */
static bool parse_cap_values(const char *values, const char *const *names,
			     int n, unsigned int *bits)
{
	char buf[LINE_LEN], *item, *save;
	int i;

	if (!*values || strlen(values) >= sizeof(buf))
		return false;
	strcpy(buf, values);
	for (item = strtok_r(buf, ",", &save); item;
	     item = strtok_r(NULL, ",", &save)) {
		for (i = 0; i < n && strcmp(item, names[i]); i++)
			;
		if (i == n)
			return false;
		*bits |= 1u << i;
	}
	return true;
}

static const char *falloc_name(int i)
{
	return falloc_modes[i].name;
}

/* -F CAPS, or the capabilities of a log's first line. */
static bool parse_caps(const char *text, struct caps *caps)
{
	const char *falloc_names[NR_FALLOC];
	char buf[LINE_LEN], *word, *save, *eq;
	int cap, i;

	memset(caps, 0, sizeof(*caps));
	if (strlen(text) >= sizeof(buf))
		return false;
	for (i = 0; i < NR_FALLOC; i++)
		falloc_names[i] = falloc_name(i);
	strcpy(buf, text);
	for (word = strtok_r(buf, " \t\n", &save); word;
	     word = strtok_r(NULL, " \t\n", &save)) {
		eq = strchr(word, '=');
		if (eq)
			*eq = 0;
		for (cap = 0; cap < NR_CAPS && strcmp(word, cap_names[cap]);
		     cap++)
			;
		if (cap == NR_CAPS)
			return false;
		caps->has |= 1u << cap;
		if (cap == CAP_FALLOC) {
			if (!eq || !parse_cap_values(eq + 1, falloc_names,
						     NR_FALLOC, &caps->falloc))
				return false;
		} else if (cap == CAP_NOWAIT) {
			if (!eq || !parse_cap_values(eq + 1, nowait_names,
						     NR_NOWAIT, &caps->nowait))
				return false;
		} else if (eq) {
			return false;
		}
	}
	return !(caps->has & 1u << CAP_DIOALIGN) ||
	       (caps->has & 1u << CAP_DIO);
}

/* @caps in -F's form, in a fixed order. */
static void format_caps(const struct caps *caps, char *s, size_t n)
{
	size_t used = 0;
	int cap, i;

	s[0] = 0;
	for (cap = 0; cap < NR_CAPS; cap++) {
		unsigned int values = cap == CAP_FALLOC ? caps->falloc :
				      cap == CAP_NOWAIT ? caps->nowait : 0;
		int nvalues = cap == CAP_FALLOC ? NR_FALLOC : NR_NOWAIT;

		if (!(caps->has & 1u << cap))
			continue;
		used += snprintf(s + used, n - used, "%s%s", used ? " " : "",
				 cap_names[cap]);
		for (i = 0; values && i < nvalues; i++)
			if (values & 1u << i)
				used += snprintf(s + used, n - used, "%c%s",
						 values & ((1u << i) - 1) ?
						 ',' : '=',
						 cap == CAP_FALLOC ?
						 falloc_name(i) :
						 nowait_names[i]);
	}
}

/*
 * Report a failure of the running op, with what led to it, and remember
 * how it failed: the first failure is the one the shrinker compares.
 */
static bool vfail(struct instance *in, enum failure_class class, int err,
		  const char *fmt, va_list ap)
{
	long first = max_u64(in->seq, HISTORY_LEN) - HISTORY_LEN + 1, seq;
	char msg[1024];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	if (in->out && in->out->failure.class == FAIL_NONE) {
		in->out->failure.class = class;
		in->out->failure.kind = in->running_kind;
		in->out->failure.err = err;
	}
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

/* A failure of @class (with @err for an unexpected error). */
static bool fail_code(struct instance *in, enum failure_class class, int err,
		      const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfail(in, class, err, fmt, ap);
	va_end(ap);
	return false;
}

static bool fail(struct instance *in, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfail(in, FAIL_OTHER, 0, fmt, ap);
	va_end(ap);
	return false;
}

/* A call failed with @err where the model expects success. */
static bool fail_err(struct instance *in, const char *what, int err)
{
	return fail_code(in, FAIL_ERROR, err, "%s: unexpected error: %s",
			 what, strerror(err));
}

static bool fail_errno(struct instance *in, const char *what)
{
	return fail_err(in, what, errno);
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
	return fail_code(in, FAIL_DATA, 0, "%s: data mismatch in file %c: "
			 "first bad offset %zu: expected 0x%02x, found 0x%02x\n"
			 "%zu of %zu bytes differ in %zu..%zu\n"
			 "expected: %s\nfound:    %s", what, 'a' + file,
			 off + first, want[first], found[first], differ, n,
			 off, off + n - 1, want_hex, found_hex);
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
		return fail_code(in, FAIL_COUNT, 0, "%s: count mismatch: "
				 "returned %zd, the model expects %zu (file %c "
				 "is %zu bytes)", what, got, want, 'a' + file,
				 size);
	return verify(in, file, off, buf, got, what);
}

static bool check_size(struct instance *in, int file)
{
	struct stat st;

	if (fstat(in->files[file].fds[FD_PLAIN], &st))
		return fail_errno(in, "fstat");
	if ((size_t)st.st_size != in->files[file].size)
		return fail_code(in, FAIL_SIZE, 0, "size mismatch: file %c is "
				 "%lld bytes, the model says %zu", 'a' + file,
				 (long long)st.st_size, in->files[file].size);
	return true;
}

/* The size, then the file a chunk at a time, up to a read that ends short. */
static bool check_file(struct instance *in, int file)
{
	int fd = in->files[file].fds[FD_PLAIN];
	size_t off = 0;
	ssize_t ret;

	if (!check_size(in, file))
		return false;
	do {
		ret = RETRY_EINTR(pread(fd, in->filebuf, CHECK_CHUNK, off));
		if (!verify_read(in, file, off, CHECK_CHUNK, in->filebuf, ret,
				 "whole-file pread"))
			return false;
		off += ret;
	} while (ret == CHECK_CHUNK);
	return true;
}

/* @len bytes at @off of file @file must read as the model has them. */
static bool check_range(struct instance *in, int file, size_t off,
			size_t len, const char *what)
{
	ssize_t ret;

	if (!check_size(in, file))
		return false;
	len = min_u64(len, CHECK_CHUNK);
	ret = RETRY_EINTR(pread(in->files[file].fds[FD_PLAIN], in->filebuf,
				len, off));
	return verify_read(in, file, off, len, in->filebuf, ret, what);
}

/* The model takes @n bytes of the pattern of @tag written at @off. */
static void model_write(struct file_state *f, size_t off, size_t n,
			uint32_t tag)
{
	fill_pattern(f->model + off, tag, off, n);
	f->size = max_u64(f->size, off + n);
}

/*
 * Zero the model from @from to @to.  Whole pages of a long range are
 * given back instead, so that a large sparse file costs no memory.
 */
static void model_zero(struct file_state *f, size_t from, size_t to)
{
	size_t first = round_up(from, page_size);
	size_t last = round_down(to, page_size);

	if (from >= to)
		return;
	if (last <= first + 16 * page_size ||
	    madvise(f->model + first, last - first, MADV_DONTNEED)) {
		memset(f->model + from, 0, to - from);
		return;
	}
	memset(f->model + from, 0, first - from);
	memset(f->model + last, 0, to - last);
}

/* The first offset in [@from, @to) where the model holds data, or @to. */
static size_t model_data(const struct file_state *f, size_t from, size_t to)
{
	const unsigned char *p = f->model;
	uint64_t word;

	for (; from < to && (from & 7); from++)
		if (p[from])
			return from;
	for (; from + 8 <= to; from += 8) {
		memcpy(&word, p + from, 8);
		if (word)
			break;
	}
	for (; from < to; from++)
		if (p[from])
			return from;
	return to;
}

/*
 * A write of @len bytes at @off returned @ret: all of it, or a failure.
 * What a short write did write is in the model first, so that the report
 * is about the missing part.
 */
static bool finish_write(struct instance *in, int file, size_t off,
			 size_t len, uint32_t tag, ssize_t ret,
			 const char *what)
{
	struct file_state *f = &in->files[file];

	if (ret < 0)
		return fail_errno(in, what);
	model_write(f, off, min_u64(ret, len), tag);
	if ((size_t)ret == len)
		return true;
	return fail_code(in, FAIL_COUNT, 0, "%s: count mismatch: wrote %zd "
			 "of %zu bytes", what, ret, len);
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
			   in->files[0].fds[FD_PLAIN], 0);
	if (map == MAP_FAILED)
		return fail_errno(in, in->map ? "mremap" : "mmap");
	in->map = map;
	in->map_len = want;
	return true;
}

static void close_files(struct instance *in)
{
	int i, k;

	unmap_file(in);
	for (i = 0; i < 2; i++) {
		for (k = 0; k < NR_FDS; k++) {
			if (in->files[i].fds[k] >= 0)
				close(in->files[i].fds[k]);
			in->files[i].fds[k] = -1;
		}
	}
}

static const char *const fd_names[NR_FDS] = {
	[FD_PLAIN] = "open",
	[FD_DIRECT] = "open O_DIRECT",
	[FD_DSYNC] = "open O_DSYNC",
	[FD_DIRECT_DSYNC] = "open O_DIRECT|O_DSYNC",
	[FD_APPEND] = "open O_APPEND",
};

/*
 * Open both files through every descriptor, the O_DIRECT ones only with
 * dio declared: -1, or the enum fd_kind whose open failed (errno set).
 */
static int open_files(struct instance *in, int create)
{
	int i, k;

	for (i = 0; i < 2; i++) {
		struct file_state *f = &in->files[i];

		for (k = 0; k < NR_FDS; k++) {
			if ((fd_flags[k] & O_DIRECT) && !has_cap(in, CAP_DIO))
				continue;
			f->fds[k] = open(f->path, O_RDWR | fd_flags[k] |
					 (k == FD_PLAIN ? create : 0), 0644);
			if (f->fds[k] < 0)
				return k;
		}
	}
	return -1;
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

/* -D asked for it: a reopen that cannot drop the caches fails. */
static bool drop_caches(struct instance *in)
{
	int fd = open("/proc/sys/vm/drop_caches", O_WRONLY);
	bool ok = fd >= 0 && write(fd, "3", 1) == 1;

	if (!ok)
		fail_errno(in, "drop caches (-D)");
	if (fd >= 0)
		close(fd);
	return ok;
}

static bool op_reopen(struct instance *in, bool remounting)
{
	int k;

	close_files(in);
	if (remounting && !remount(in))
		return false;
	if (!remounting && cfg.drop_caches && !drop_caches(in))
		return false;
	k = open_files(in, 0);
	if (k >= 0)
		return fail_errno(in, fd_names[k]);
	if (in->files[0].size && !map_cover(in, 0))
		return false;
	return !remounting || (check_file(in, 0) && check_file(in, 1));
}

/*
 * One io_uring read or write, from the registered buffer when @fixed: the
 * count, or -1 with errno (also when the ring itself fails).
 */
static ssize_t uring_rw(struct instance *in, int fd, unsigned char *buf,
			size_t len, size_t off, bool write, bool fixed)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&in->ring);
	struct io_uring_cqe *cqe;
	ssize_t ret;
	int err;

	if (!sqe) {
		errno = EBUSY;
		return -1;
	}
	if (fixed)
		io_uring_prep_write_fixed(sqe, fd, buf, len, off, 0);
	else if (write)
		io_uring_prep_write(sqe, fd, buf, len, off);
	else
		io_uring_prep_read(sqe, fd, buf, len, off);
	err = io_uring_submit(&in->ring);
	if (err >= 0) {
		do
			err = io_uring_wait_cqe(&in->ring, &cqe);
		while (err == -EINTR);
	}
	if (err < 0) {
		errno = -err;
		return -1;
	}
	ret = cqe->res;
	io_uring_cqe_seen(&in->ring, cqe);
	if (ret < 0) {
		errno = -ret;
		return -1;
	}
	return ret;
}

/* One libaio read or write: the count, or -1 with errno. */
static ssize_t aio_rw(struct instance *in, int fd, unsigned char *buf,
		      size_t len, size_t off, bool write)
{
	struct iocb cb, *cbs[1] = { &cb };
	struct io_event event;
	long res;
	int err;

	if (write)
		io_prep_pwrite(&cb, fd, buf, len, off);
	else
		io_prep_pread(&cb, fd, buf, len, off);
	err = io_submit(in->aio, 1, cbs);
	if (err == 1) {
		do
			err = io_getevents(in->aio, 1, 1, &event, NULL);
		while (err == -EINTR);
	}
	if (err != 1) {
		errno = err < 0 ? -err : EIO;
		return -1;
	}
	res = event.res;
	if (res < 0) {
		errno = -res;
		return -1;
	}
	return res;
}

/*
 * The transfers with an O_DIRECT variant but no retry: io_uring, RWF_DSYNC,
 * O_DSYNC and libaio.
 */
static bool op_transfer(struct instance *in, const struct op *op)
{
	struct file_state *f = &in->files[op->file];
	unsigned char *buf = in->iobuf + op->mem;
	int fd = f->fds[op->flag ? FD_DIRECT : FD_PLAIN];
	struct iovec iov = { .iov_base = buf, .iov_len = op->len };
	const char *name;
	char what[64];
	ssize_t ret;

	if (tagged_kind(op->kind))
		fill_pattern(buf, op->tag, op->off, op->len);
	switch (op->kind) {
	case OP_UREAD:
	case OP_UWRITE:
	case OP_UFWRITE:
		name = op->kind == OP_UREAD ? "io_uring read" :
		       op->kind == OP_UWRITE ? "io_uring write" :
		       "io_uring fixed-buffer write";
		ret = uring_rw(in, fd, buf, op->len, op->off,
			       op->kind != OP_UREAD, op->kind == OP_UFWRITE);
		break;
	case OP_DSWRITE:
		name = "RWF_DSYNC pwritev2";
		ret = RETRY_EINTR(pwritev2(fd, &iov, 1, op->off, RWF_DSYNC));
		break;
	case OP_OSWRITE:
		name = "O_DSYNC pwrite";
		fd = f->fds[op->flag ? FD_DIRECT_DSYNC : FD_DSYNC];
		ret = RETRY_EINTR(pwrite(fd, buf, op->len, op->off));
		break;
	default:
		name = op->kind == OP_AREAD ? "libaio read" : "libaio write";
		ret = aio_rw(in, fd, buf, op->len, op->off,
			     op->kind == OP_AWRITE);
	}
	snprintf(what, sizeof(what), "%s%s", op->flag ? "O_DIRECT " : "",
		 name);
	if (tagged_kind(op->kind))
		return finish_write(in, op->file, op->off, op->len, op->tag,
				    ret, what);
	return verify_read(in, op->file, op->off, op->len, buf, ret, what);
}

/*
 * RWF_NOWAIT: EAGAIN, or a short count, is what the flag allows; the part
 * not done is then done without it.  A write's EAGAIN must have changed
 * nothing.  Any other error fails.
 */
static bool op_nowait(struct instance *in, const struct op *op)
{
	struct file_state *f = &in->files[op->file];
	unsigned char *buf = in->iobuf + op->mem;
	int fd = f->fds[op->flag ? FD_DIRECT : FD_PLAIN];
	struct iovec iov = { .iov_base = buf, .iov_len = op->len };
	bool write = op->kind == OP_NWRITE;
	size_t want = write ? op->len : expected_count(f->size, op->off,
						       op->len);
	size_t done = 0;
	ssize_t ret;

	if (write) {
		fill_pattern(buf, op->tag, op->off, op->len);
		ret = RETRY_EINTR(pwritev2(fd, &iov, 1, op->off, RWF_NOWAIT));
	} else {
		ret = RETRY_EINTR(preadv2(fd, &iov, 1, op->off, RWF_NOWAIT));
	}
	if (ret < 0 && errno != EAGAIN)
		return fail_errno(in, write ? "RWF_NOWAIT pwritev2" :
				  "RWF_NOWAIT preadv2");
	if (ret >= 0) {
		done = ret;
		if (done > want || (!done && want))
			return fail_code(in, FAIL_COUNT, 0, "RWF_NOWAIT %s: "
					 "count mismatch: returned %zu, the "
					 "model expects up to %zu", write ?
					 "pwritev2" : "preadv2", done, want);
		if (write)
			model_write(f, op->off, done, op->tag);
		else if (!verify(in, op->file, op->off, buf, done,
				 "RWF_NOWAIT preadv2"))
			return false;
		if (done == want)
			return true;
	}
	in->out->nowait_retries++;
	if (!write) {
		ret = RETRY_EINTR(pread(fd, buf + done, op->len - done,
					op->off + done));
		return verify_read(in, op->file, op->off + done,
				   op->len - done, buf + done, ret,
				   "pread after RWF_NOWAIT");
	}
	if (!check_range(in, op->file, op->off, op->len,
			 "pread after RWF_NOWAIT stopped a write"))
		return false;
	ret = RETRY_EINTR(pwrite(fd, buf + done, op->len - done,
				 op->off + done));
	return finish_write(in, op->file, op->off + done, op->len - done,
			    op->tag, ret, "pwrite after RWF_NOWAIT");
}

static bool op_badio(struct instance *in, const struct op *op)
{
	struct file_state *f = &in->files[op->file];
	unsigned char *buf = in->iobuf + op->mem;
	int dfd = f->fds[FD_DIRECT];
	ssize_t ret;

	if (!op->flag) {
		ret = RETRY_EINTR(pread(dfd, buf, op->len, op->off));
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
	ret = RETRY_EINTR(pwrite(dfd, buf, op->len, op->off));
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
	return check_range(in, op->file, op->off, op->len,
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
	ret = RETRY_EINTR(preadv2(in->files[op->file].fds[FD_PLAIN], iov,
				  op->nseg, op->off, 0));
	if (ret < 0)
		return fail_errno(in, "preadv2");
	if ((size_t)ret != want)
		return fail_code(in, FAIL_COUNT, 0, "preadv2: count mismatch: "
				 "returned %zd, the model expects %zu", ret,
				 want);
	for (i = 0; i < op->nseg && pos < want; i++) {
		size_t n = min_u64(op->seg_len[i], want - pos);

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
	ret = RETRY_EINTR(pwritev2(in->files[op->file].fds[FD_PLAIN], iov,
				   op->nseg, op->off, 0));
	return finish_write(in, op->file, op->off, op->len, op->tag, ret,
			    "pwritev2");
}

/* O_APPEND: the data lands at the model's size, the offset ends there. */
static bool op_append(struct instance *in, const struct op *op)
{
	struct file_state *f = &in->files[op->file];
	int fd = f->fds[FD_APPEND];
	size_t off = f->size;
	off_t pos;
	ssize_t ret;

	fill_pattern(in->iobuf, op->tag, off, op->len);
	ret = RETRY_EINTR(write(fd, in->iobuf, op->len));
	if (!finish_write(in, op->file, off, op->len, op->tag, ret,
			  "O_APPEND write"))
		return false;
	pos = lseek(fd, 0, SEEK_CUR);
	if (pos < 0)
		return fail_errno(in, "lseek SEEK_CUR");
	if ((size_t)pos != f->size)
		return fail_code(in, FAIL_SIZE, 0, "size mismatch: an O_APPEND "
				 "write left the offset at %lld, the model's "
				 "size is %zu", (long long)pos, f->size);
	return true;
}

/* Where an eoftail write starts: past the stored bytes, near its end. */
static size_t tail_write_start(const struct op *op)
{
	return max_u64(op->off + op->len, op->to > TAIL_WRITE_MAX ?
			op->to - TAIL_WRITE_MAX : 0);
}

/*
 * Store into the EOF page past EOF through the mapping, then extend the
 * file past the stored bytes: they were never file data, so they must
 * read back as zeros.
 */
static bool op_eoftail(struct instance *in, const struct op *op)
{
	struct file_state *f = &in->files[0];
	int fd = f->fds[FD_PLAIN];
	size_t old = f->size, from = tail_write_start(op);
	ssize_t ret;

	if (!map_cover(in, op->off + op->len))
		return false;
	fill_pattern(in->map + op->off, op->tag, op->off, op->len);
	if (op->flag) {
		fill_pattern(in->iobuf, op->tag, from, op->to - from);
		ret = RETRY_EINTR(pwrite(fd, in->iobuf, op->to - from, from));
		if (!finish_write(in, 0, from, op->to - from, op->tag, ret,
				  "pwrite past a store beyond EOF"))
			return false;
	} else {
		if (RETRY_EINTR(ftruncate(fd, op->to)))
			return fail_errno(in, "ftruncate past a store beyond "
					  "EOF");
		f->size = op->to;
	}
	return check_range(in, 0, old, op->to - old,
			   "pread from the old EOF");
}

static bool op_truncate(struct instance *in, const struct op *op)
{
	struct file_state *f = &in->files[op->file];
	size_t want;
	void *map;

	if (RETRY_EINTR(ftruncate(f->fds[FD_PLAIN], op->off)))
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
	char what[32];

	snprintf(what, sizeof(what), "fallocate %s",
		 falloc_modes[op->mode].name);
	if (RETRY_EINTR(fallocate(f->fds[FD_PLAIN],
				  falloc_modes[op->mode].mode, op->off,
				  op->len)))
		return fail_errno(in, what);
	in->out->falloc_counts[op->mode]++;
	switch (op->mode) {
	case FA_ALLOC:
		f->size = max_u64(f->size, end);
		break;
	case FA_KEEP:
		break;
	case FA_PUNCH:
	case FA_ZERO_KEEP:
		model_zero(f, op->off, min_u64(end, f->size));
		break;
	case FA_ZERO:
		model_zero(f, op->off, end);
		f->size = max_u64(f->size, end);
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

		ret = RETRY_EINTR(copy_file_range(src->fds[FD_PLAIN], &in_off,
						  dst->fds[FD_PLAIN], &out_off,
						  op->len - done, 0));
		if (ret < 0)
			return fail_errno(in, "copy_file_range");
		if (!ret)
			break;
		if (done + ret > want)
			break;
		memcpy(dst->model + op->dst_off + done,
		       src->model + op->off + done, ret);
		done += ret;
		dst->size = max_u64(dst->size, op->dst_off + done);
	} while (done < want);
	if (done != want)
		return fail_code(in, FAIL_COUNT, 0, "copy_file_range: count "
				 "mismatch: copied %zu bytes, the model "
				 "expects %zu", done + ret, want);
	return true;
}

/* lseek(@whence) from @off: the offset, or -1 with errno. */
static off_t seek_to(struct instance *in, int file, size_t off, int whence)
{
	return lseek(in->files[file].fds[FD_PLAIN], off, whence);
}

/*
 * SEEK_DATA and SEEK_HOLE from @op->off against the model, whose data is
 * never zero: SEEK_DATA may skip only zeros, and the hole SEEK_HOLE finds
 * (up to the next data) holds only zeros.  Holes are optional: a
 * filesystem may call every byte data.
 */
static bool op_seek(struct instance *in, const struct op *op)
{
	const struct file_state *f = &in->files[op->file];
	size_t size = f->size, off = op->off, first;
	off_t data, hole, next;

	data = seek_to(in, op->file, off, SEEK_DATA);
	if (data < 0 && errno != ENXIO)
		return fail_errno(in, "lseek SEEK_DATA");
	hole = seek_to(in, op->file, off, SEEK_HOLE);
	if (hole < 0 && errno != ENXIO)
		return fail_errno(in, "lseek SEEK_HOLE");
	if (off >= size) {
		if (data < 0 && hole < 0)
			return true;
		return fail_code(in, FAIL_MAPPING, 0, "mapping mismatch: "
				 "SEEK_DATA or SEEK_HOLE from %zu, at or past "
				 "EOF %zu, did not fail with ENXIO", off, size);
	}
	first = model_data(f, off, size);
	if (data < 0 ? first < size : (size_t)data < off ||
	    (size_t)data >= size || first < (size_t)data)
		return fail_code(in, FAIL_MAPPING, 0, "mapping mismatch: "
				 "SEEK_DATA from %zu returned %lld (-1: ENXIO), "
				 "but the model's data starts at %zu (EOF %zu)",
				 off, (long long)data, first, size);
	if (hole < 0 || (size_t)hole < off || (size_t)hole > size)
		return fail_code(in, FAIL_MAPPING, 0, "mapping mismatch: "
				 "SEEK_HOLE from %zu returned %lld (-1: "
				 "ENXIO), outside %zu..%zu", off,
				 (long long)hole, off, size);
	if ((size_t)hole == size)
		return true;
	next = seek_to(in, op->file, hole, SEEK_DATA);
	if (next < 0 && errno != ENXIO)
		return fail_errno(in, "lseek SEEK_DATA from a hole");
	if (next < 0)
		next = size;
	first = model_data(f, hole, next);
	if (next <= hole || first < (size_t)next)
		return fail_code(in, FAIL_MAPPING, 0, "mapping mismatch: "
				 "SEEK_HOLE from %zu returned %lld, a hole up "
				 "to %lld, but the model holds data at %zu",
				 off, (long long)hole, (long long)next, first);
	return true;
}

/* No data of the model between FIEMAP extents, in [@from, @to). */
static bool fiemap_gap_empty(struct instance *in, const struct file_state *f,
			     size_t from, size_t to)
{
	size_t data;

	to = min_u64(to, f->size);
	data = from < to ? model_data(f, from, to) : to;
	return data == to ||
	       fail_code(in, FAIL_MAPPING, 0, "mapping mismatch: the model "
			 "holds data at %zu, between FIEMAP extents "
			 "(%zu..%zu uncovered)", data, from, to - 1);
}

/*
 * FIEMAP over the whole file: extents sorted and apart, within the file
 * (the last may round up to the block; past that only preallocated,
 * unwritten or delayed, ones), and after FIEMAP_FLAG_SYNC no byte of the
 * model's data outside them, up to where the list ends when it was cut
 * short.  Without the flag, dirty data may have no blocks yet (ext2 gives
 * mapped writes theirs at writeback) and FIEMAP reports none for it.
 */
static bool op_fiemap(struct instance *in, const struct op *op)
{
	const struct file_state *f = &in->files[op->file];
	struct fiemap *fm = in->fiemap;
	size_t eof = round_up(f->size, in->block), covered = 0;
	bool complete;
	unsigned int i;

	memset(fm, 0, sizeof(*fm));
	fm->fm_length = FIEMAP_MAX_OFFSET;
	fm->fm_flags = op->flag ? FIEMAP_FLAG_SYNC : 0;
	fm->fm_extent_count = FIEMAP_MAX;
	if (ioctl(f->fds[FD_PLAIN], FS_IOC_FIEMAP, fm))
		return fail_errno(in, "FIEMAP");
	complete = fm->fm_mapped_extents < FIEMAP_MAX;
	for (i = 0; i < fm->fm_mapped_extents; i++) {
		const struct fiemap_extent *e = &fm->fm_extents[i];
		uint64_t start = e->fe_logical, end = start + e->fe_length;

		if (!e->fe_length || start < covered)
			return fail_code(in, FAIL_MAPPING, 0, "mapping "
					 "mismatch: FIEMAP extent %u at %llu "
					 "(%llu bytes) is empty, out of order "
					 "or overlaps the one before", i,
					 (unsigned long long)start,
					 (unsigned long long)e->fe_length);
		if (end > eof && !(e->fe_flags & (FIEMAP_EXTENT_UNWRITTEN |
						  FIEMAP_EXTENT_DELALLOC)))
			return fail_code(in, FAIL_MAPPING, 0, "mapping "
					 "mismatch: FIEMAP extent %u at %llu "
					 "(%llu bytes, flags %#x) reaches past "
					 "EOF %zu rounded to %zu", i,
					 (unsigned long long)start,
					 (unsigned long long)e->fe_length,
					 e->fe_flags, f->size, eof);
		if (op->flag && !fiemap_gap_empty(in, f, covered, start))
			return false;
		covered = end;
		if (e->fe_flags & FIEMAP_EXTENT_LAST)
			complete = true;
	}
	return !op->flag || !complete ||
	       fiemap_gap_empty(in, f, covered, f->size);
}

static bool execute(struct instance *in, const struct op *op)
{
	struct file_state *f = &in->files[op->file];
	unsigned char *buf = in->iobuf + op->mem;
	bool direct = op->kind == OP_DREAD || op->kind == OP_DWRITE;
	int fd = f->fds[direct ? FD_DIRECT : FD_PLAIN];
	ssize_t ret;

	switch (op->kind) {
	case OP_READ:
	case OP_DREAD:
		ret = RETRY_EINTR(pread(fd, buf, op->len, op->off));
		return verify_read(in, op->file, op->off, op->len, buf, ret,
				   direct ? "O_DIRECT pread" : "pread");
	case OP_WRITE:
	case OP_DWRITE:
		fill_pattern(buf, op->tag, op->off, op->len);
		ret = RETRY_EINTR(pwrite(fd, buf, op->len, op->off));
		return finish_write(in, op->file, op->off, op->len, op->tag,
				    ret, direct ? "O_DIRECT pwrite" : "pwrite");
	case OP_BADIO:
		return op_badio(in, op);
	case OP_READV:
		return op_readv(in, op);
	case OP_WRITEV:
		return op_writev(in, op);
	case OP_NREAD:
	case OP_NWRITE:
		return op_nowait(in, op);
	case OP_APPEND:
		return op_append(in, op);
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
	case OP_EOFTAIL:
		return op_eoftail(in, op);
	case OP_TRUNCATE:
		return op_truncate(in, op);
	case OP_FALLOC:
		return op_falloc(in, op);
	case OP_FSYNC:
		return !RETRY_EINTR(fsync(fd)) || fail_errno(in, "fsync");
	case OP_FDATASYNC:
		return !RETRY_EINTR(fdatasync(fd)) ||
		       fail_errno(in, "fdatasync");
	case OP_MSYNC:
		return !msync(in->map, in->map_len, MS_SYNC) ||
		       fail_errno(in, "msync");
	case OP_COPY:
		return op_copy(in, op);
	case OP_SEEK:
		return op_seek(in, op);
	case OP_FIEMAP:
		return op_fiemap(in, op);
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
		if (transfer_kind(op->kind))
			return op_transfer(in, op);
		return fail(in, "unknown op");
	}
}

/*
 * Whether @kind may go through the page cache (@buffered) and through
 * O_DIRECT (@direct) with what is declared.
 */
static void transfer_ways(const struct instance *in, enum op_kind kind,
			  bool *buffered, bool *direct)
{
	unsigned int nowait = in->caps.nowait;

	*buffered = true;
	*direct = has_cap(in, CAP_DIO);
	if (kind == OP_NREAD || kind == OP_NWRITE) {
		bool write = kind == OP_NWRITE;

		*buffered = nowait & 1u << (write ? NW_WRITE : NW_READ);
		*direct = *direct &&
			  (nowait & 1u << (write ? NW_DWRITE : NW_DREAD));
	}
}

/*
 * Whether a replayed op fits the current state, the buffers and the
 * declared capabilities: a shrunk log may hold ops that made sense only
 * after the ops taken out.
 */
static bool op_valid(const struct instance *in, const struct op *op)
{
	const struct file_state *f = &in->files[op->file];
	size_t end = op->off + op->len;
	bool writes = tagged_kind(op->kind) || op->kind == OP_FALLOC ||
		      (op->kind == OP_BADIO && op->flag);
	bool buffered, direct;
	int i;

	if (op->off > cfg.limit || op->len > cfg.limit ||
	    op->dst_off > cfg.limit || op->mem >= 2 * in->buf_align ||
	    (writes && end > cfg.limit))
		return false;
	switch (op->kind) {
	case OP_DREAD:
	case OP_DWRITE:
	case OP_BADIO:
		if (!has_cap(in, CAP_DIO))
			return false;
		/* fall through */
	case OP_READ:
	case OP_WRITE:
		return op->len && op->len <= cfg.maxlen;
	case OP_READV:
	case OP_WRITEV:
		for (i = 0; i < op->nseg; i++)
			if (!op->seg_len[i] ||
			    op->seg_mem[i] + op->seg_len[i] > in->iov_region)
				return false;
		return op->nseg >= 2;
	case OP_APPEND:
		return op->len && op->len <= cfg.maxlen &&
		       f->size + op->len <= cfg.limit;
	case OP_MREAD:
		return !op->file && op->len && op->len <= cfg.maxlen &&
		       end <= round_up(f->size, in->page);
	case OP_MWRITE:
		return !op->file && op->len && op->len <= cfg.maxlen &&
		       end <= f->size;
	case OP_EOFTAIL:
		return has_cap(in, CAP_EOFZERO) && !op->file && op->len &&
		       op->off >= f->size &&
		       end <= round_up(f->size, in->page) && op->to > end &&
		       op->to <= cfg.limit;
	case OP_FALLOC:
		if (!(in->caps.falloc & 1u << op->mode))
			return false;
		if (op->mode == FA_COLLAPSE)
			return op->len && end < f->size;
		if (op->mode == FA_INSERT)
			return op->len && op->off < f->size &&
			       f->size + op->len <= cfg.limit;
		return op->len;
	case OP_MSYNC:
		return in->map;
	case OP_COPY:
		return has_cap(in, CAP_COPY) && op->len &&
		       op->file != op->dst && op->dst_off + op->len <= cfg.limit;
	case OP_SEEK:
		return has_cap(in, CAP_SEEK);
	case OP_FIEMAP:
		return has_cap(in, CAP_FIEMAP);
	case OP_CORRUPT:
		return op->off < f->size;
	default:
		if (!transfer_kind(op->kind))
			return true;
		transfer_ways(in, op->kind, &buffered, &direct);
		return (op->flag ? direct : buffered) && op->len &&
		       op->len <= cfg.maxlen;
	}
}

/*
 * How far a random offset or size may reach: the first -l bytes, and with
 * -X one time in FAR_ONE_IN up to @limit, so that most ops stay where the
 * files are small and dense and some make them large and sparse.
 */
static size_t reach(struct instance *in, size_t limit)
{
	if (cfg.farsize && !rnd(in, FAR_ONE_IN))
		return limit;
	return min_u64(limit, cfg.maxsize);
}

/* An offset in [0, limit], often where bugs live: 0, EOF, boundaries. */
static size_t pick_offset(struct instance *in, size_t size, size_t limit)
{
	size_t span = reach(in, limit), off;

	switch (rnd(in, 8)) {
	case 0:
		return 0;
	case 1:		/* within a page either side of EOF */
		off = size + rnd(in, 2 * in->page);
		off = off > in->page ? off - in->page : 0;
		break;
	case 2:
		off = rnd(in, span / in->page + 1) * in->page;
		break;
	case 3:		/* a block boundary, or a byte either side */
		off = rnd(in, span / in->block + 1) * in->block +
		      rnd(in, 3);
		off = off ? off - 1 : 0;
		break;
	default:
		off = rnd(in, span + 1);
	}
	return min_u64(off, limit);
}

/* A length in [1, max], often small. */
static size_t pick_length(struct instance *in, size_t max)
{
	switch (rnd(in, 4)) {
	case 0:
		return 1 + rnd(in, min_u64(max, 64));
	case 1:
		return 1 + rnd(in, min_u64(max, in->page));
	default:
		return 1 + rnd(in, max);
	}
}

/* A new size: boundaries, their middles, 0, and up or down from @size. */
static size_t pick_size(struct instance *in, size_t size)
{
	size_t span = reach(in, cfg.limit);
	size_t unit = rnd(in, 2) ? in->page : in->block;
	size_t units = rnd(in, span / unit + 1), new;

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
		new = size - rnd(in, min_u64(size, cfg.maxlen) + 1);
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
		new = rnd(in, span + 1);
	}
	return min_u64(new, cfg.limit);
}

/*
 * An O_DIRECT transfer: offset and length multiples of the offset
 * alignment, the buffer a multiple of the memory alignment past a page.
 */
static void pick_dio(struct instance *in, struct op *op, bool write)
{
	size_t align = in->dio_off_align;
	size_t limit = cfg.limit;

	op->len = pick_length(in, cfg.maxlen / align) * align;
	if (write)
		limit -= op->len;
	op->off = round_down(pick_offset(in, in->files[op->file].size, limit),
			     align);
	op->mem = rnd(in, in->page / in->dio_mem_align) * in->dio_mem_align;
}

/*
 * A transfer that may go through O_DIRECT: one time in four when both
 * ways are declared, always when only O_DIRECT is.  False if neither is.
 */
static bool pick_transfer(struct instance *in, struct op *op, bool write)
{
	bool buffered, direct;

	transfer_ways(in, op->kind, &buffered, &direct);
	if (!buffered && !direct)
		return false;
	op->flag = direct && (!buffered || !rnd(in, 4));
	if (op->flag) {
		pick_dio(in, op, write);
		/*
		 * Linux 6.12 wants each page of a registered buffer to hold
		 * whole blocks (iov_iter_is_aligned() on its bio_vecs), not
		 * only the memory alignment statx reports: start on a block.
		 */
		if (op->kind == OP_UFWRITE)
			op->mem = round_down(op->mem, in->dio_off_align);
		return true;
	}
	op->len = pick_length(in, cfg.maxlen);
	op->off = pick_offset(in, in->files[op->file].size,
			      cfg.limit - (write ? op->len : 0));
	return true;
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
		if (op->off + (op->flag ? op->len : 0) > cfg.limit &&
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
	return !op->flag || op->off + op->len <= cfg.limit;
}

static void gen_vector(struct instance *in, struct op *op, bool write)
{
	size_t each = max_u64(cfg.maxlen / MAX_SEGS, 2), limit = cfg.limit;
	size_t cross;
	int i;

	op->nseg = 2 + rnd(in, MAX_SEGS - 1);
	cross = rnd(in, op->nseg);
	for (i = 0; i < op->nseg; i++) {
		size_t len = pick_length(in, each);

		if ((size_t)i == cross) {
			/* Start below a page boundary and end past it. */
			len = max_u64(len, 2);
			op->seg_mem[i] = in->page - 1 -
				rnd(in, min_u64(len - 1, in->page - 1));
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

/*
 * A declared fallocate mode.  Collapse and insert move the whole tail of
 * the model: they are drawn only while the file is within -l.
 */
static bool gen_falloc(struct instance *in, struct op *op)
{
	struct file_state *f = &in->files[op->file];
	size_t bs = in->block, max_units = max_u64(cfg.maxlen / bs, 1);
	size_t units;
	int modes[NR_FALLOC], n = 0, i;

	for (i = 0; i < NR_FALLOC; i++)
		if (in->caps.falloc & 1u << i)
			modes[n++] = i;
	op->mode = modes[rnd(in, n)];
	switch (op->mode) {
	case FA_COLLAPSE:
		/* Whole blocks, ending before EOF. */
		units = f->size ? (f->size - 1) / bs : 0;
		if (!units || f->size > cfg.maxsize)
			return false;
		op->len = (1 + rnd(in, min_u64(units, max_units))) * bs;
		op->off = rnd(in, units - op->len / bs + 1) * bs;
		return true;
	case FA_INSERT:
		/* Whole blocks, from inside the file, within -l. */
		units = f->size < cfg.maxsize ?
			(cfg.maxsize - f->size) / bs : 0;
		if (!f->size || !units)
			return false;
		op->len = (1 + rnd(in, min_u64(units, max_units))) * bs;
		op->off = rnd(in, (f->size - 1) / bs + 1) * bs;
		return true;
	default:
		op->len = pick_length(in, cfg.maxlen);
		op->off = pick_offset(in, f->size, cfg.limit - op->len);
		return true;
	}
}

/*
 * A store into the EOF page past EOF, then a new size past it: within
 * that page, at its end, or up to four pages further.
 */
static bool gen_eoftail(struct instance *in, struct op *op)
{
	size_t size = in->files[0].size, page_end = round_up(size, in->page);
	size_t end;

	if (size == page_end)
		return false;
	op->off = size + rnd(in, page_end - size);
	op->len = 1 + rnd(in, page_end - op->off);
	end = op->off + op->len;
	op->to = end + 1 + (rnd(in, 2) ? rnd(in, page_end - end + 1) :
			    rnd(in, 4 * in->page));
	op->flag = rnd(in, 2);
	return op->to <= cfg.limit;
}

/* Fill in the arguments of @op; false if it cannot run now. */
static bool fill_op(struct instance *in, struct op *op)
{
	struct file_state *f = &in->files[op->file];

	switch (op->kind) {
	case OP_READ:
	case OP_WRITE:
		op->len = pick_length(in, cfg.maxlen);
		op->off = pick_offset(in, f->size, cfg.limit -
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
	case OP_APPEND:
		op->len = pick_length(in, cfg.maxlen);
		if (f->size + op->len > cfg.limit)
			return false;
		break;
	case OP_MREAD:
	case OP_MWRITE:
		/* Mapped writes stay below EOF, reads in the EOF page. */
		if (!f->size)
			return false;
		op->off = pick_offset(in, f->size, f->size - 1);
		op->len = pick_length(in, min_u64(cfg.maxlen,
			(op->kind == OP_MREAD ? round_up(f->size, in->page) :
			 f->size) - op->off));
		break;
	case OP_EOFTAIL:
		if (!gen_eoftail(in, op))
			return false;
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
		op->off = pick_offset(in, f->size, cfg.limit);
		op->dst_off = pick_offset(in, in->files[op->dst].size,
					  cfg.limit - op->len);
		break;
	case OP_SEEK:
		/* Mostly inside the file, now and then past EOF. */
		op->off = pick_offset(in, f->size,
				      min_u64(f->size + in->page, cfg.limit));
		break;
	case OP_FIEMAP:
		op->flag = rnd(in, 2);
		break;
	default:
		if (transfer_kind(op->kind) &&
		    !pick_transfer(in, op, tagged_kind(op->kind)))
			return false;
		break;
	}
	if (tagged_kind(op->kind))
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
			   kind != OP_MWRITE && kind != OP_EOFTAIL;
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
	in->running_kind = op->kind;
	strcpy(in->history[in->seq % HISTORY_LEN], in->current);
	if (in->log) {
		fprintf(in->log, "%s\n", in->current);
		fflush(in->log);
	}
	in->out->counts[op->kind]++;
	if (op->flag && transfer_kind(op->kind))
		in->out->direct_counts[op->kind]++;
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

/*
 * Every kind that could be drawn ran, each transfer both ways it is
 * declared for, and every declared fallocate mode: else the run tested
 * less than its declaration says, and fails.
 */
static bool check_coverage(struct instance *in)
{
	const struct outcome *o = in->out;
	bool buffered, direct;
	int kind, mode;

	for (kind = 0; kind < NR_WEIGHTED; kind++) {
		long all = o->counts[kind], d = o->direct_counts[kind];

		if (!in->weights[kind])
			continue;
		if (!all)
			return fail(in, "coverage: op kind %s (weight %u) "
				    "never ran in %ld ops", op_names[kind],
				    in->weights[kind], in->seq);
		if (!transfer_kind(kind))
			continue;
		transfer_ways(in, kind, &buffered, &direct);
		if ((buffered && all == d) || (direct && !d))
			return fail(in, "coverage: op kind %s never ran %s "
				    "in %ld ops", op_names[kind], direct && !d ?
				    "through O_DIRECT" : "through the page "
				    "cache", in->seq);
	}
	for (mode = 0; in->weights[OP_FALLOC] && mode < NR_FALLOC; mode++)
		if ((in->caps.falloc & 1u << mode) && !o->falloc_counts[mode])
			return fail(in, "coverage: fallocate mode %s never ran "
				    "in %ld ops", falloc_modes[mode].name,
				    in->seq);
	return true;
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
	return run_kind(in, OP_CHECK) && check_coverage(in);
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

static int open_log(struct instance *in)
{
	char path[PATH_MAX], caps[LINE_LEN];

	if (!cfg.log_path)
		return 0;
	snprintf(path, sizeof(path), cfg.ninstances > 1 ? "%s.%d" : "%s",
		 cfg.log_path, in->id);
	in->log = fopen(path, "w");
	if (!in->log)
		return setup_error(in, path, errno);
	format_caps(&in->caps, caps, sizeof(caps));
	if (in->script)
		fprintf(in->log, "%s\n", in->script->header);
	else
		fprintf(in->log, "# fsmodel seed=%" PRIu64 " instance=%d "
			"maxsize=%zu farsize=%zu maxlen=%zu page=%zu block=%zu"
			" dio=%zu/%zu %s caps: %s\n", cfg.seed, in->id,
			cfg.maxsize, cfg.farsize, cfg.maxlen, in->page,
			in->block, in->dio_off_align, in->dio_mem_align,
			in->dio_align_known ? "statx" : "fallback", caps);
	fflush(in->log);
	return 0;
}

/*
 * The O_DIRECT alignment: from statx exactly when dioalign is declared
 * (either way round, a mismatch fails), else -A or st_blksize.
 */
static bool dio_alignment(struct instance *in, const struct stat *st)
{
	struct statx stx;
	bool reported;

	memset(&stx, 0, sizeof(stx));
	reported = !statx(in->files[0].fds[FD_PLAIN], "", AT_EMPTY_PATH,
			  STATX_DIOALIGN, &stx) &&
		   (stx.stx_mask & STATX_DIOALIGN) && stx.stx_dio_offset_align;
	if (reported != has_cap(in, CAP_DIOALIGN))
		return fail(in, "statx %s STATX_DIOALIGN (%u/%u), and dioalign "
			    "is %sdeclared", reported ? "reports" :
			    "does not report", stx.stx_dio_offset_align,
			    stx.stx_dio_mem_align, reported ? "not " : "");
	in->dio_align_known = reported;
	if (reported) {
		in->dio_off_align = stx.stx_dio_offset_align;
		in->dio_mem_align = stx.stx_dio_mem_align;
	} else {
		in->dio_off_align = cfg.dio_align ? cfg.dio_align :
				    (size_t)st->st_blksize;
		in->dio_mem_align = in->dio_off_align;
	}
	return true;
}

/* The effective weights: nothing that needs what is not declared. */
static void set_weights(struct instance *in)
{
	bool buffered, direct;
	int kind;

	memcpy(in->weights, cfg.weights, sizeof(in->weights));
	if (!has_cap(in, CAP_DIO))
		in->weights[OP_DREAD] = in->weights[OP_DWRITE] = 0;
	if (!has_cap(in, CAP_DIO) || !in->dio_align_known ||
	    (in->dio_off_align == 1 && in->dio_mem_align == 1))
		in->weights[OP_BADIO] = 0;
	for (kind = 0; kind < NR_WEIGHTED; kind++) {
		if (!transfer_kind(kind))
			continue;
		transfer_ways(in, kind, &buffered, &direct);
		if (!buffered && !direct)
			in->weights[kind] = 0;
	}
	if (!has_cap(in, CAP_COPY))
		in->weights[OP_COPY] = 0;
	if (!in->caps.falloc)
		in->weights[OP_FALLOC] = 0;
	if (!has_cap(in, CAP_SEEK))
		in->weights[OP_SEEK] = 0;
	if (!has_cap(in, CAP_FIEMAP))
		in->weights[OP_FIEMAP] = 0;
	if (!has_cap(in, CAP_EOFZERO))
		in->weights[OP_EOFTAIL] = 0;
	if (!cfg.remount_cmd || cfg.ninstances > 1)
		in->weights[OP_REMOUNT] = 0;
}

/*
 * io_uring (with the I/O buffer registered for fixed-buffer writes) and
 * libaio, when a kind that uses them can run: a setup error otherwise,
 * since not testing them must be asked for (-w KIND=0).
 */
static int setup_async(struct instance *in)
{
	struct iovec iov = { .iov_base = in->iobuf,
			     .iov_len = in->iobuf_len };
	int err;

	if (in->script || in->weights[OP_UREAD] || in->weights[OP_UWRITE] ||
	    in->weights[OP_UFWRITE]) {
		err = io_uring_queue_init(4, &in->ring, 0);
		if (err < 0)
			return setup_error(in, "io_uring_queue_init (-w "
					   "uread=0,uwrite=0,ufwrite=0 runs "
					   "without)", -err);
		in->ring_up = true;
		err = io_uring_register_buffers(&in->ring, &iov, 1);
		if (err < 0)
			return setup_error(in, "io_uring_register_buffers",
					   -err);
	}
	if (in->script || in->weights[OP_AREAD] || in->weights[OP_AWRITE]) {
		err = io_setup(4, &in->aio);
		if (err < 0)
			return setup_error(in, "io_setup (-w aread=0,awrite=0 "
					   "runs without)", -err);
		in->aio_up = true;
	}
	return 0;
}

static unsigned char *alloc_model(void)
{
	void *model = mmap(NULL, cfg.limit + page_size,
			   PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

	return model == MAP_FAILED ? NULL : model;
}

/*
 * 0, 2 for a setup error, 1 when the filesystem is not as declared (an
 * O_DIRECT open fails, statx and dioalign disagree).
 */
static int setup_instance(struct instance *in)
{
	struct stat st;
	char text[LINE_LEN];
	size_t len;
	int i, k, err;

	strcpy(in->current, "setup");
	in->page = page_size;
	in->caps = cfg.caps;
	in->seed = in->script ? in->script->seed : cfg.seed + in->id;
	in->rng = mix64(in->seed) | 1;
	for (i = 0; i < 2; i++) {
		struct file_state *f = &in->files[i];

		snprintf(f->path, sizeof(f->path), "%s/fsm.%d.%c", cfg.dir,
			 in->id, 'a' + i);
		for (k = 0; k < NR_FDS; k++)
			f->fds[k] = -1;
		f->model = alloc_model();
		if (!f->model)
			return setup_error(in, "model", ENOMEM);
		if (unlink(f->path) && errno != ENOENT)
			return setup_error(in, f->path, errno);
	}
	k = open_files(in, O_CREAT | O_EXCL);
	if (k >= 0 && (fd_flags[k] & O_DIRECT)) {
		fail_errno(in, fd_names[k]);
		return 1;
	}
	if (k >= 0)
		return setup_error(in, fd_names[k], errno);
	if (fstat(in->files[0].fds[FD_PLAIN], &st))
		return setup_error(in, "fstat", errno);
	in->block = cfg.block ? cfg.block : (size_t)st.st_blksize;
	if (!dio_alignment(in, &st))
		return 1;
	in->buf_align = max_u64(in->page, in->dio_mem_align);
	err = open_log(in);
	if (err)
		return err;

	in->iobuf_len = round_up(cfg.maxlen, in->buf_align) +
			2 * in->buf_align;
	in->iov_region = round_up(cfg.maxlen + 2 * in->page, in->page);
	in->iobuf = alloc_buffer(in->buf_align, in->iobuf_len);
	in->filebuf = alloc_buffer(in->page, CHECK_CHUNK);
	in->iovbuf = alloc_buffer(in->page, MAX_SEGS * in->iov_region);
	in->fiemap = calloc(1, sizeof(*in->fiemap) +
			    FIEMAP_MAX * sizeof(struct fiemap_extent));
	if (!in->iobuf || !in->filebuf || !in->iovbuf || !in->fiemap)
		return setup_error(in, "buffers", ENOMEM);

	set_weights(in);
	err = setup_async(in);
	if (err)
		return err;
	if (cfg.verbose) {
		char caps[LINE_LEN];

		format_caps(&in->caps, caps, sizeof(caps));
		for (i = 0, len = 0; i < NR_WEIGHTED; i++)
			len += snprintf(text + len, sizeof(text) - len,
					" %s=%u", op_names[i], in->weights[i]);
		printf("fsmodel[%d]: page %zu, block %zu, O_DIRECT %zu/%zu "
		       "(%s)\nfsmodel[%d]: caps: %s\nfsmodel[%d]: weights:%s\n",
		       in->id, in->page, in->block, in->dio_off_align,
		       in->dio_mem_align, in->dio_align_known ? "statx" :
		       "fallback", in->id, caps, in->id, text);
	}
	return 0;
}

static void teardown_instance(struct instance *in)
{
	close_files(in);
	if (in->ring_up)
		io_uring_queue_exit(&in->ring);
	if (in->aio_up)
		io_destroy(in->aio);
	if (in->log)
		fclose(in->log);
	if (in->files[0].model)
		munmap(in->files[0].model, cfg.limit + page_size);
	if (in->files[1].model)
		munmap(in->files[1].model, cfg.limit + page_size);
	free(in->iobuf);
	free(in->filebuf);
	free(in->iovbuf);
	free(in->fiemap);
	free(in);
}

/* "KIND=N ..." for the kinds that ran, falloc with its modes: the total. */
static long format_counts(const struct outcome *o, char *s, size_t n)
{
	size_t used = 0;
	long total = 0;
	char sep;
	int i, mode;

	s[0] = 0;
	for (i = 0; i < NR_OPS && used < n; i++) {
		if (!o->counts[i])
			continue;
		total += o->counts[i];
		used += snprintf(s + used, n - used, "%s%s=%ld",
				 used ? " " : "", op_names[i], o->counts[i]);
		if (i != OP_FALLOC)
			continue;
		sep = '(';
		for (mode = 0; mode < NR_FALLOC && used < n; mode++) {
			if (!o->falloc_counts[mode])
				continue;
			used += snprintf(s + used, n - used, "%c%s=%ld", sep,
					 falloc_modes[mode].name,
					 o->falloc_counts[mode]);
			sep = ',';
		}
		if (sep == ',' && used < n)
			used += snprintf(s + used, n - used, ")");
	}
	return total;
}

static void print_summary(struct instance *in, bool ok, double secs)
{
	char counts[2048];

	format_counts(in->out, counts, sizeof(counts));
	printf("fsmodel[%d]: %ld ops, %.2f s, %.0f ops/s; %s; RWF_NOWAIT "
	       "retries %ld; %s\n", in->id, in->seq, secs,
	       secs > 0 ? in->seq / secs : 0, counts,
	       in->out->nowait_retries, ok ? "OK" : "FAIL");
	fflush(stdout);
}

static struct instance *running;

static void die_on_signal(int sig)
{
	/*
	 * Not async-signal-safe, but the process dies here anyway and the
	 * report (which op, what led to it) is what makes the death useful.
	 */
	fail_code(running, FAIL_SIGNAL, sig, "killed by signal %d (%s)", sig,
		  strsignal(sig));
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
	in->out = &outcomes[id];
	memset(in->out, 0, sizeof(*in->out));
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

/*
 * Read a log; the sizes and the capabilities in its first line replace
 * -l, -X, -L and -F.
 */
static int load_script(const char *path, struct script *s)
{
	FILE *fp = fopen(path, "r");
	size_t cap = 0, alloc = 0, lineno = 0;
	uint64_t maxsize, maxlen, farsize = 0;
	const char *caps;
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
	caps = strstr(s->header, " caps:");
	header_value(s->header, " farsize=", &farsize);
	if (n >= 0 || !s->header[0] || !header_value(s->header, " seed=",
						     &s->seed) ||
	    !header_value(s->header, " maxsize=", &maxsize) ||
	    !header_value(s->header, " maxlen=", &maxlen) ||
	    maxsize < 4096 || !maxlen || maxlen > maxsize ||
	    farsize > 1ULL << 40 ||
	    (caps && !parse_caps(caps + strlen(" caps:"), &cfg.caps))) {
		fprintf(stderr, "fsmodel: %s: not a usable fsmodel log\n",
			path);
		return 2;
	}
	/*
	 * A log written before the capabilities were logged replays with
	 * those -F declares; a log that names them replays with its own.
	 */
	if (!caps && !cfg.caps_given) {
		fprintf(stderr, "fsmodel: %s names no capabilities: give -F\n",
			path);
		return 2;
	}
	if (caps && cfg.caps_given) {
		fprintf(stderr, "fsmodel: %s names its capabilities: no -F\n",
			path);
		return 2;
	}
	cfg.maxsize = maxsize;
	cfg.farsize = farsize;
	cfg.limit = max_u64(maxsize, farsize);
	cfg.maxlen = maxlen;
	return 0;
}

/* Whether @got is the same failure as @want, as the shrinker counts it. */
static bool same_failure(const struct failure *got,
			 const struct failure *want)
{
	if (got->class != want->class)
		return false;
	if (got->class == FAIL_ERROR)
		return got->kind == want->kind && got->err == want->err;
	return got->class != FAIL_SIGNAL || got->err == want->err;
}

static void describe_failure(const struct failure *f, char *s, size_t n)
{
	snprintf(s, n, "%s in %s", failure_names[f->class],
		 op_names[f->kind]);
	if (f->class == FAIL_ERROR || f->class == FAIL_SIGNAL)
		snprintf(s + strlen(s), n - strlen(s), " (%s)",
			 f->class == FAIL_ERROR ? strerror(f->err) :
			 strsignal(f->err));
}

/*
 * Replay @s in a child, silenced: does it fail (or die), and, with @want,
 * fail that way?  The child's failure is in outcomes[0].
 */
static bool replay_fails(const struct script *s, const struct failure *want)
{
	struct failure *got = &outcomes[0].failure;
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
	if (WIFSIGNALED(status) && got->class == FAIL_NONE) {
		got->class = FAIL_SIGNAL;
		got->err = WTERMSIG(status);
	}
	if (!WIFSIGNALED(status) &&
	    !(WIFEXITED(status) && WEXITSTATUS(status) == 1))
		return false;
	return !want || same_failure(got, want);
}

/*
 * Delta debugging: take out chunks of half the ops, then a quarter, ...
 * down to single ops (repeated until none can go), keeping each removal
 * after which the replay still fails the way the whole log does.
 */
static int shrink_log(void)
{
	struct script s, trial;
	size_t chunk, start, cut, replays = 1, i;
	char line[LINE_LEN];
	struct failure want;
	bool removed;
	FILE *out;

	if (load_script(cfg.shrink_path, &s))
		return 2;
	if (!replay_fails(&s, NULL)) {
		fprintf(stderr, "fsmodel: %s does not fail on replay\n",
			cfg.shrink_path);
		return 2;
	}
	want = outcomes[0].failure;
	describe_failure(&want, line, sizeof(line));
	fprintf(stderr, "fsmodel: shrink: the log fails with %s\n", line);
	trial = s;
	trial.ops = malloc((s.len + 1) * sizeof(*s.ops));
	if (!trial.ops)
		return 2;
	for (chunk = max_u64(s.len / 2, 1); ; ) {
		removed = false;
		for (start = 0; start < s.len && s.len > 1; ) {
			cut = min_u64(chunk, s.len - start);
			memcpy(trial.ops, s.ops, start * sizeof(*s.ops));
			memcpy(trial.ops + start, s.ops + start + cut,
			       (s.len - start - cut) * sizeof(*s.ops));
			trial.len = s.len - cut;
			replays++;
			if (!replay_fails(&trial, &want)) {
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
			chunk = max_u64(min_u64(chunk / 2, s.len / 2), 1);
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
	describe_failure(&want, line, sizeof(line));
	printf("fsmodel: %zu ops still fail with %s: %s\n", s.len, line,
	       cfg.log_path);
	return 0;
}

/* One RWF_NOWAIT transfer of @len at 0: does the kernel take the flag? */
static bool probe_nowait(int fd, unsigned char *buf, size_t len, bool write)
{
	struct iovec iov = { .iov_base = buf, .iov_len = len };
	ssize_t ret = write ? pwritev2(fd, &iov, 1, 0, RWF_NOWAIT) :
			      preadv2(fd, &iov, 1, 0, RWF_NOWAIT);

	return ret >= 0 || errno == EAGAIN;
}

/*
 * A file of 100 bytes, 100 more stored past EOF through a mapping, then the
 * file taken to 400 bytes by a write of its last 100, or a truncate: do
 * the stored bytes read back as zeros?
 */
static bool probe_eofzero(int fd, unsigned char *buf, bool write)
{
	unsigned char back[300];
	unsigned char *map;

	if (ftruncate(fd, 0) || pwrite(fd, buf, 100, 0) != 100)
		return false;
	map = mmap(NULL, page_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		   0);
	if (map == MAP_FAILED)
		return false;
	memset(map + 100, 0x5a, 100);
	munmap(map, page_size);
	if (write ? pwrite(fd, buf, 100, 300) != 100 : ftruncate(fd, 400))
		return false;
	if (pread(fd, back, sizeof(back), 100) != sizeof(back))
		return false;
	return !back[0] && !memcmp(back, back + 1, 199);
}

/*
 * -P: try each capability on two scratch files in DIR and print what
 * works, in -F's form; with -F, also compare (exit 1 when they differ).
 * Only ever a check of a declaration: the runs use what is declared.
 */
static int probe(void)
{
	char a[PATH_MAX], b[PATH_MAX], found[LINE_LEN], declared[LINE_LEN];
	struct caps caps = { 0 };
	struct fiemap fm = { .fm_length = FIEMAP_MAX_OFFSET };
	struct statx stx;
	unsigned char *buf;
	loff_t in_off = 0, out_off = 0;
	struct stat st;
	size_t bs;
	int fa, fb, fd, mode;

	snprintf(a, sizeof(a), "%s/fsm.probe.a", cfg.dir);
	snprintf(b, sizeof(b), "%s/fsm.probe.b", cfg.dir);
	fa = open(a, O_RDWR | O_CREAT | O_TRUNC, 0644);
	fb = open(b, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fa < 0 || fb < 0 || fstat(fa, &st)) {
		perror("fsmodel: probe");
		return 2;
	}
	bs = st.st_blksize;
	buf = alloc_buffer(page_size, 4 * bs);
	if (!buf)
		return 2;
	memset(buf, 0x5a, 4 * bs);
	if (pwrite(fa, buf, 4 * bs, 0) != (ssize_t)(4 * bs) || fsync(fa)) {
		perror("fsmodel: probe: write");
		return 2;
	}
	fd = open(a, O_RDWR | O_DIRECT);
	if (fd >= 0 && pread(fd, buf, bs, 0) == (ssize_t)bs) {
		caps.has |= 1u << CAP_DIO;
		memset(&stx, 0, sizeof(stx));
		if (!statx(fa, "", AT_EMPTY_PATH, STATX_DIOALIGN, &stx) &&
		    (stx.stx_mask & STATX_DIOALIGN) &&
		    stx.stx_dio_offset_align)
			caps.has |= 1u << CAP_DIOALIGN;
		if (probe_nowait(fd, buf, bs, false))
			caps.nowait |= 1u << NW_DREAD;
		if (probe_nowait(fd, buf, bs, true))
			caps.nowait |= 1u << NW_DWRITE;
	}
	if (fd >= 0)
		close(fd);
	if (probe_nowait(fa, buf, bs, false))
		caps.nowait |= 1u << NW_READ;
	if (probe_nowait(fa, buf, bs, true))
		caps.nowait |= 1u << NW_WRITE;
	if (caps.nowait)
		caps.has |= 1u << CAP_NOWAIT;
	if (copy_file_range(fa, &in_off, fb, &out_off, bs, 0) > 0)
		caps.has |= 1u << CAP_COPY;
	if (lseek(fa, 0, SEEK_DATA) == 0 &&
	    lseek(fa, 0, SEEK_HOLE) == (off_t)(4 * bs))
		caps.has |= 1u << CAP_SEEK;
	if (!ioctl(fa, FS_IOC_FIEMAP, &fm))
		caps.has |= 1u << CAP_FIEMAP;
	if (probe_eofzero(fa, buf, true) && probe_eofzero(fa, buf, false))
		caps.has |= 1u << CAP_EOFZERO;
	/* Each mode on a block inside four written ones. */
	for (mode = 0; mode < NR_FALLOC; mode++) {
		if (ftruncate(fa, 0) ||
		    pwrite(fa, buf, 4 * bs, 0) != (ssize_t)(4 * bs)) {
			perror("fsmodel: probe: write");
			return 2;
		}
		if (!fallocate(fa, falloc_modes[mode].mode, bs, bs))
			caps.falloc |= 1u << mode;
		else if (errno != EOPNOTSUPP)
			fprintf(stderr, "fsmodel: probe: fallocate %s: %s\n",
				falloc_modes[mode].name, strerror(errno));
	}
	if (caps.falloc)
		caps.has |= 1u << CAP_FALLOC;
	close(fa);
	close(fb);
	unlink(a);
	unlink(b);
	free(buf);
	format_caps(&caps, found, sizeof(found));
	if (!cfg.caps_given) {
		printf("%s\n", found);
		return 0;
	}
	format_caps(&cfg.caps, declared, sizeof(declared));
	printf("fsmodel: probe: declared: %s\nfsmodel: probe: found:    %s\n",
	       declared, found);
	return strcmp(declared, found) ? 1 : 0;
}

static void usage(const char *why)
{
	if (why)
		fprintf(stderr, "fsmodel: %s\n", why);
	fprintf(stderr,
		"usage: fsmodel -F CAPS [-n N] [-s SEED] [-N OPS] [-l BYTES] "
		"[-X BYTES]\n"
		"               [-L BYTES] [-B BYTES] [-A BYTES] [-w OP=W,...] "
		"[-c EVERY]\n"
		"               [-R CMD] [-r EVERY] [-D] [-o LOG] [-C OPNUM] "
		"[-v] [-q] DIR\n"
		"       fsmodel [-R CMD] [-D] [-o LOG | -o OUT] (-p LOG | -S LOG)"
		" DIR\n"
		"       fsmodel [-F CAPS] -P DIR\n"
		"CAPS: dio dioalign copy falloc=MODE,... nowait=KIND,... seek "
		"fiemap eofzero\n");
	exit(2);
}

/* A number, with an optional k, m or g (binary) suffix. */
static uint64_t number_arg(const char *s, uint64_t min, uint64_t max)
{
	uint64_t v;

	if (!parse_number(s, min, max, &v))
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
		cfg.weights[kind] = number_arg(eq + 1, 0, 1000000);
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
	while ((opt = getopt(argc, argv,
			     "F:Pn:s:N:l:X:L:B:A:w:c:R:r:Do:p:S:C:vq")) != -1) {
		switch (opt) {
		case 'F':
			if (!parse_caps(optarg, &cfg.caps))
				usage("-F: unknown capability, or dioalign "
				      "without dio");
			cfg.caps_given = true;
			break;
		case 'P':
			cfg.probe = true;
			break;
		case 'n':
			cfg.ninstances = number_arg(optarg, 1, 1024);
			break;
		case 's':
			cfg.seed = number_arg(optarg, 0, UINT64_MAX);
			break;
		case 'N':
			cfg.nops = number_arg(optarg, 0, LONG_MAX);
			break;
		case 'l':
			cfg.maxsize = number_arg(optarg, 4096, 1ULL << 30);
			break;
		case 'X':
			cfg.farsize = number_arg(optarg, 0, 1ULL << 40);
			break;
		case 'L':
			cfg.maxlen = number_arg(optarg, 1, 1ULL << 30);
			break;
		case 'B':
			cfg.block = number_arg(optarg, 1, 1 << 24);
			break;
		case 'A':
			cfg.dio_align = number_arg(optarg, 1, 1 << 24);
			break;
		case 'w':
			parse_weights(optarg);
			break;
		case 'c':
			cfg.check_every = number_arg(optarg, 0, LONG_MAX);
			break;
		case 'R':
			cfg.remount_cmd = optarg;
			break;
		case 'r':
			cfg.remount_every = number_arg(optarg, 0, LONG_MAX);
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
			cfg.corrupt_after = number_arg(optarg, 1, LONG_MAX);
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
	cfg.limit = max_u64(cfg.maxsize, cfg.farsize);
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
	if (!cfg.replay_path && !cfg.shrink_path && !cfg.probe &&
	    !cfg.caps_given)
		usage("-F CAPS: say what the filesystem can do");
	if (cfg.shrink_path && !cfg.log_path)
		usage("-S needs -o OUT");
}

int main(int argc, char **argv)
{
	struct outcome sum = { 0 };
	struct script script;
	char counts[2048];
	long total;
	int status, i, k;

	page_size = sysconf(_SC_PAGESIZE);
	parse_options(argc, argv);
	if (cfg.probe)
		return probe();
	outcomes = mmap(NULL, cfg.ninstances * sizeof(*outcomes),
			PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
			-1, 0);
	if (outcomes == MAP_FAILED) {
		perror("fsmodel: mmap");
		return 2;
	}
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
	for (i = 0; i < cfg.ninstances; i++) {
		for (k = 0; k < NR_OPS; k++)
			sum.counts[k] += outcomes[i].counts[k];
		for (k = 0; k < NR_FALLOC; k++)
			sum.falloc_counts[k] += outcomes[i].falloc_counts[k];
	}
	total = format_counts(&sum, counts, sizeof(counts));
	printf("fsmodel: %s %ld ops%s%s; ", status == 0 ? "OK" :
	       status == 1 ? "FAIL" : "ERROR", total, total ? ": " : "",
	       counts);
	if (cfg.replay_path)
		printf("replay of %s\n", cfg.replay_path);
	else
		printf("%d instance%s, seed %" PRIu64 "\n", cfg.ninstances,
		       cfg.ninstances > 1 ? "s" : "", cfg.seed);
	return status;
}
