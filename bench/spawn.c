/*-
 * SPDX-License-Identifier: BSD-2-Clause
 *
 * Copyright (c) 2026 The libprocdesc authors.
 */

/*
 * Section 1b: spawn by the caller's size (issue #37).  A spawn that
 * copies the caller's address space costs more the bigger the caller;
 * one that shares it (the C library's posix_spawn, FreeBSD's RFSPAWN)
 * does not.  Our heap is grown to 0, 512 MiB and 2 GiB (-q: 0, 64 and
 * 256 MiB), every page
 * written (anonymous memory as malloc(3) gets it, no huge pages asked
 * for), and at each size the spawns of /bin/true are timed to the
 * child's collection:
 *
 *	posix_spawn			the C library's, the baseline
 *	posix_spawn, a descriptor	ours, posix_spawnattr_setprocdescp_np
 *	pdrfork(RFSPAWN)+execve		ours, the child execs at once
 *	fork+execve			what a copy costs, for information
 *
 * In rounds: each round walks the three sizes (growing the heap, then
 * dropping it), and at each size runs every variant, half its iterations
 * in one order and half in the reverse.  The goals are judged on the
 * rounds' ratios: each variant's median over posix_spawn's at the same
 * size in the same round, and the descriptor's spawn at 2 GiB over its
 * own at 0 (flat in the caller's size).
 */

#define	_PROCDESC_SPAWN_NOMAP

#include <sys/mman.h>
#include <sys/wait.h>

#include <err.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "procdesc-overlay/spawn.h"
#include "sys/procdesc.h"
#include "bench.h"

#define	MIB		((size_t)1 << 20)

extern char **environ;

static char *const sz_argv[] = { "true", NULL };
static __procdesc_spawnattr_t sz_attr;
static int sz_fd;

static int64_t
sz_posix_spawn_pd(void)
{
	int64_t t0;
	pid_t pid;
	int error, st;

	t0 = now_ns();
	if ((error = procdesc_posix_spawn(&pid, "/bin/true", NULL, &sz_attr,
	    sz_argv, environ)) != 0) {
		errno = error;
		err(1, "posix_spawn with a descriptor");
	}
	if (pdwait(sz_fd, &st, WEXITED, NULL, NULL) == -1)
		err(1, "pdwait");
	close(sz_fd);
	return (now_ns() - t0);
}

static int64_t
sz_fork(void)
{
	int64_t t0;
	pid_t pid;
	int st;

	t0 = now_ns();
	if ((pid = fork()) == 0) {
		execve("/bin/true", sz_argv, environ);
		_exit(127);
	}
	if (pid == -1 || waitpid(pid, &st, 0) == -1)
		err(1, "fork/waitpid");
	return (now_ns() - t0);
}

static const struct sz_variant {
	const char	*v_name;
	int64_t		(*v_op)(void);
	double		 v_goal;	/* Over posix_spawn, or NAN. */
} sz_variants[] = {
	{ "posix_spawn+waitpid", op_posix_spawn, NAN },
	{ "posix_spawn, a descriptor, +pdwait", sz_posix_spawn_pd, 1.2 },
	{ "pdrfork(RFSPAWN)+execve+pdwait", op_pdrfork, 1.2 },
	{ "fork+execve+waitpid", sz_fork, NAN },
};
#define	SZ_NV		(sizeof(sz_variants) / sizeof(sz_variants[0]))
#define	SZ_PD		1		/* The descriptor's posix_spawn. */

/* The heaps: a full run's, and a quick one's (-q), which only keeps the
   code from rotting. */
static const size_t sz_full[] = { 0, 512, 2048 };
static const size_t sz_quick[] = { 0, 64, 256 };
#define	SZ_NS		(sizeof(sz_full) / sizeof(sz_full[0]))

/* Grow the heap at *basep (*lenp bytes) to mib MiB, every page written. */
static void
sz_grow(char **basep, size_t *lenp, size_t mib)
{
	size_t len, pg, off;
	char *p;

	len = mib * MIB;
	if (len <= *lenp)
		return;
	if ((p = mmap(NULL, len - *lenp, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)) == MAP_FAILED)
		err(1, "mmap %zu MiB", mib);
	pg = (size_t)sysconf(_SC_PAGESIZE);
	for (off = 0; off < len - *lenp; off += pg)
		p[off] = 1;
	/* Kept as a list: each piece remembers the one before. */
	*(char **)(void *)p = *basep;
	*(size_t *)(void *)(p + sizeof(char *)) = len - *lenp;
	*basep = p;
	*lenp = len;
}

