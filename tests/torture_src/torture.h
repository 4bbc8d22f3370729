/*-
 * SPDX-License-Identifier: BSD-2-Clause
 *
 * Copyright (c) 2026 The libprocdesc authors.
 */

/*
 * The torture test: several threads mix every call of the library with the
 * C library's own ways of making processes (fork, vfork, posix_spawn,
 * system, popen), while a 2 ms interval timer, whose handler is installed
 * without SA_RESTART, interrupts all of them and calls the library itself.
 * Every status that comes back is compared with what the child was told to
 * do; at the end no child, zombie or orphan may be left and the open
 * descriptors must be those of the start.
 *
 *   torture [-s seconds] [-S seed] [-t threads]
 *
 * A standalone program, not an ATF one, because CI runs it for 60 s under
 * each sanitizer.  Thread i draws its operations from a generator seeded
 * with seed + i, so a seed replays what each thread chooses as far as the
 * timing allows (not the interleaving, nor where the timer strikes).  The
 * last line says "torture: ok" (exit 0) or "torture: FAIL: why" (exit 1);
 * a thread without progress for TT_HANG_S seconds is a hang: what every
 * thread does is printed, then abort(3) (built with -DTT_HANG_PAUSE the
 * process first waits ten minutes for a debugger).
 *
 * This header owns what the files share: the tunables, the operations and
 * the kinds of children, a thread's table of children, and the tt_*
 * functions and variables of each file.
 *
 *	main.c		options, setup, the threads, the verdict
 *	util.c		clock, generator, failures, progress, pidfd helpers
 *	child.c		what a child (and a fork copy) does
 *	table.c		a thread's children: bookkeeping, waits, verdicts
 *	ops.c		the worker and the operations on descriptors
 *	plain.c		the C library's processes, pdopenpid, waitid check
 *	handler.c	the timer, its signal handler, the published slots
 *	check.c		the run's tag, leftovers, descriptors, hang watchdog
 */

#ifndef _TORTURE_H_
#define	_TORTURE_H_

#include <sys/types.h>

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define	TT_MINTHREADS	4
#define	TT_MAXTHREADS	64
#define	TT_NLIVE	8	/* Children in a thread's table at most. */
#define	TT_NORPHAN	4	/* PD_DAEMON children let go, per thread. */
#define	TT_TICK_US	2000	/* The interval timer. */
#define	TT_LONG_MS	10000	/* Bound on a death, a reap, the final wait. */
#define	TT_HANG_S	30	/* A thread without progress this long hangs. */
#define	TT_FINAL_S	120	/* Bound on the checks after the run. */
#define	TT_LIFE		300	/* alarm(2) of pausing children. */
#define	TT_ERRNO	EXDEV	/* errno before a call; success must keep it. */
#define	TT_NOFD		4000	/* A descriptor number nobody here opens. */
#define	TT_HELD_MS	5	/* A child that must live is watched so long. */
#define	TT_MAXSENTRY	8
#define	TT_TAG_ENV	"TORTURE_RUN"

enum tt_op {
	OP_PDFORK, OP_PDRFORK, OP_RFSPAWN, OP_DUP, OP_REOPEN, OP_CLOSE,
	OP_PDKILL, OP_PDWAIT, OP_PDGETPID, OP_OPENPID, OP_FORK, OP_VFORK,
	OP_SPAWN, OP_SYSTEM, OP_POPEN, OP_WAITID, OP_NAP, OP_DAEMONS,
	OP_STOP, OP_FLIGHT, OP_COPY, OP_NOPS,
	OP_CLEANUP = OP_NOPS	/* Not drawn: the end of a thread's run. */
};

/* What a child does. */
enum tt_kind {
	K_EXIT,		/* _exit(code). */
	K_RAISE,	/* Kills itself with signal code. */
	K_PAUSE,	/* Waits to be killed. */
	K_EXEC,		/* Execs something that exits with code. */
	K_NEST,		/* pdforks a child that exits with code, and
			   exits with it (124, 125: its pdfork, pdwait
			   failed). */
	K_NKINDS
};

/* Handler operations, for the hang report and the counts. */
enum tt_hop { H_NONE, H_GETPID, H_KILL0, H_PDFORK, H_NHOPS };

/* pids the waitid check may meet: what made them. */
enum { PK_NONE, PK_PLAIN, PK_PD, PK_PDEXEC };

/*
 * The pid map's creator of a pid the signal handler's pdfork made (the
 * others are operations).
 */
#define	TT_BY_HANDLER	(OP_NOPS + 1)

struct tchild {
	bool		 used;
	int		 fd;		/* The descriptor, -1 once closed. */
	int		 dup;		/* A second one, or -1. */
	bool		 dup_own;	/* dup is pdopenpid's (PD_DAEMON). */
	pid_t		 pid;
	int		 watch;		/* pidfd_open(2) of a K_PAUSE child. */
	enum tt_kind	 kind;
	int		 code;		/* Exit code, or its signal. */
	uint64_t	 sigs;		/* Signals sent to it, a bit each. */
	bool		 daemon;
	enum tt_op	 how;		/* OP_PDFORK, OP_PDRFORK, OP_RFSPAWN. */
};

/* A PD_DAEMON child whose descriptors are all closed. */
struct torphan {
	pid_t		 pid;
	int		 watch;		/* -1: slot free. */
};

