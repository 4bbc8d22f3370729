/*-
 * SPDX-License-Identifier: BSD-2-Clause
 *
 * Copyright (c) 2026 The libprocdesc authors.
 */

/*
 * Private interfaces between the library's files (style(9)'s "extern.h").
 *
 * Every call points down:
 *
 *	procdesc.c (public calls) -- orchestrates
 *	  |-- fork.c             glibc's fork with its clone trapped
 *	  |-- guardian_client.c  talks to procdesc-guardian; never touches
 *	  |                      the registry
 *	  |-- reaper.c           the reaper thread: reaps, reports into the
 *	  |                      registry, asks the client to send PG_EXITED
 *	  |-- descriptor.c       what the kernel says of a descriptor/pidfd
 *	  `-- registry.c         a plain table: no system call, no call out
 *
 * Lock order: procdesc_fork_mtx (fork.c) before procdesc_mtx (registry.c).
 * procdesc_mtx guards the registry, every struct procdesc field marked (l),
 * the reaper's state and the guardian table.
 */

#ifndef _PROCDESC_IMPL_H_
#define	_PROCDESC_IMPL_H_

#include <sys/resource.h>
#include <sys/types.h>

#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#define	PROCDESC_HIDDEN	__attribute__((visibility("hidden")))
/* Thread-local, without a call to find it (signal handlers read it). */
#define	PROCDESC_TLS	__thread __attribute__((tls_model("initial-exec")))

/*
 * Code that runs inside glibc's fork(), where a thread sanitizer holds its
 * own locks (its fork handler): not instrumented, and calling nothing a
 * sanitizer intercepts (no memset or memcpy; compat/syscall.h's raw
 * wrappers only).
 */
#if __has_attribute(disable_sanitizer_instrumentation)
#define	PROCDESC_NOSAN	__attribute__((disable_sanitizer_instrumentation))
#else
#define	PROCDESC_NOSAN	__attribute__((no_sanitize("thread")))
#endif

struct pg_msg;

/*
 * One pdfork child of this process, from pdfork until a moment after its
 * reap (PROCDESC_LINGER_NS, while its record is on the way to the
 * descriptor: the owner's pdwait reads the status here meanwhile), or, if
 * its guardian died, until the process exits (nobody can tell the last
 * close any more).
 *
 * Locking key: (c) constant after procdesc_insert(), (l) procdesc_mtx.
 */
struct procdesc {
	struct procdesc	*pd_pnext;	/* (l) Chain by pid. */
	struct procdesc	*pd_inext;	/* (l) Chain by id. */
	struct procdesc	*pd_lnext;	/* (l) Lingering after the reap. */
	int64_t		 pd_reaped_at;	/* (l) CLOCK_MONOTONIC ns. */
	uint64_t	 pd_id;		/* (c) The descriptor's id. */
	uint64_t	 pd_tag;	/* (c) Its name's identity tag, */
	char		 pd_kind;	/* (c) of this kind ('i' or 't'). */
	pid_t		 pd_pid;	/* (c) */
	int		 pd_flags;	/* (c) PD_* given at creation. */
	int		 pd_guardian;	/* (c) Index in the guardian table. */
	bool		 pd_lost;	/* (l) Its guardian died. */
	bool		 pd_reaped;	/* (l) pd_si and pd_ru are valid. */
	siginfo_t	 pd_si;		/* (l) Exit, once reaped. */
	struct rusage	 pd_ru;		/* (l) */
};

/* What a descriptor's name says (descriptor.c). */
struct procdesc_name {
	pid_t		 pn_pid;
	char		 pn_kind;	/* 'i': pidfs inode, 't': start time. */
	uint64_t	 pn_tag;
	uint64_t	 pn_id;
};

/*
 * What the new child needs to register itself with its guardian before it
 * runs any code of the application (guardian_client.c).
 */
struct procdesc_childreq {
	int		 cr_ctl;	/* The guardian's control socket. */
	int		 cr_a;		/* The user's descriptor. */
	int		 cr_b;		/* Its peer, for the guardian. */
	uint32_t	 cr_flags;	/* PD_* | PG_CHILD. */
	uint64_t	 cr_id;
};

extern pthread_mutex_t procdesc_mtx PROCDESC_HIDDEN;
extern pthread_cond_t procdesc_reap_cv PROCDESC_HIDDEN;	/* A reap. */

