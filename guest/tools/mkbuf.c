// SPDX-License-Identifier: GPL-2.0
/*
 * mkbuf: make PATH, a file of BYTES on tmpfs, whose pages lie in memory so
 * that no page is physically next to the page after it in the file.
 *
 *   mkbuf PATH BYTES
 *
 * fio reads into it (--iomem=mmapshared:PATH): the same pages in every
 * run, and none that the block layer merges into one bio_vec with its
 * neighbour.  With fio's own buffers, where the pages land depends on the
 * page allocator's state when fio faults them in: a run whose pages
 * happen to be contiguous merges them, and its O_DIRECT reads of more
 * than a page cost some 30 instructions less per merge, in every read of
 * the run (results/METHOD.md, "The buffers").
 *
 * The pages are allocated alternately with those of a spacer file, then
 * checked through /proc/self/pagemap (root only); a page whose frame still
 * follows its predecessor's is given another one, up to a bound.  Exits 0
 * when no page follows its predecessor in memory.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define PAGE 4096UL
#define TRIES 64

static int die(const char *what)
{
	fprintf(stderr, "mkbuf: %s: %s\n", what, strerror(errno));
	return 1;
}

/* The physical frame of the page mapped at @p, 0 if unknown. */
static uint64_t frame(int pagemap, const void *p)
{
	uint64_t e;

	if (pread(pagemap, &e, sizeof(e), (uintptr_t)p / PAGE * sizeof(e)) !=
	    sizeof(e) || !(e >> 63))
		return 0;
	return e & ((1ULL << 55) - 1);
}

static int write_page(int fd, size_t i)
{
	static char data[PAGE];

	memset(data, 0x5a, sizeof(data));
	return pwrite(fd, data, PAGE, i * PAGE) == (ssize_t)PAGE ? 0 : -1;
}

int main(int argc, char **argv)
{
	size_t pages, i, fixed = 0;
	char spacer_path[4096];
	int fd, spacer, pagemap, tries;
	volatile char *map;

	if (argc != 3) {
		fprintf(stderr, "usage: mkbuf PATH BYTES\n");
		return 2;
	}
	pages = (strtoull(argv[2], NULL, 0) + PAGE - 1) / PAGE;
	snprintf(spacer_path, sizeof(spacer_path), "%s.spacer", argv[1]);
	fd = open(argv[1], O_RDWR | O_CREAT | O_TRUNC, 0644);
	spacer = open(spacer_path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	pagemap = open("/proc/self/pagemap", O_RDONLY);
	if (fd < 0 || spacer < 0 || pagemap < 0)
		return die("open");
	for (i = 0; i < pages; i++)
		if (write_page(fd, i) || write_page(spacer, i))
			return die("write");
	map = mmap(NULL, pages * PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		   0);
	if (map == MAP_FAILED)
		return die("mmap");
	for (i = 0; i + 1 < pages; i++) {
		for (tries = 0; tries < TRIES; tries++) {
			uint64_t a, b;

			/* Touched, so that the mapping has them. */
			(void)map[i * PAGE];
			(void)map[(i + 1) * PAGE];
			a = frame(pagemap, (const void *)(map + i * PAGE));
			b = frame(pagemap, (const void *)(map + (i + 1) * PAGE));
			if (!a || !b)
				return die("pagemap");
			/* bio_add_page() merges only a page that follows. */
			if (b != a + 1)
				break;
			/*
			 * Give page i + 1 another frame: drop it, and take
			 * the one the allocator hands out next for the spacer
			 * (it would be the same), then allocate it again.
			 */
			if (fallocate(fd, FALLOC_FL_PUNCH_HOLE |
				      FALLOC_FL_KEEP_SIZE, (i + 1) * PAGE,
				      PAGE) || write_page(spacer, pages + fixed++) ||
			    write_page(fd, i + 1))
				return die("reallocate");
		}
		if (tries == TRIES) {
			fprintf(stderr, "mkbuf: page %zu stays next to %zu\n",
				i + 1, i);
			return 1;
		}
	}
	close(spacer);
	/* The spacer's pages stay: freeing them would free neighbours too. */
	printf("%zu pages, %zu moved\n", pages, fixed);
	return 0;
}