static void
sz_drop(char **basep, size_t *lenp)
{
	char *p, *next;

	for (p = *basep; p != NULL; p = next) {
		next = *(char **)(void *)p;
		(void)munmap(p, *(size_t *)(void *)(p + sizeof(char *)));
	}
	*basep = NULL;
	*lenp = 0;
}

/* One size of one round: every variant, forward then backward. */
static void
sz_level(size_t per, struct samples *sr)
{
	size_t h, i, j;

	for (h = 0; h < 2; h++)
		for (j = 0; j < SZ_NV; j++) {
			i = h == 0 ? j : SZ_NV - 1 - j;
			(void)sz_variants[i].v_op();	/* Warm-up. */
			while (sr[i].s_n < (h + 1) * per)
				samples_add(&sr[i],
				    (double)sz_variants[i].v_op());
		}
}

/*
 * per: iterations of each variant, at each size, in each round (half
 * forward, half backward).
 */
void
bench_spawn_size(size_t per, size_t rounds, bool quick)
{
	const size_t *sz_mib = quick ? sz_quick : sz_full;
	struct samples s[SZ_NS][SZ_NV], rr[SZ_NS][SZ_NV], flat;
	struct samples sr[SZ_NS][SZ_NV];
	char name[96], *heap;
	size_t i, k, l, r, len;
	int error;

	out_section("1b. Spawn by the caller's size: heaps of %zu, %zu and "
	    "%zu MiB, written (%zu rounds)", sz_mib[0], sz_mib[1], sz_mib[2],
	    rounds);
	if ((error = procdesc_posix_spawnattr_init(&sz_attr)) != 0 ||
	    (error = procdesc_posix_spawnattr_setprocdescp_np(&sz_attr,
	    &sz_fd, 0)) != 0) {
		errno = error;
		err(1, "posix_spawnattr");
	}
	per = per < 2 ? 1 : per / 2;
	for (l = 0; l < SZ_NS; l++)
		for (i = 0; i < SZ_NV; i++) {
			samples_init(&s[l][i], 2 * per * rounds);
			samples_init(&rr[l][i], rounds);
		}
	samples_init(&flat, rounds);
	heap = NULL;
	len = 0;
	for (r = 0; r < rounds; r++) {
		for (l = 0; l < SZ_NS; l++) {
			for (i = 0; i < SZ_NV; i++)
				samples_init(&sr[l][i], 2 * per);
			sz_grow(&heap, &len, sz_mib[l]);
			sz_level(per, sr[l]);
			for (i = 1; i < SZ_NV; i++)
				samples_add(&rr[l][i],
				    samples_pct(&sr[l][i], 0.5) /
				    samples_pct(&sr[l][0], 0.5));
			for (i = 0; i < SZ_NV; i++)
				for (k = 0; k < sr[l][i].s_n; k++)
					samples_add(&s[l][i], sr[l][i].s_v[k]);
		}
		sz_drop(&heap, &len);
		samples_add(&flat, samples_pct(&sr[SZ_NS - 1][SZ_PD], 0.5) /
		    samples_pct(&sr[0][SZ_PD], 0.5));
		for (l = 0; l < SZ_NS; l++)
			for (i = 0; i < SZ_NV; i++)
				samples_free(&sr[l][i]);
	}
	for (l = 0; l < SZ_NS; l++) {
		out_printf("  heap %zu MiB:\n", sz_mib[l]);
		for (i = 0; i < SZ_NV; i++) {
			out_time(sz_variants[i].v_name, &s[l][i],
			    i == 0 ? NULL : "posix_spawn",
			    i == 0 ? NULL : &s[l][0], NULL, V_NONE);
			if (i == 0)
				continue;
			snprintf(name, sizeof(name), "%s, %zu MiB, a round",
			    sz_variants[i].v_name, sz_mib[l]);
			out_ratio(name, &rr[l][i], sz_variants[i].v_goal);
		}
	}
	snprintf(name, sizeof(name), "posix_spawn, a descriptor: %zu MiB / "
	    "%zu MiB, a round", sz_mib[SZ_NS - 1], sz_mib[0]);
	out_ratio(name, &flat, 1.3);
	for (l = 0; l < SZ_NS; l++)
		for (i = 0; i < SZ_NV; i++) {
			samples_free(&s[l][i]);
			samples_free(&rr[l][i]);
		}
	samples_free(&flat);
	(void)procdesc_posix_spawnattr_destroy(&sz_attr);
}