/* Units of the CLOCK_MONOTONIC nanoseconds the library counts in. */
#define	PROCDESC_NS_PER_S	1000000000LL
#define	PROCDESC_NS_PER_MS	1000000LL
#define	PROCDESC_MS_PER_S	1000

/*
 * How often a wait for what may never be signalled looks again: seldom
 * enough to cost nothing while an application's zombie waits for its
 * owner, soon enough that a missed wake-up is not felt.
 */
#define	PROCDESC_RECHECK_NS	(100 * PROCDESC_NS_PER_MS)

/*
 * How long a reaped entry stays for the owner's pdwait, while the record
 * is on its way to the descriptor: the trip through the guardian takes
 * microseconds, a second allows for a loaded machine.
 */
#define	PROCDESC_LINGER_NS	(1 * PROCDESC_NS_PER_S)

/*
 * The first size of a hash table by pid or id (registry.c, the
 * guardian): 512 bytes of chain heads on 64-bit, room for a typical
 * owner's children; tables double as they fill.
 */
#define	PROCDESC_HASH_MIN	64

/*
 * /proc/PID/stat (proc(5)): the fields read, and a buffer that holds
 * every field up to the start time (pid, a 16-byte comm, 19 numbers of
 * at most 20 digits: under 512 bytes); what is cut off after it is
 * never read.
 */
#define	PROCDESC_STAT_STATE	3
#define	PROCDESC_STAT_STARTTIME	22
#define	PROCDESC_STAT_LEN	1024

/* The exit status of a child whose exec failed: the shell's, glibc's. */
#define	PROCDESC_EXIT_NOEXEC	127

/* CLOCK_MONOTONIC in nanoseconds: no change of the date moves it. */
static inline int64_t
procdesc_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ((int64_t)ts.tv_sec * PROCDESC_NS_PER_S + ts.tv_nsec);
}

/*
 * The deadline, for a timed wait on one of our condition variables
 * (CLOCK_MONOTONIC, procdesc_cond_init()), of a wait for something that
 * may never be signalled: PROCDESC_RECHECK_NS from now.
 */
static inline void
procdesc_recheck_deadline(struct timespec *ts)
{
	int64_t t;

	t = procdesc_now() + PROCDESC_RECHECK_NS;
	ts->tv_sec = (time_t)(t / PROCDESC_NS_PER_S);
	ts->tv_nsec = (long)(t % PROCDESC_NS_PER_S);
}

/*
 * splitmix64's finaliser (Steele, Lea and Flood, 2014; the constants are
 * its published ones): every bit of key moves about half of the result's
 * bits, so that sequential pids and ids fill a table's buckets evenly.
 */
static inline uint64_t
procdesc_mix64(uint64_t key)
{

	key ^= key >> 30;
	key *= 0xbf58476d1ce4e5b9ULL;
	key ^= key >> 27;
	key *= 0x94d049bb133111ebULL;
	key ^= key >> 31;
	return (key);
}

/*
 * A debug build (make DEBUG=1) checks every "mtx held" and "mtx not held"
 * rule of the library, and exports procdesc_debug_entries() for the
 * tests' leak check.  "Not held" is this thread's view: procdesc_mtx is
 * not recursive, and whoever waits must not make the reaper wait.
 */
#ifdef PROCDESC_DEBUG
#include <assert.h>
#define	PROCDESC_ASSERT_LOCKED()	assert(procdesc_locked())
#define	PROCDESC_ASSERT_UNLOCKED()	assert(!procdesc_locked())
int	procdesc_debug_entries(void) __attribute__((visibility("default")));
#else
#define	PROCDESC_ASSERT_LOCKED()	((void)0)
#define	PROCDESC_ASSERT_UNLOCKED()	((void)0)
#endif

/* registry.c: procdesc_mtx, held by this thread or not. */
void	procdesc_lock(void) PROCDESC_HIDDEN;
void	procdesc_unlock(void) PROCDESC_HIDDEN;
bool	procdesc_trylock(void) PROCDESC_HIDDEN;
bool	procdesc_locked(void) PROCDESC_HIDDEN;
void	procdesc_lock_child(bool held) PROCDESC_HIDDEN;
void	procdesc_cond_init(pthread_cond_t *cv) PROCDESC_HIDDEN;

