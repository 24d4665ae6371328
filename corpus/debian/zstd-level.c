// SPDX-License-Identifier: GPL-2.0-only
/*
 * LD_PRELOAD shim for `trace-cmd convert` (recompress.sh): trace-cmd compresses every
 * section of a version-7 trace.dat with zstd at libtracecmd's own level and has no option
 * for it; this sets ZSTD_LEVEL (default 19) on the context before each ZSTD_compress2().
 * The file stays what trace-cmd writes (any zstd decoder reads it: windows up to 8 MiB at
 * level 19); a Debian run's kallsyms (20 MB of text) shrinks from 2.2 to 1.4 MB.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>
#include <zstd.h>

size_t ZSTD_compress2(ZSTD_CCtx *cctx, void *dst, size_t dstCapacity, const void *src,
		      size_t srcSize)
{
	static size_t (*real)(ZSTD_CCtx *, void *, size_t, const void *, size_t);
	const char *l = getenv("ZSTD_LEVEL");

	if (!real)
		real = (size_t (*)(ZSTD_CCtx *, void *, size_t, const void *, size_t))
			dlsym(RTLD_NEXT, "ZSTD_compress2");
	ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, l ? atoi(l) : 19);
	return real(cctx, dst, dstCapacity, src, srcSize);
}
