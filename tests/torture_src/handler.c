/*-
 * SPDX-License-Identifier: BSD-2-Clause
 *
 * Copyright (c) 2026 The libprocdesc authors.
 */

/*
 * The 2 ms interval timer and its signal handler, installed without
 * SA_RESTART so that every blocking call of the workers sees EINTR.  The
 * handler calls the library itself on the thread it interrupted:
 * pdgetpid and pdkill(fd, 0) on the descriptors the workers publish in
 * lock-free slots, and pdfork, both where the thread holds nothing and
 * inside a call of the library (which must then succeed or fail with
 * EDEADLK).  What it finds wrong is kept for the report after the run.
 */

#include <sys/procdesc.h>
#include <sys/time.h>
#include <sys/wait.h>

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "torture.h"

const char *const tt_hopname[H_NHOPS] = {
	"none", "pdgetpid", "pdkill0", "pdfork",
};

/* The worker this thread is, NULL on the others: the handler's thread. */
__thread struct tthread *tt_self;

/*
 * Descriptors the signal handler may probe, lock-free: slot i holds
 * gen (12 bits), fd (20 bits) and pid (32 bits), or 0.  A slot is cleared
 * before its descriptor is closed, so a probe that reads the same value
 * before and after its calls used a descriptor that was open throughout.
 */
static _Atomic uint64_t *tt_pub;
static size_t tt_npub;

/* What the handlers did, and the first thing one found wrong. */
static _Atomic unsigned long h_ticks, h_n[H_NHOPS], h_stale, h_edeadlk;
static _Atomic int h_bad;
static struct {
	int	hop, thread, fd, err;
	pid_t	want, got;
	int	status;
} h_badinfo;

/* The slots, one per entry of every thread's table. */
bool
tt_slots_init(void)
{

	tt_npub = (size_t)tt_nthreads * TT_NLIVE;
	tt_pub = calloc(tt_npub, sizeof(*tt_pub));
	return (tt_pub != NULL);
}

/* c's slot. */
static size_t
tt_slot(const struct tthread *t, const struct tchild *c)
{

	return ((size_t)t->idx * TT_NLIVE + (size_t)(c - t->ch));
}

/* c's descriptor may be probed from now on. */
void
tt_publish(struct tthread *t, struct tchild *c)
{
	uint64_t v;

	t->gen = (t->gen + 1) & 0xfff;
	v = ((uint64_t)(t->gen | 0x1000) << 52) |
	    ((uint64_t)(unsigned)c->fd << 32) | (uint32_t)c->pid;
	atomic_store(&tt_pub[tt_slot(t, c)], v);
}

/* No more: c->fd is about to be closed. */
void
tt_unpublish(struct tthread *t, struct tchild *c)
{

	atomic_store(&tt_pub[tt_slot(t, c)], 0);
}

/* The signal handler.  Whatever it finds wrong goes to h_badinfo. */
static void
h_fail(struct tthread *t, int hop, int fd, pid_t want, pid_t got, int err,
    int status)
{
	int zero;

	zero = 0;
	if (atomic_compare_exchange_strong(&h_bad, &zero, 1)) {
		h_badinfo.hop = hop;
		h_badinfo.thread = t->idx;
		h_badinfo.fd = fd;
		h_badinfo.want = want;
		h_badinfo.got = got;
		h_badinfo.err = err;
		h_badinfo.status = status;
		atomic_store(&h_bad, 2);
	}
	atomic_store(&tt_stop, true);
}

/*
 * pdgetpid and pdkill(fd, 0) on a published descriptor of any thread,
 * wherever the timer struck: both take no lock that the interrupted code
 * may hold (NOTES 2.11).  Only a slot unchanged across the calls proves
 * anything.
 */
static void
h_probe(struct tthread *t)
{
	uint64_t v1;
	size_t slot;
	pid_t pid, got;
	int e, e2, fd, r, r2;

	slot = (size_t)(tt_mix(&t->hrng) % tt_npub);
#ifdef __SANITIZE_THREAD__
	/*
	 * Another thread may be closing its descriptor at this moment (the
	 * staleness check below catches that), which TSan reports as a race
	 * on the fd: only this thread's own, which cannot close meanwhile.
	 */
	slot = (size_t)t->idx * TT_NLIVE + slot % TT_NLIVE;
#endif
	if ((v1 = atomic_load(&tt_pub[slot])) == 0)
		return;
	fd = (int)((v1 >> 32) & 0xfffff);
	pid = (pid_t)(uint32_t)v1;
	got = -1;
	atomic_store(&t->hop, H_GETPID);
	errno = TT_ERRNO;
	r = pdgetpid(fd, &got);
	e = errno;
	atomic_store(&t->hop, H_KILL0);
	errno = TT_ERRNO;
	r2 = pdkill(fd, 0);
	e2 = errno;
	atomic_store(&t->hop, H_NONE);
	if (atomic_load(&tt_pub[slot]) != v1) {
		atomic_fetch_add(&h_stale, 1);
		return;
	}
	atomic_fetch_add(&h_n[H_GETPID], 1);
	if (r != 0 || got != pid || e != TT_ERRNO)
		h_fail(t, H_GETPID, fd, pid, got, e, r);
	atomic_fetch_add(&h_n[H_KILL0], 1);
	if (r2 != 0 || e2 != TT_ERRNO)
		h_fail(t, H_KILL0, fd, pid, 0, e2, r2);
}

