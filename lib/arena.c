/*-
 * SPDX-License-Identifier: BSD-2-Clause
 *
 * Copyright (c) 2026 The libprocdesc authors.
 */

/*
 * The arena: mappings with MADV_WIPEONFORK (Linux 4.14), which a fork
 * leaves out of the child (it gets zero pages there) and so neither
 * copies nor write-protects in the parent.  Each page that the library
 * writes at every creation (an entry, its hash buckets, the reaper's work)
 * would otherwise be faulted and copied again after every fork, and
 * shared with every later child until then (NOTES 2.19).  Should the
 * kernel refuse the advice, the arena is plain memory: the child drops
 * what it holds all the same.
 *
 * Blocks of up to AR_SMALL bytes come from chunks, in size classes of
 * powers of two, each class a free list threaded through its free blocks;
 * larger ones are mappings of their own.  Chunks grow geometrically and,
 * once mapped, stay mapped and listed in ar_chunk: a forked copy, whose
 * chunks read as zeros, starts over in the same ones.
 *
 * Invariants: every block on a free list lies in a chunk and is of its
 * class; as_cur and as_off say where the next new block is cut; ar_chunk
 * lists the chunks mapped, in order, and only grows.
 */

#include <sys/mman.h>

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "arena.h"

#ifndef MADV_WIPEONFORK
#define	MADV_WIPEONFORK	18
#endif

#define	AR_MINSHIFT	5		/* The smallest class: 32 bytes. */
#define	AR_NCLASS	5		/* 32 to 512 bytes. */
#define	AR_SMALL	((size_t)1 << (AR_MINSHIFT + AR_NCLASS - 1))
#define	AR_CHUNK0	((size_t)64 * 1024)	/* The first chunk. */
#define	AR_NCHUNK	24		/* Chunk i: AR_CHUNK0 << i/2 bytes. */

#if PROCDESC_ASAN
void	__asan_poison_memory_region(void const volatile *, size_t);
void	__asan_unpoison_memory_region(void const volatile *, size_t);
#define	AR_POISON(p, n)		__asan_poison_memory_region((p), (n))
#define	AR_UNPOISON(p, n)	__asan_unpoison_memory_region((p), (n))
#else
#define	AR_POISON(p, n)		((void)(p), (void)(n))
#define	AR_UNPOISON(p, n)	((void)(p), (void)(n))
#endif

struct ar_free {
	struct ar_free	*af_next;
};

/*
 * What changes at every allocation, at the start of the first chunk, so
 * that it is the arena's too: no page of the library's data faults again
 * after each fork for it.  (a): with as_mtx held.
 */
struct ar_state {
	pthread_mutex_t	 as_mtx;
	struct ar_free	*as_list[AR_NCLASS];	/* (a) Free blocks. */
	size_t		 as_cur;		/* (a) The chunk being cut, */
	size_t		 as_off;		/* (a) and where. */
};
#define	AR_HDR	((sizeof(struct ar_state) + 63) & ~(size_t)63)

static pthread_mutex_t ar_init_mtx = PTHREAD_MUTEX_INITIALIZER;
static struct ar_state *_Atomic ar;	/* In ar_chunk[0], or NULL. */
static char *ar_chunk[AR_NCHUNK];	/* (a) Mapped so far. */

/* No block given out, no free list: the state of a new arena. */
static void
ar_reset(struct ar_state *a)
{
	size_t c;

	pthread_mutex_init(&a->as_mtx, NULL);
	for (c = 0; c < AR_NCLASS; c++)
		a->as_list[c] = NULL;
	a->as_cur = 0;
	a->as_off = AR_HDR;
}

/* A mapping of size bytes that no fork copies: MAP_FAILED on failure. */
static void *
ar_map(size_t size)
{
	void *p;

	p = mmap(NULL, size, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p != MAP_FAILED)
		(void)madvise(p, size, MADV_WIPEONFORK);
	return (p);
}

static size_t
ar_chunk_size(size_t i)
{

	return (AR_CHUNK0 << (i / 2));
}

static size_t
ar_pages(size_t size)
{
	size_t pg;

	pg = (size_t)sysconf(_SC_PAGESIZE);
	return ((size + pg - 1) & ~(pg - 1));
}

/* The state, in the first chunk, made if need be; NULL if it cannot be. */
static struct ar_state *
ar_get(void)
{
	struct ar_state *a;
	void *p;

	if ((a = atomic_load_explicit(&ar, memory_order_acquire)) != NULL)
		return (a);
	pthread_mutex_lock(&ar_init_mtx);
	if ((a = atomic_load(&ar)) == NULL &&
	    (p = ar_map(ar_chunk_size(0))) != MAP_FAILED) {
		ar_chunk[0] = p;
		AR_POISON((char *)p + AR_HDR, ar_chunk_size(0) - AR_HDR);
		a = p;
		ar_reset(a);
		atomic_store_explicit(&ar, a, memory_order_release);
	}
	pthread_mutex_unlock(&ar_init_mtx);
	return (a);
}

