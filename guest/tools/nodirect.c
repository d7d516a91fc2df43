// SPDX-License-Identifier: GPL-2.0
/*
 * nodirect.so: under LD_PRELOAD, every open asking for O_DIRECT fails with
 * EINVAL, as it does on a filesystem without direct I/O.  t-40-model.sh
 * runs fsmodel under it with dio declared: the run must fail, which shows
 * that a capability the filesystem loses is reported, not worked around.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>

typedef int (*open_fn)(const char *path, int flags, ...);
typedef int (*openat_fn)(int dirfd, const char *path, int flags, ...);

/* The mode argument exists only when the flags can create a file. */
#define OPEN_MODE(flags, last) ({				\
	mode_t __mode = 0;					\
								\
	if ((flags) & (O_CREAT | __O_TMPFILE)) {		\
		va_list __ap;					\
								\
		va_start(__ap, last);				\
		__mode = va_arg(__ap, mode_t);			\
		va_end(__ap);					\
	}							\
	__mode;							\
})

static int refuse(void)
{
	errno = EINVAL;
	return -1;
}

static int next_open(const char *name, const char *path, int flags,
		     mode_t mode)
{
	open_fn real = (open_fn)dlsym(RTLD_NEXT, name);

	return real ? real(path, flags, mode) : refuse();
}

static int next_openat(const char *name, int dirfd, const char *path,
		       int flags, mode_t mode)
{
	openat_fn real = (openat_fn)dlsym(RTLD_NEXT, name);

	return real ? real(dirfd, path, flags, mode) : refuse();
}

int open(const char *path, int flags, ...)
{
	mode_t mode = OPEN_MODE(flags, flags);

	return flags & O_DIRECT ? refuse() :
	       next_open("open", path, flags, mode);
}

int open64(const char *path, int flags, ...)
{
	mode_t mode = OPEN_MODE(flags, flags);

	return flags & O_DIRECT ? refuse() :
	       next_open("open64", path, flags, mode);
}

int openat(int dirfd, const char *path, int flags, ...)
{
	mode_t mode = OPEN_MODE(flags, flags);

	return flags & O_DIRECT ? refuse() :
	       next_openat("openat", dirfd, path, flags, mode);
}

int openat64(int dirfd, const char *path, int flags, ...)
{
	mode_t mode = OPEN_MODE(flags, flags);

	return flags & O_DIRECT ? refuse() :
	       next_openat("openat64", dirfd, path, flags, mode);
}
