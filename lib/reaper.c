/*-
 * SPDX-License-Identifier: BSD-2-Clause
 *
 * Copyright (c) 2026 The libprocdesc authors.
 */

/*
 * The reaper: the library's only thread in the owner.  It reaps every
 * pdfork child as soon as it exits, so that no zombie is left, and asks
 * the child's guardian to put the status on the descriptor (PG_EXITED):
 * that raises POLLHUP there, for every holder.
 *
 * It holds no descriptor, so an application that closes every descriptor
 * (closefrom(3)) cannot blind it: it sleeps in waitid(P_ALL, __WALL |
 * WNOWAIT), which reports any child's exit without reaping it, and reaps
 * the ones that are ours.  (__WCLONE alone would miss children that
 * exec'd: exec resets the exit signal to SIGCHLD.)  Our guardians are our
 * children too: when one dies, every child it guarded is killed (fail
 * closed), since nobody would see its last close any more.  A child that
 * is not ours stays for its owner to reap; while such a zombie waits,
 * waitid would report it again at once, so the thread then checks each of
 * our children itself and sleeps until pdfork kicks it, or for
 * PROCDESC_RECHECK_NS.  With no child at all it sleeps until pdfork kicks
 * it.
 */

#include <sys/wait.h>

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <time.h>

#include "procdesc_impl.h"
#include "syscall.h"

/*
 * The thread's stack: its deepest call (a reap that reads /proc/PID/stat
 * for a stalled guardian) needs a few KiB, and glibc's default would
 * reserve 8 MiB of address space per owner for nothing.
 */
#define	RP_STACK	(64 * 1024)

static bool rp_running;			/* (l) The thread exists. */
static unsigned long rp_gen;		/* (l) Bumped by every kick. */
static pthread_cond_t rp_cv;		/* (l) A kick; monotonic. */

/* Before the thread can wait on it. */
static void __attribute__((constructor))
rp_init(void)
{

	procdesc_cond_init(&rp_cv);
}

/*
 * A zombie that is not in the registry: one of ours not yet registered
 * (procdesc.c kicks us when it is) or the application's, which it
 * will reap.  Wait for a kick, at most PROCDESC_RECHECK_NS, then look
 * again; mtx held.
 */
static void
rp_wait_kick(unsigned long gen)
{
	struct timespec ts;

	PROCDESC_ASSERT_LOCKED();
	procdesc_recheck_deadline(&ts);
	while (rp_gen == gen)
		if (pthread_cond_timedwait(&rp_cv, &procdesc_mtx,
		    &ts) == ETIMEDOUT)
			break;
}

/*
 * Reap pd, whose exit waitid(WNOWAIT) reported in *si, and have its
 * guardian record it; mtx held.  A guardian that cannot be told (dead, or
 * its socket full) takes no new child, and is killed if it is stopped,
 * which fails its children closed; the status then stays here for the
 * owner's pdwait.
 */
static void
rp_reap(struct procdesc *pd, siginfo_t *si)
{
	struct rusage ru;
	siginfo_t si2;

	PROCDESC_ASSERT_LOCKED();
	memset(&ru, 0, sizeof(ru));
	memset(&si2, 0, sizeof(si2));
	if (sys_waitid(P_PID, pd->pd_pid, &si2, WEXITED | WNOHANG | __WALL,
	    &ru) == 0 && si2.si_pid == pd->pd_pid)
		*si = si2;
	/* Else somebody reaped it behind our back: keep what WNOWAIT saw. */
	if (!pd->pd_lost && procdesc_guardian_exited(pd->pd_guardian, pd, si,
	    &ru) != 0) {
		procdesc_guardian_stalled(pd->pd_guardian);
		pd->pd_lost = true;
	}
	pd->pd_si = *si;
	pd->pd_ru = ru;
	pd->pd_reaped = true;
	if (!pd->pd_lost) {
		procdesc_guardian_hold(pd->pd_guardian, -1);
		procdesc_linger(pd, procdesc_now());
	}
	pthread_cond_broadcast(&procdesc_reap_cv);
}

