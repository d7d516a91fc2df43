// SPDX-License-Identifier: GPL-2.0
/*
 * mmap-trunc: stores through a shared mapping that is kept while the file
 * is truncated down and up again must all read back.
 *
 *   mmap-trunc [-g] [-r] [-f] LOW HIGH FILE EXPECTED
 *
 * The file (created empty) is written with 0x58 and mapped shared,
 * read-write; then, with the mapping kept all along: 0x5a is stored into
 * [LOW, HIGH) through it, the file is truncated to LOW, (-f) 0x57 is
 * stored into the KiB below LOW, the file is truncated to HIGH again and
 * 0x59 is stored into [LOW, HIGH).  Every byte must then read back as the
 * last one stored there: through pread and through a fresh mapping.
 *
 *   -g  start the file at LOW bytes, mapped LOW, and grow it to HIGH by
 *       truncate before the first store (the default: truncate to HIGH
 *       and write HIGH bytes);
 *   -r  mremap the mapping along with every truncate (down to LOW and up
 *       to HIGH), instead of keeping it HIGH bytes long throughout.
 *
 * EXPECTED receives the bytes the file must hold, for a comparison after
 * an unmount and mount.  Exits 0 when every byte read back right, 1 with
 * the first wrong offset otherwise, 2 when a call failed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static void die(const char *what)
{
	fprintf(stderr, "mmap-trunc: %s: %s\n", what, strerror(errno));
	exit(2);
}

static void resize(int fd, off_t size)
{
	if (ftruncate(fd, size))
		die("ftruncate");
}

/* Store @byte into [@off, @end) through the mapping, and into the model. */
static void store(char *map, char *want, off_t off, off_t end, int byte)
{
	memset(map + off, byte, end - off);
	memset(want + off, byte, end - off);
}

static char *remap(char *map, size_t *len, size_t new_len)
{
	map = mremap(map, *len, new_len, MREMAP_MAYMOVE);
	if (map == MAP_FAILED)
		die("mremap");
	*len = new_len;
	return map;
}

/* The first offset below @size where @got differs from @want, or -1. */
static off_t first_diff(const char *got, const char *want, off_t size)
{
	off_t i;

	for (i = 0; i < size; i++)
		if (got[i] != want[i])
			return i;
	return -1;
}

static int verify(const char *want, off_t size, const char *how,
		  const char *got)
{
	off_t bad = first_diff(got, want, size);

	if (bad < 0)
		return 0;
	fprintf(stderr, "mmap-trunc: %s: byte %lld is 0x%02x, want 0x%02x\n",
		how, (long long)bad, (unsigned char)got[bad],
		(unsigned char)want[bad]);
	return 1;
}

int main(int argc, char **argv)
{
	int grow = 0, follow = 0, fill = 0, bad = 0, fd, out, opt;
	off_t low, high, done;
	size_t len;
	char *want, *map, *got;
	ssize_t n;

	while ((opt = getopt(argc, argv, "grf")) != -1) {
		switch (opt) {
		case 'g':
			grow = 1;
			break;
		case 'r':
			follow = 1;
			break;
		case 'f':
			fill = 1;
			break;
		default:
			goto usage;
		}
	}
	if (argc - optind != 4)
		goto usage;
	low = strtoll(argv[optind], NULL, 0);
	high = strtoll(argv[optind + 1], NULL, 0);
	if (low < 1024 || high <= low)
		goto usage;

	want = calloc(1, high);
	got = malloc(high);
	if (!want || !got)
		die("malloc");
	fd = open(argv[optind + 2], O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		die(argv[optind + 2]);

	/* The data before the cut, written through the page cache. */
	done = grow ? low : high;
	if (!grow)
		resize(fd, high);
	memset(want, 0x58, done);
	if (pwrite(fd, want, done, 0) != done)
		die("pwrite");
	len = done;
	map = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED)
		die("mmap");
	if (grow) {
		resize(fd, high);
		map = remap(map, &len, high);
	}

	store(map, want, low, high, 0x5a);
	if (follow)
		map = remap(map, &len, low);
	resize(fd, low);
	memset(want + low, 0, high - low);
	if (fill)
		store(map, want, low - 1024, low, 0x57);
	resize(fd, high);
	if (follow)
		map = remap(map, &len, high);
	store(map, want, low, high, 0x59);
	if (munmap(map, len))
		die("munmap");

	for (done = 0; done < high; done += n) {
		n = pread(fd, got + done, high - done, done);
		if (n <= 0) {
			fprintf(stderr, "mmap-trunc: pread at %lld: %s\n",
				(long long)done, n ? strerror(errno) : "EOF");
			return 1;
		}
	}
	bad |= verify(want, high, "pread", got);
	map = mmap(NULL, high, PROT_READ, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED)
		die("mmap to verify");
	bad |= verify(want, high, "a fresh mapping", map);
	munmap(map, high);
	if (close(fd))
		die("close");

	out = open(argv[optind + 3], O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (out < 0 || write(out, want, high) != high || close(out))
		die(argv[optind + 3]);
	return bad;
usage:
	fprintf(stderr, "usage: mmap-trunc [-g] [-r] [-f] LOW HIGH FILE EXPECTED\n");
	return 2;
}
