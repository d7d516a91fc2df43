// SPDX-License-Identifier: GPL-2.0
/*
 * mkfrag: write FILE, BYTES of data whose extents are EXTENT bytes long
 * each, on a filesystem that holds nothing else, the same way every run.
 *
 *   mkfrag FILE BYTES EXTENT
 *
 * A file written into free space gets the extents the allocator picks,
 * which differ between filesystems and with their heuristics (ext4's
 * per-inode preallocation keeps a lone writer contiguous however its
 * writes interleave with another's).  So mkfrag leaves the allocator no
 * choice: it fills the filesystem with a spacer file, punches every other
 * EXTENT-sized piece of the spacer's first 2 * (BYTES + SPARE_BYTES), so
 * that the free space is pieces of EXTENT bytes each with allocated space
 * between them, writes FILE into them with O_DIRECT in EXTENT-sized
 * writes, and removes the spacer.  The filesystem should be little larger
 * than that, since all of it is written once.  What came out is checked
 * afterwards with FIEMAP (filefrag), not here.
 *
 * Every 8-byte word of FILE holds its own offset, so a bench that reads
 * it back with verification would see a misplaced read.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define FILL_CHUNK	(1UL << 20)
#define BLOCK		4096UL
/*
 * Free space beyond BYTES, for the blocks of FILE's extent map: a 1 GiB
 * file of 4 KiB extents needs some 800.
 */
#define SPARE_BYTES	(4UL << 20)

static int die(const char *what, const char *path)
{
	fprintf(stderr, "mkfrag: %s %s: %s\n", what, path, strerror(errno));
	return 1;
}

static unsigned long parse_size(const char *s)
{
	char *end;
	unsigned long v = strtoul(s, &end, 0);

	switch (*end) {
	case 'k': case 'K': v <<= 10; end++; break;
	case 'm': case 'M': v <<= 20; end++; break;
	case 'g': case 'G': v <<= 30; end++; break;
	}
	return *end ? 0 : v;
}

/* Write @len bytes at @off of @fd from @buf, O_DIRECT; 0 or an errno. */
static int write_at(int fd, char *buf, size_t len, off_t off)
{
	while (len) {
		ssize_t n = pwrite(fd, buf, len, off);

		if (n < 0)
			return errno;
		if (n == 0)
			return ENOSPC;
		buf += n;
		len -= n;
		off += n;
	}
	return 0;
}

/*
 * Fill the filesystem with @fd to ENOSPC: in large writes, then in blocks
 * for the last of the space.  Returns the bytes written, or -1 with errno
 * set if a write failed for another reason.
 */
static off_t fill(int fd, char *buf)
{
	static const size_t lengths[] = { FILL_CHUNK, BLOCK };
	off_t off = 0;
	size_t i;
	int err;

	for (i = 0; i < sizeof(lengths) / sizeof(lengths[0]); i++) {
		while (!(err = write_at(fd, buf, lengths[i], off)))
			off += lengths[i];
		if (err != ENOSPC) {
			errno = err;
			return -1;
		}
	}
	return off;
}

/*
 * Punch @len bytes at @off out of @fd.  Splitting the spacer's extents may
 * need a block for its extent map when none is free, and ext4 hands out
 * the blocks that earlier punches freed only after a journal commit: so on
 * ENOSPC, commit (fsync) and try once more.
 */
static int punch(int fd, off_t off, off_t len)
{
	int mode = FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE;

	if (!fallocate(fd, mode, off, len))
		return 0;
	if (errno != ENOSPC || fsync(fd))
		return -1;
	return fallocate(fd, mode, off, len);
}

int main(int argc, char **argv)
{
	unsigned long bytes, extent, off, pieces, i;
	char spacer[4096];
	int fd, sfd, err;
	off_t filled;
	char *buf;

	if (argc != 4) {
		fprintf(stderr, "usage: mkfrag FILE BYTES EXTENT\n");
		return 2;
	}
	bytes = parse_size(argv[2]);
	extent = parse_size(argv[3]);
	if (!bytes || !extent || extent % BLOCK || bytes % extent) {
		fprintf(stderr, "mkfrag: EXTENT must be a multiple of %lu and divide BYTES\n",
			BLOCK);
		return 2;
	}
	snprintf(spacer, sizeof(spacer), "%s.spacer", argv[1]);
	buf = aligned_alloc(BLOCK, FILL_CHUNK > extent ? FILL_CHUNK : extent);
	if (!buf)
		return die("allocate", "buffer");

	sfd = open(spacer, O_CREAT | O_TRUNC | O_WRONLY | O_DIRECT, 0644);
	if (sfd < 0)
		return die("create", spacer);
	memset(buf, 0xa5, FILL_CHUNK);
	filled = fill(sfd, buf);
	if (filled < 0 || fsync(sfd))
		return die("fsync", spacer);
	pieces = (bytes + SPARE_BYTES + extent - 1) / extent;
	if ((off_t)(2 * pieces * extent) > filled) {
		fprintf(stderr, "mkfrag: the filesystem holds %lld bytes, %lu needed\n",
			(long long)filled, 2 * pieces * extent);
		return 1;
	}
	for (i = 0; i < pieces; i++)
		if (punch(sfd, 2 * i * extent, extent))
			return die("punch", spacer);
	if (fsync(sfd))
		return die("fsync", spacer);

	fd = open(argv[1], O_CREAT | O_TRUNC | O_WRONLY | O_DIRECT, 0644);
	if (fd < 0)
		return die("create", argv[1]);
	for (off = 0; off < bytes; off += extent) {
		for (i = 0; i < extent; i += sizeof(uint64_t))
			*(uint64_t *)(buf + i) = off + i;
		err = write_at(fd, buf, extent, off);
		if (err) {
			errno = err;
			return die("write", argv[1]);
		}
	}
	if (fsync(fd) || close(fd))
		return die("fsync", argv[1]);
	close(sfd);
	if (unlink(spacer))
		return die("remove", spacer);
	return 0;
}