/* The class of size bytes (size <= AR_SMALL). */
static size_t
ar_class(size_t size)
{
	size_t c;

	for (c = 0; ((size_t)1 << (AR_MINSHIFT + c)) < size; c++)
		;
	return (c);
}

/* A new block of class c, cut from the chunks; as_mtx held. */
static void *
ar_cut(size_t c)
{
	size_t bsize, i;
	void *p;

	bsize = (size_t)1 << (AR_MINSHIFT + c);
	while (ar->as_cur < AR_NCHUNK) {
		i = ar->as_cur;
		if (ar_chunk[i] == NULL) {
			if ((p = ar_map(ar_chunk_size(i))) == MAP_FAILED)
				return (NULL);
			ar_chunk[i] = p;
			AR_POISON(p, ar_chunk_size(i));
		}
		if (ar->as_off + bsize <= ar_chunk_size(i)) {
			p = ar_chunk[i] + ar->as_off;
			ar->as_off += bsize;
			return (p);
		}
		ar->as_cur++;
		ar->as_off = 0;
	}
	return (NULL);
}

void *
procdesc_arena_zalloc(size_t size)
{
	struct ar_free *f;
	size_t c;
	void *p;

	if (size == 0)
		size = 1;
	if (size > AR_SMALL) {
		p = ar_map(ar_pages(size));
		if (p == MAP_FAILED) {
			errno = ENOMEM;
			return (NULL);
		}
		return (p);		/* Zero already. */
	}
	c = ar_class(size);
	if (ar_get() == NULL) {
		errno = ENOMEM;
		return (NULL);
	}
	pthread_mutex_lock(&ar->as_mtx);
	if ((f = ar->as_list[c]) != NULL) {
		AR_UNPOISON(f, sizeof(*f));
		ar->as_list[c] = f->af_next;
		p = f;
	} else
		p = ar_cut(c);
	pthread_mutex_unlock(&ar->as_mtx);
	if (p == NULL) {
		errno = ENOMEM;
		return (NULL);
	}
	AR_UNPOISON(p, size);
	memset(p, 0, size);
	return (p);
}

void
procdesc_arena_free(void *p, size_t size)
{
	struct ar_free *f;
	size_t c;

	if (p == NULL)
		return;
	if (size == 0)
		size = 1;
	if (size > AR_SMALL) {
		(void)munmap(p, ar_pages(size));
		return;
	}
	c = ar_class(size);
	f = p;
	/*
	 * Poisoned under the mutex: once it is free, another thread may
	 * take the block, and a late poisoning would be on its new owner.
	 */
	pthread_mutex_lock(&ar->as_mtx);
	AR_UNPOISON(f, sizeof(*f));
	f->af_next = ar->as_list[c];
	ar->as_list[c] = f;
	AR_POISON(p, (size_t)1 << (AR_MINSHIFT + c));
	pthread_mutex_unlock(&ar->as_mtx);
}

void *
procdesc_arena_grow(void *p, size_t old, size_t size)
{
	void *n;

	if ((n = procdesc_arena_zalloc(size)) == NULL)
		return (NULL);
	if (old > 0)
		memcpy(n, p, old);
	procdesc_arena_free(p, old);
	return (n);
}

void *
procdesc_arena_stack(size_t size)
{
	size_t guard;
	char *p;

	guard = ar_pages(1);
	size = ar_pages(size);
	if ((p = ar_map(guard + size)) == MAP_FAILED) {
		errno = ENOMEM;
		return (NULL);
	}
	(void)mprotect(p, guard, PROT_NONE);
	return (p + guard);
}

/*
 * The parent's blocks are zeros here (the state too, unless the kernel
 * refused the advice) and its free lists point into them: forget both,
 * and cut new blocks from the first chunk again, with a new mutex, as
 * another thread may have held it at the fork.  Larger blocks of the
 * parent's stay mapped, unused: address space only.
 */
void
procdesc_arena_atfork_child(void)
{
#if PROCDESC_ASAN
	size_t i;
#endif

	pthread_mutex_init(&ar_init_mtx, NULL);
	if (ar == NULL)
		return;
	ar_reset(ar);
#if PROCDESC_ASAN
	AR_POISON(ar_chunk[0] + AR_HDR, ar_chunk_size(0) - AR_HDR);
	for (i = 1; i < AR_NCHUNK && ar_chunk[i] != NULL; i++)
		AR_POISON(ar_chunk[i], ar_chunk_size(i));
#endif
}