/* registry.c: the children, by pid and by id; procdesc_mtx held. */
int	procdesc_reserve(void) PROCDESC_HIDDEN;
int	procdesc_insert(struct procdesc *pd) PROCDESC_HIDDEN;
void	procdesc_linger(struct procdesc *pd, int64_t now) PROCDESC_HIDDEN;
void	procdesc_expire(int64_t now) PROCDESC_HIDDEN;
void	procdesc_remove(struct procdesc *pd) PROCDESC_HIDDEN;
struct procdesc *procdesc_find_pid(pid_t pid) PROCDESC_HIDDEN;
struct procdesc *procdesc_find_id(uint64_t id) PROCDESC_HIDDEN;
struct procdesc *procdesc_find_proc(pid_t pid, char kind, uint64_t tag)
	    PROCDESC_HIDDEN;
void	procdesc_foreach(void (*fn)(struct procdesc *, void *), void *arg)
	    PROCDESC_HIDDEN;
void	procdesc_registry_child(void) PROCDESC_HIDDEN;	/* A new process. */

/* descriptor.c: kernel facts about a descriptor or a pidfd. */
int	procdesc_desc_name(int fd, struct procdesc_name *np) PROCDESC_HIDDEN;
int	procdesc_desc_bind(int a, pid_t pid, int pidfd, uint64_t id,
	    struct procdesc_name *np) PROCDESC_HIDDEN;
int	procdesc_desc_pidfd(const struct procdesc_name *np, int *pidfdp)
	    PROCDESC_HIDDEN;
int	procdesc_desc_record(int fd, struct pg_msg *m) PROCDESC_HIDDEN;
int	procdesc_pidfd_pid(int pidfd, pid_t *pidp) PROCDESC_HIDDEN;
const char *procdesc_proc_stat(pid_t pid, int n, char *buf, size_t len)
	    PROCDESC_HIDDEN;

/* kernel.c: what the kernel must have. */
int	procdesc_kernel_ok(void) PROCDESC_HIDDEN;

/*
 * reaper.c: the reaper thread, started on first use (procdesc_mtx not
 * held); a kick and a reap with procdesc_mtx held.
 */
int	procdesc_reaper_start(void) PROCDESC_HIDDEN;
void	procdesc_reaper_kick(void) PROCDESC_HIDDEN;
bool	procdesc_reaper_reap(struct procdesc *pd) PROCDESC_HIDDEN;
void	procdesc_reaper_child(void) PROCDESC_HIDDEN;	/* A new process. */

/* guardian_client.c: the guardian table; procdesc_mtx held. */
void	procdesc_guardian_hold(int idx, int delta) PROCDESC_HIDDEN;
int	procdesc_guardian_find_pid(pid_t pid) PROCDESC_HIDDEN;
void	procdesc_guardian_died(int idx) PROCDESC_HIDDEN;
void	procdesc_guardian_stalled(int idx) PROCDESC_HIDDEN;
int	procdesc_guardian_exited(int idx, const struct procdesc *pd,
	    const siginfo_t *si, const struct rusage *ru) PROCDESC_HIDDEN;
void	procdesc_guardian_release(int idx) PROCDESC_HIDDEN;

/* guardian_client.c: procdesc_mtx not held, for they wait for a guardian. */
int	procdesc_guardian_pick(int *idxp, int *sockp) PROCDESC_HIDDEN;
int	procdesc_guardian_ack(int a) PROCDESC_HIDDEN;

/* guardian_client.c: held or not (it never waits, nor reads the table). */
int	procdesc_guardian_send(int sock, uint64_t id, pid_t pid, int flags,
	    int b, int pidfd) PROCDESC_HIDDEN;

/* guardian_client.c: in a new process, whose only thread is ours. */
void	procdesc_guardian_child(void) PROCDESC_HIDDEN;
void	procdesc_child_register(const struct procdesc_childreq *cr)
	    PROCDESC_HIDDEN PROCDESC_NOSAN;

/* fork.c: glibc's fork() with its clone turned into clone3(CLONE_PIDFD). */
int	procdesc_fork_clone(const struct procdesc_childreq *cr, pid_t *pidp,
	    int *pidfdp) PROCDESC_HIDDEN;
int	procdesc_fork_spawn(const struct procdesc_childreq *cr, pid_t *pidp,
	    int *pidfdp) PROCDESC_HIDDEN;

#endif /* !_PROCDESC_IMPL_H_ */