/*
 * pdfork from the handler: the child exits at once, the handler waits for
 * it and closes it.  EDEADLK is a fair answer when the handler interrupted
 * a call of the library on this thread.
 */
static void
h_pdfork(struct tthread *t)
{
	pid_t pid;
	int e, fd, r, st;

	atomic_store(&t->hop, H_PDFORK);
	errno = TT_ERRNO;
	fd = -1;
	if ((pid = pdfork(&fd, PD_CLOEXEC)) == 0)
		tt_exit(0);
	e = errno;
	tt_pidstore(pid, PK_PD, TT_BY_HANDLER);
	if (pid == -1) {
		if (e == EDEADLK && t->in_lib)
			atomic_fetch_add(&h_edeadlk, 1);
		else
			h_fail(t, H_PDFORK, -1, 0, 0, e, -1);
		atomic_store(&t->hop, H_NONE);
		return;
	}
	st = -1;
	while ((r = pdwait(fd, &st, WEXITED, NULL, NULL)) == -1 &&
	    errno == EINTR)
		;
	e = r == -1 ? errno : 0;
	if (r != 0 || st != 0)
		h_fail(t, H_PDFORK, fd, pid, 0, e, st);
	close(fd);
	atomic_fetch_add(&h_n[H_PDFORK], 1);
	atomic_store(&t->hop, H_NONE);
}

static void
h_alarm(int sig)
{
	struct tthread *t;
	uint64_t r;
	int saved;

	(void)sig;
	saved = errno;
	atomic_fetch_add(&h_ticks, 1);
	if ((t = tt_self) == NULL || atomic_load(&tt_stop)) {
		errno = saved;
		return;
	}
	t->nticks++;
	r = tt_mix(&t->hrng);
	if (t->safe) {
		/* Rare (naps are short): use each. */
		h_probe(t);
		if (r % 2 == 0)
			h_pdfork(t);
	} else {
		if (r % 4 == 0)
			h_probe(t);
		/*
		 * Inside a call of the library, which must then refuse
		 * with EDEADLK or succeed; elsewhere the thread may hold
		 * malloc's locks, which pdfork needs too (NOTES 2.11).
		 */
		if ((r >> 8) % 16 == 0 && t->in_lib)
			h_pdfork(t);
	}
	errno = saved;
}

/* The timer's handler, on the workers only (main blocks SIGALRM). */
void
tt_handler_install(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = h_alarm;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = 0;	/* No SA_RESTART: calls see EINTR. */
	sigaction(SIGALRM, &sa, NULL);
}

/* The interval timer on or off. */
void
tt_timer(bool on)
{
	struct itimerval it;

	memset(&it, 0, sizeof(it));
	if (on) {
		it.it_interval.tv_usec = TT_TICK_US;
		it.it_value.tv_usec = TT_TICK_US;
	}
	setitimer(ITIMER_REAL, &it, NULL);
}

/* The first thing a handler found wrong becomes the run's failure. */
void
tt_report_handler(void)
{
	char a[64];

	if (atomic_load(&h_bad) == 0)
		return;
	while (atomic_load(&h_bad) != 2)
		;
	tt_fail(NULL, "signal handler on thread %d: %s(fd %d) of pid %d: "
	    "returned %d, errno %d (%s), got pid %d%s%s",
	    h_badinfo.thread, tt_hopname[h_badinfo.hop], h_badinfo.fd,
	    (int)h_badinfo.want, h_badinfo.status, h_badinfo.err,
	    strerror(h_badinfo.err), (int)h_badinfo.got,
	    h_badinfo.hop == H_PDFORK ? ", status " : "",
	    h_badinfo.hop == H_PDFORK ? tt_st(h_badinfo.status, a, sizeof(a)) :
	    "");
}

/* The handler's part of the counts line. */
void
tt_handler_summary(char *buf, size_t len)
{
	char ticks[256];
	size_t toff;
	int i;

	toff = 0;
	ticks[0] = '\0';
	for (i = 0; i < tt_nthreads; i++)
		if (toff < sizeof(ticks))
			toff += (size_t)snprintf(ticks + toff,
			    sizeof(ticks) - toff, "%s%lu", i == 0 ? "" : "/",
			    tt_th[i].nticks);
	snprintf(buf, len, "handler: ticks %lu (per thread %s), pdgetpid %lu, "
	    "pdkill0 %lu, pdfork %lu, EDEADLK %lu, stale %lu",
	    atomic_load(&h_ticks), ticks, atomic_load(&h_n[H_GETPID]),
	    atomic_load(&h_n[H_KILL0]), atomic_load(&h_n[H_PDFORK]),
	    atomic_load(&h_edeadlk), atomic_load(&h_stale));
}