struct tthread {
	int		 idx;
	pthread_t	 td;
	_Atomic pid_t	 tid;
	uint64_t	 rng;
	uint64_t	 hrng;		/* This thread's signal handler's. */
	unsigned int	 gen;		/* Of the slots it publishes. */
	struct tchild	 ch[TT_NLIVE];
	struct torphan	 orph[TT_NORPHAN];
	unsigned long	 n[OP_NOPS];	/* Operations done. */
	enum tt_op	 drawn;		/* The operation under way, */
	bool		 counted;	/* and whether it got to work. */
	unsigned long	 neintr;	/* EINTRs from pdwait. */
	unsigned long	 nclosekill;	/* Deaths by a last close seen. */
	unsigned long	 nwaitid_vague;	/* waitid checks made moot. */
	unsigned long	 nticks;	/* Timer signals this thread took. */
	_Atomic int	 op;		/* What it does now: the hang report. */
	_Atomic pid_t	 oppid;		/* The child it does it to. */
	_Atomic int64_t	 stamp;		/* When it last made progress, ns. */
	_Atomic int	 hop;		/* What its handler does now. */
	_Atomic bool	 done;
	volatile sig_atomic_t in_lib;	/* Inside a call of the library. */
	volatile sig_atomic_t safe;	/* Holds nothing: the handler may. */
};

/*
 * A library call: errno is set to TT_ERRNO first, so that a success that
 * changes errno shows (pdfork(3): none of the calls does).  The signal
 * handler looks at in_lib.
 */
#define	LIB(t, call)	((t)->in_lib = 1, errno = TT_ERRNO, (call))
#define	LIBEND(t)	((t)->in_lib = 0)

/* main.c */
extern uint64_t tt_seed;
extern int tt_nthreads;
extern int64_t tt_deadline;
extern struct tthread *tt_th;

/* util.c */
extern const char *const tt_opname[OP_NOPS + 1];
extern _Atomic bool tt_stop;
extern bool tt_exit_info_ok;
int64_t	tt_now(void);
uint64_t tt_mix(uint64_t *);
unsigned int tt_rand(struct tthread *, unsigned int);
int	tt_randsig(struct tthread *);
void	tt_signals_reset(void);
uint64_t tt_sigbit(int);
const char *tt_st(int, char *, size_t);
const char *tt_want(const struct tchild *, char *, size_t);
void	tt_fail(const struct tthread *, const char *, ...)
	    __attribute__((format(printf, 2, 3)));
const char *tt_first_failure(void);
void	tt_doing(struct tthread *, int, pid_t);
bool	tt_errno_kept(struct tthread *, const char *);
short	tt_poll(int, short, int);
bool	tt_dead_within(int, int);
bool	tt_reaped_within(int, int);
int	tt_exit_info(int, int *);
int	tt_pidfd_open(pid_t);
pid_t	tt_waitpid(pid_t, int *, int);
void	tt_probe_kernel(void);

/* child.c */
void	tt_exit(int) __attribute__((noreturn));
void	tt_kill_self(int);
void	tt_pause(void) __attribute__((noreturn));
void	tt_child(bool, enum tt_kind, int, char *const *)
	    __attribute__((noreturn));
int	tt_copy_ops(int, pid_t, int);

/* table.c */
bool	tt_determinate(const struct tchild *);
struct tchild *tt_pick(struct tthread *);
struct tchild *tt_pick_running(struct tthread *);
struct tchild *tt_free_entry(struct tthread *);
int	tt_anyfd(struct tthread *, const struct tchild *);
void	tt_close_fd(struct tthread *, struct tchild *, int *);
void	tt_end(struct tthread *, struct tchild *);
void	tt_check_getpid(struct tthread *, int, pid_t);
int	tt_pdwait(struct tthread *, const struct tchild *, int, int, int *);
void	tt_wait_end(struct tthread *, struct tchild *, int);
void	tt_finish(struct tthread *, struct tchild *);
void	tt_kill_orphan(struct tthread *, struct torphan *);

/* ops.c */
void	*tt_worker(void *);

/* plain.c */
bool	tt_pidmap_init(void);
void	tt_pidstore(pid_t, int, int);
void	tt_pidset(pid_t, int, int);
void	tt_untracked(bool);
void	tt_reap_plain(struct tthread *, pid_t, int, const char *);
void	tt_op_openpid(struct tthread *);
void	tt_op_fork(struct tthread *, bool);
void	tt_op_spawn(struct tthread *);
void	tt_op_system(struct tthread *);
void	tt_op_popen(struct tthread *);
void	tt_op_waitid(struct tthread *);

/* handler.c */
extern const char *const tt_hopname[H_NHOPS];
extern __thread struct tthread *tt_self;
bool	tt_slots_init(void);
void	tt_publish(struct tthread *, struct tchild *);
void	tt_unpublish(struct tthread *, struct tchild *);
void	tt_handler_install(void);
void	tt_timer(bool);
void	tt_report_handler(void);
void	tt_handler_summary(char *, size_t);

/* check.c */
void	tt_tag_run(char **);
int	tt_leftovers(int *, char *, size_t, bool);
void	tt_fds(char *, size_t);
void	tt_final_checks(const char *);
bool	tt_watchdog_start(void);
void	tt_watchdog_final(void);
void	tt_watchdog_stop(void);

#endif /* !_TORTURE_H_ */
