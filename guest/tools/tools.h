/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the guest's seeded testers (fsmodel, fscrash) share: small integer
 * helpers and the random numbers and data patterns a seed replays.
 */
#ifndef GUEST_TOOLS_H
#define GUEST_TOOLS_H

#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

static inline uint64_t min_u64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

static inline uint64_t max_u64(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}

static inline uint64_t round_down(uint64_t x, uint64_t align)
{
	return x / align * align;
}

static inline uint64_t round_up(uint64_t x, uint64_t align)
{
	return (x + align - 1) / align * align;
}

/*
 * A number given on the command line into *@v: decimal, octal or hex,
 * with an optional k, m or g suffix (KiB, MiB, GiB), within [@min, @max].
 * False for anything else.
 */
static inline bool parse_number(const char *s, uint64_t min, uint64_t max,
				uint64_t *v)
{
	char *end;

	errno = 0;
	*v = strtoull(s, &end, 0);
	switch (tolower((unsigned char)*end)) {
	case 'g':
		*v <<= 10;
		/* fall through */
	case 'm':
		*v <<= 10;
		/* fall through */
	case 'k':
		*v <<= 10;
		end++;
	}
	return !errno && end != s && !*end && *v >= min && *v <= max;
}

/* A 64-bit finaliser: every input bit moves every output bit. */
static inline uint64_t mix64(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

/* The next number of a xorshift64* generator whose state is *@state. */
static inline uint64_t xorshift_next(uint64_t *state)
{
	uint64_t x = *state;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*state = x;
	return x * 0x2545f4914f6cdd1dULL;
}

#endif