/* A child of dead guardian *arg: kill it, nobody guards it; mtx held. */
static void
rp_orphan(struct procdesc *pd, void *arg)
{

	PROCDESC_ASSERT_LOCKED();
	if (pd->pd_guardian != *(int *)arg || pd->pd_reaped)
		return;
	pd->pd_lost = true;
	/* Unreaped, and only we reap it: the pid is still its own. */
	(void)kill(pd->pd_pid, SIGKILL);
}

/*
 * Reap guardian idx, which exited, and fail its children closed; mtx
 * held, so that no registration picks it meanwhile.
 */
static void
rp_guardian(int idx, pid_t pid)
{
	siginfo_t si;

	PROCDESC_ASSERT_LOCKED();
	memset(&si, 0, sizeof(si));
	(void)sys_waitid(P_PID, pid, &si, WEXITED | WNOHANG | __WALL, NULL);
	procdesc_guardian_died(idx);
	procdesc_foreach(rp_orphan, &idx);
}

/*
 * Reap pd if it is a child of ours that has exited; mtx held.  Also for
 * the owner's pdwait, woken by the exit before this thread.
 */
bool
procdesc_reaper_reap(struct procdesc *pd)
{
	siginfo_t si;

	PROCDESC_ASSERT_LOCKED();
	if (pd->pd_reaped)
		return (true);
	memset(&si, 0, sizeof(si));
	if (sys_waitid(P_PID, pd->pd_pid, &si, WEXITED | WNOHANG | WNOWAIT |
	    __WALL, NULL) != 0 || si.si_pid != pd->pd_pid)
		return (false);
	rp_reap(pd, &si);
	return (true);
}

static void
rp_sweep(struct procdesc *pd, void *arg)
{

	(void)arg;
	(void)procdesc_reaper_reap(pd);
}

static void *
rp_main(void *arg)
{
	struct procdesc *pd;
	unsigned long gen;
	siginfo_t si;
	int idx, r;

	(void)arg;
	for (;;) {
		/* A kick after this read makes the sleeps below return. */
		procdesc_lock();
		gen = rp_gen;
		procdesc_unlock();
		memset(&si, 0, sizeof(si));
		r = sys_waitid(P_ALL, 0, &si, WEXITED | WNOWAIT | __WALL,
		    NULL);
		procdesc_lock();
		if (r == -1 && errno == ECHILD) {
			/* No child at all: sleep until pdfork kicks. */
			while (rp_gen == gen)
				pthread_cond_wait(&rp_cv, &procdesc_mtx);
		} else if (r == 0 && si.si_pid != 0) {
			if ((pd = procdesc_find_pid(si.si_pid)) != NULL) {
				rp_reap(pd, &si);
				procdesc_expire(procdesc_now());
			} else if ((idx = procdesc_guardian_find_pid(
			    si.si_pid)) != -1)
				rp_guardian(idx, si.si_pid);
			else {
				procdesc_foreach(rp_sweep, NULL);
				rp_wait_kick(gen);
			}
		}
		procdesc_unlock();
	}
	return (NULL);
}

/*
 * Start the reaper unless it runs: all signals blocked, so that it never
 * runs an application handler, and a small stack.
 */
int
procdesc_reaper_start(void)
{
	pthread_attr_t attr;
	pthread_t td;
	sigset_t all, old;
	int error;

	procdesc_lock();
	if (rp_running) {
		procdesc_unlock();
		return (0);
	}
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, RP_STACK);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	error = pthread_create(&td, &attr, rp_main, NULL);
	pthread_attr_destroy(&attr);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (error == 0)
		rp_running = true;
	procdesc_unlock();
	return (error);
}

/* A child was registered or reaped elsewhere: look again; mtx held. */
void
procdesc_reaper_kick(void)
{

	PROCDESC_ASSERT_LOCKED();
	rp_gen++;
	pthread_cond_broadcast(&rp_cv);
}

/* In a forked copy: the thread did not survive the fork. */
void
procdesc_reaper_child(void)
{

	rp_running = false;
	rp_gen = 0;
	procdesc_cond_init(&rp_cv);	/* The copy counts the thread's wait. */
}
