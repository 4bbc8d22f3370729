/*-
 * SPDX-License-Identifier: BSD-2-Clause
 *
 * Copyright (c) 2026 The libprocdesc authors.
 */

/*
 * Section 5: many live children.  First n fork children (for
 * information); then rounds, each of n fork() children whose pidfds
 * (pidfd_open) are kept, what a user would otherwise write: a full C
 * library fork child and a descriptor each, as a pdfork child is; then n
 * raw clone3(CLONE_PIDFD) children, whose child runs nothing (a second
 * line, without a goal); each made and collected; then n pdfork children.
 * Each round gives one ratio of the per-child costs to each baseline,
 * whose median and upper quartile are reported (the goal, on
 * fork+pidfd_open, is on the quartile).  The first round is looked at
 * closely: per-child cost per twentieth (the plot of cost against live children),
 * the owner's RSS, threads and descriptors, the guardians' RSS and
 * threads, CPU used by both over an idle period, and the time from
 * closing every descriptor to every child dead and reaped.
 *
 * Section 6: the limit.  An owner with RLIMIT_NOFILE LIM_NOFILE makes
 * pdfork children until n exist or pdfork fails; close-kill on a random
 * sample of them; the guardians' number, RSS and threads and the pids
 * used per child; pdfork past the descriptor limit must fail with EMFILE
 * or EAGAIN and leave no child; then everything is closed and reaped.
 *
 * Resources are checked first: descriptors (RLIMIT_NOFILE, raised when
 * the hard limit or privilege allows), and for section 5 pids and threads
 * (a guardian may keep one thread per child).  Where the machine cannot,
 * the section is skipped with a message saying why.  Making children
 * stops early, with a message, when MemAvailable falls below SC_MEM_FLOOR
 * (each pdfork child may hold megabytes of private copies), when fewer
 * than SC_PID_RESERVE pids would be left to the machine's other users,
 * when section 5's time budget is spent (section 6 has none: it stops on
 * its count and reports the rate), or when a spawn fails.
 */

#include <sys/resource.h>
#include <sys/wait.h>

#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sys/procdesc.h"
#include "syscall.h"
#include "bench.h"

#define	SC_BUCKETS	20
#define	SEC		1000000000LL

struct scale {
	size_t	 sc_n;
	pid_t	*sc_pid;
	int	*sc_fd;
	double	 sc_us[SC_BUCKETS];	/* us per child, per twentieth. */
	int64_t	 sc_total;		/* ns to create all. */
	long	 sc_memkb;		/* MemAvailable drop, KiB. */
	int64_t	 sc_gone;		/* ns from kill/close to all reaped. */
	long	 sc_dirty;		/* Last child's Private_Dirty, KiB. */
	int	 sc_errno;		/* Why a spawn failed, or 0. */
};

/*
 * Stop making children when MemAvailable falls below this (KiB): every
 * child may hold private copies of its parent's pages.
 */
#define	SC_MEM_FLOOR	(3L * 1024 * 1024)
/*
 * Stop when fewer pids than this would be left below kernel.pid_max:
 * running the machine out of pids would fail everybody's fork, not only
 * ours (a guardian with a thread per child takes two pids per child).
 */
#define	SC_PID_RESERVE	2000

/* Section 6: the owner's descriptor limit, the close-kill sample. */
#define	LIM_NOFILE	20000
#define	LIM_SAMPLE	100
/*
 * Descriptors left free before pdfork goes past the limit: a few, so that
 * pdfork fails part-way through its own descriptors rather than at the
 * first; and how many pdforks may succeed before one must fail.
 */
#define	LIM_FREE	8
#define	LIM_TRIES	64

static long
read_long(const char *path)
{
	FILE *fp;
	long v;

	if ((fp = fopen(path, "re")) == NULL)
		return (-1);
	if (fscanf(fp, "%ld", &v) != 1)
		v = -1;
	fclose(fp);
	return (v);
}

/* Tasks (threads) in the system now, from /proc/loadavg. */
static long
tasks_now(void)
{
	FILE *fp;
	long run, all;

	if ((fp = fopen("/proc/loadavg", "re")) == NULL)
		return (-1);
	if (fscanf(fp, "%*f %*f %*f %ld/%ld", &run, &all) != 2)
		all = -1;
	fclose(fp);
	return (all);
}

/*
 * RLIMIT_NOFILE at least want, or exactly want: raised (or set) when the
 * hard limit or privilege allows.
 */
static bool
nofile_set(rlim_t want, bool exact)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) == -1)
		err(1, "getrlimit");
	if (rl.rlim_cur == want || (rl.rlim_cur > want && !exact))
		return (true);
	rl.rlim_cur = want;
	if (rl.rlim_max < want)
		rl.rlim_max = want;
	if (setrlimit(RLIMIT_NOFILE, &rl) == -1) {
		out_printf("  skipped: RLIMIT_NOFILE cannot be set to %lu "
		    "(%s)\n", (unsigned long)want, strerror(errno));
		return (false);
	}
	out_printf("  RLIMIT_NOFILE set to %lu\n", (unsigned long)want);
	return (true);
}

/* Can this machine hold n more children and n guardian threads? */
static bool
scale_fits(size_t n)
{
	struct rlimit rl;
	long pidmax, thrmax, tasks;

	if (!nofile_set((rlim_t)n + 256, false))
		return (false);
	pidmax = read_long("/proc/sys/kernel/pid_max");
	thrmax = read_long("/proc/sys/kernel/threads-max");
	tasks = tasks_now();
	if (pidmax > 0 && tasks > 0 &&
	    (size_t)(pidmax - tasks) < 2 * n + SC_PID_RESERVE) {
		out_printf("  skipped: kernel.pid_max %ld with %ld tasks "
		    "leaves no room for %zu children and %zu guardian "
		    "threads\n", pidmax, tasks, n, n);
		return (false);
	}
	if (thrmax > 0 && tasks > 0 &&
	    (size_t)(thrmax - tasks) < 2 * n + 500) {
		out_printf("  skipped: kernel.threads-max %ld is too low\n",
		    thrmax);
		return (false);
	}
	if (getrlimit(RLIMIT_NPROC, &rl) == 0 && rl.rlim_cur !=
	    RLIM_INFINITY && geteuid() != 0 && rl.rlim_cur < 2 * n + 500) {
		out_printf("  skipped: RLIMIT_NPROC %lu is too low\n",
		    (unsigned long)rl.rlim_cur);
		return (false);
	}
	return (true);
}

/* Why scale_make() stops early. */
enum stop {
	ST_NONE,
	ST_MEM,
	ST_PIDS,
	ST_TIME,
	ST_SPAWN
};

static enum stop
scale_stop(int64_t start, int budget, long pidmax)
{
	long mem, tasks;

	if ((mem = mem_available_kb()) >= 0 && mem < SC_MEM_FLOOR)
		return (ST_MEM);
	if (pidmax > 0 && (tasks = tasks_now()) > 0 &&
	    tasks > pidmax - SC_PID_RESERVE)
		return (ST_PIDS);
	if (budget > 0 && now_ns() - start > budget * SEC)
		return (ST_TIME);
	return (ST_NONE);
}

/*
 * Make sc->sc_n paused children of kind k, timing each twentieth.  Stop
 * early, lowering sc_n, should the machine run short of memory or pids,
 * the budget (seconds; 0: none) be spent, or a spawn fail (sc_errno).
 */
static void
scale_make(struct scale *sc, enum kind k, const char *name, int budget)
{
	size_t b, i, lo, hi, made;
	int64_t start, t0, t;
	long mem0, pidmax;
	enum stop why;

	mem0 = mem_available_kb();
	pidmax = read_long("/proc/sys/kernel/pid_max");
	why = ST_NONE;
	start = now_ns();
	sc->sc_total = 0;
	sc->sc_errno = 0;
	for (b = 0; b < SC_BUCKETS; b++) {
		lo = sc->sc_n * b / SC_BUCKETS;
		hi = sc->sc_n * (b + 1) / SC_BUCKETS;
		t0 = now_ns();
		for (i = lo; i < hi; i++) {
			if ((sc->sc_pid[i] = spawn_try(k,
			    &sc->sc_fd[i])) == -1) {
				sc->sc_errno = errno;
				why = ST_SPAWN;
				break;
			}
			if (i % 64 == 0 &&
			    (why = scale_stop(start, budget, pidmax)) !=
			    ST_NONE) {
				i++;
				break;
			}
		}
		t = now_ns() - t0;
		sc->sc_total += t;
		if (i > lo)
			sc->sc_us[b] = (double)t / 1e3 / (double)(i - lo);
		if (why == ST_NONE)
			continue;
		made = i;
		switch (why) {
		case ST_MEM:
			out_printf("  STOPPED %s at %zu children: MemAvailable "
			    "below the %ld MiB floor\n", name, made,
			    SC_MEM_FLOOR / 1024);
			break;
		case ST_PIDS:
			out_printf("  STOPPED %s at %zu children: fewer than "
			    "%d pids left below kernel.pid_max %ld\n", name,
			    made, SC_PID_RESERVE, pidmax);
			break;
		case ST_TIME:
			out_printf("  STOPPED %s at %zu children: not done "
			    "after %d s\n", name, made, budget);
			break;
		default:
			out_printf("  %s FAILED after %zu children: %s\n",
			    name, made, strerror(sc->sc_errno));
			break;
		}
		sc->sc_n = made;
		if (i == lo)
			sc->sc_us[b] = NAN;
		for (b++; b < SC_BUCKETS; b++)
			sc->sc_us[b] = NAN;
		break;
	}
	/* Let the last child run its atfork handlers before looking. */
	sleep_ns(SEC / 5);
	sc->sc_memkb = mem0 - mem_available_kb();
	sc->sc_dirty = sc->sc_n == 0 ? -1 : proc_field(
	    sc->sc_pid[sc->sc_n - 1], "smaps_rollup", "Private_Dirty:");
}

/*
 * Close every descriptor; ns until no child but the guardians is left,
 * dead or alive, or -1 after timeout ns.
 */
static int64_t
scale_close_pd(struct scale *sc, const struct guardians *gs,
    int64_t timeout)
{
	int64_t t0;
	size_t i;

	t0 = now_ns();
	for (i = 0; i < sc->sc_n; i++)
		if (sc->sc_fd[i] != -1)
			close(sc->sc_fd[i]);
	while (children_count(getpid(), gs) != 0) {
		if (now_ns() - t0 > timeout)
			return (-1);
		sleep_ns(1000000);
	}
	return (now_ns() - t0);
}

/* Mean cost of making one child, in ns. */
static double
per_child(const struct scale *sc)
{

	return (sc->sc_n == 0 ? NAN : (double)sc->sc_total / (double)sc->sc_n);
}

static void
scale_plotdata(const struct scale *pd, const struct scale *fk,
    const struct scale *cl)
{
	char path[512];
	FILE *fp;
	size_t b;

	snprintf(path, sizeof(path), "%s/scale.csv", out_dir());
	if ((fp = fopen(path, "w")) == NULL) {
		warn("%s", path);
		return;
	}
	fprintf(fp, "live_children,pdfork_us_per_child,fork_us_per_child,"
	    "clone3_us_per_child\n");
	for (b = 0; b < SC_BUCKETS; b++)
		fprintf(fp, "%zu,%.2f,%.2f,%.2f\n",
		    pd->sc_n * (2 * b + 1) / (2 * SC_BUCKETS), pd->sc_us[b],
		    fk->sc_us[b], cl->sc_us[b]);
	fclose(fp);
}

/* The owner and its guardians before and after the pdfork children. */
struct usage {
	long	u_rss;			/* Owner VmRSS, KiB. */
	long	u_fds;
	long	u_threads;
	size_t	u_ng;			/* Guardians. */
	long	u_grss;			/* Their VmRSS, KiB, summed. */
	long	u_gthreads;		/* Their threads, summed. */
};

static void
usage_read(struct usage *u, const struct guardians *gs)
{

	u->u_rss = proc_status(getpid(), "VmRSS:");
	u->u_fds = proc_nfds(getpid());
	u->u_threads = proc_status(getpid(), "Threads:");
	u->u_ng = gs->gs_n;
	u->u_grss = guardians_status(gs, "VmRSS:");
	u->u_gthreads = guardians_status(gs, "Threads:");
}

/*
 * The guardians of this owner once the last children are registered: new
 * ones may have started on the way.
 */
static void
guardians_refind(struct guardians *gs)
{
	const char *how;

	if (guardians_find(getpid(), gs, &how) == 0)
		out_printf("  note: no guardian found\n");
	if (guardians_quiet(gs, 60 * SEC) == -1)
		out_printf("  note: the guardians still busy after 60 s\n");
}

static void
scale_report(const struct scale *pd, const struct scale *fk,
    const struct scale *cl, const struct usage *u0, const struct usage *u1,
    double idle_o, double idle_g, int idle_s)
{
	char name[64];
	double n, v, b;

	n = (double)pd->sc_n;
	b = pd->sc_us[SC_BUCKETS - 1];
	if (!isnan(b)) {
		snprintf(name, sizeof(name), "pdfork: per-child cost, last %zu",
		    pd->sc_n - pd->sc_n * (SC_BUCKETS - 1) / SC_BUCKETS);
		out_val(name, 1e3 * b, "ns", "clone3",
		    1e3 * cl->sc_us[SC_BUCKETS - 1], NULL, V_NONE);
	}
	v = (double)(u1->u_rss - u0->u_rss) / n;
	out_val("owner RSS per live child", v, "KiB", NULL, NAN,
	    "<= 16 KiB", out_goal(v <= 16));
	v = (double)(u1->u_fds - u0->u_fds) / n;
	out_val("owner fds per live child", v, "fds", NULL, NAN, "<= 2",
	    out_goal(v <= 2));
	out_val("owner library threads", (double)(u1->u_threads - 1),
	    "threads", NULL, NAN, "<= 1", out_goal(u1->u_threads - 1 <= 1));
	out_val("guardians", (double)u1->u_ng, "", NULL, NAN, NULL, V_NONE);
	out_val("guardian RSS per live child",
	    (double)(u1->u_grss - u0->u_grss) / n, "KiB", NULL, NAN, NULL,
	    V_NONE);
	out_val("guardian RSS in all", (double)u1->u_grss, "KiB", NULL, NAN,
	    NULL, V_NONE);
	out_val("guardian threads", (double)u1->u_gthreads, "threads", NULL,
	    NAN, NULL, V_NONE);
	out_val("last child's Private_Dirty", (double)pd->sc_dirty, "KiB",
	    "fork", (double)fk->sc_dirty, NULL, V_NONE);
	out_val("system MemAvailable drop per child",
	    (double)pd->sc_memkb / n, "KiB", "fork",
	    (double)fk->sc_memkb / (double)fk->sc_n,
	    NULL, V_NONE);
	snprintf(name, sizeof(name), "owner library CPU over %d s idle",
	    idle_s);
	out_val(name, idle_o, "ns", NULL, NAN, "zero", out_goal(idle_o == 0));
	snprintf(name, sizeof(name), "guardian CPU over %d s idle", idle_s);
	out_val(name, idle_g, "ns", NULL, NAN, "zero", out_goal(idle_g == 0));
	out_val("close all -> all dead and reaped", (double)pd->sc_gone,
	    "ns", "kill+waitpid all forks", (double)fk->sc_gone, NULL,
	    V_NONE);
}

/*
 * Idle CPU of the owner's library threads (every thread but this one,
 * which sleeps) and of all its guardians, in ns.
 */
static void
scale_idle(const struct guardians *gs, int idle_s, double *op, double *gp)
{
	uint64_t o0, g0;
	pid_t self;

	self = gettid();
	o0 = proc_cpu_ns(getpid(), self);
	g0 = guardians_cpu_ns(gs);
	sleep_ns((int64_t)idle_s * SEC);
	*op = (double)(proc_cpu_ns(getpid(), self) - o0);
	*gp = (double)(guardians_cpu_ns(gs) - g0);
}

/* Room for n children of each kind. */
static void
scale_alloc(struct scale *sc, size_t n)
{

	memset(sc, 0, sizeof(*sc));
	sc->sc_n = n;
	if ((sc->sc_pid = calloc(n, sizeof(pid_t))) == NULL ||
	    (sc->sc_fd = calloc(n, sizeof(int))) == NULL)
		err(1, "calloc");
	memset(sc->sc_fd, 0xff, n * sizeof(int));
}

static void
scale_free(struct scale *sc)
{

	free(sc->sc_pid);
	free(sc->sc_fd);
}

/* Make n children of kind k, then kill and collect them, timed. */
static void
scale_baseline(struct scale *sc, size_t n, enum kind k, const char *name,
    int budget)
{
	int64_t t0;

	scale_alloc(sc, n);
	scale_make(sc, k, name, budget);
	t0 = now_ns();
	collect_all(k, sc->sc_pid, sc->sc_fd, sc->sc_n);
	sc->sc_gone = now_ns() - t0;
}

/* Section 5's samples, one per round. */
enum { SR_RATIO, SR_RATIO_CL, SR_FORKFD, SR_CLONE3, SR_PD, SR_N };

/*
 * One round of the comparisons: n fork children whose pidfds we keep,
 * made and collected, the same for n raw clone3 children, then n pdfork
 * children made (left for the caller), with the owner's usage in
 * between; the per-child costs, and the pdfork children's over each
 * baseline's, go to rs.
 */
static void
scale_round(struct scale *cl, struct scale *pd, size_t n, int budget,
    const struct guardians *gs, struct usage *u0, struct samples *rs)
{
	struct scale ff;

	scale_baseline(&ff, n, K_FORKFD, "fork+pidfd_open", budget);
	scale_baseline(cl, n, K_CLONE3, "clone3", budget);
	usage_read(u0, gs);
	scale_alloc(pd, n);
	scale_make(pd, K_PD, "pdfork", budget);
	samples_add(&rs[SR_RATIO], per_child(pd) / per_child(&ff));
	samples_add(&rs[SR_RATIO_CL], per_child(pd) / per_child(cl));
	samples_add(&rs[SR_FORKFD], per_child(&ff));
	samples_add(&rs[SR_CLONE3], per_child(cl));
	samples_add(&rs[SR_PD], per_child(pd));
	scale_free(&ff);
}

void
bench_scale(size_t n, int idle_s, int budget, size_t rounds,
    struct guardians *gs)
{
	struct scale pd, fk, cl, pd1, cl1;
	struct samples rs[SR_N];
	struct usage u0, u1, ux;
	double idle_o, idle_g;
	int64_t tg;
	size_t r;

	out_section("5. Scale: %zu live children (%zu rounds)", n, rounds);
	if (!scale_fits(n))
		return;
	scale_baseline(&fk, n, K_FORK, "fork", budget);
	out_val("fork: per-child cost", per_child(&fk), "ns", NULL, NAN, NULL,
	    V_NONE);
	for (r = 0; r < SR_N; r++)
		samples_init(&rs[r], rounds);
	/*
	 * Rounds of clone3 then pdfork, so that a drift of the machine
	 * between them cannot pass for a cost.  The first round, made from
	 * a clean owner and clean guardians, is the one looked at closely;
	 * the others give the ratio's spread.
	 */
	scale_round(&cl1, &pd1, n, budget, gs, &u0, rs);
	guardians_refind(gs);
	usage_read(&u1, gs);
	scale_idle(gs, idle_s, &idle_o, &idle_g);
	pd1.sc_gone = scale_close_pd(&pd1, gs, 60 * SEC);
	tg = guardians_quiet(gs, 60 * SEC);
	for (r = 1; r < rounds; r++) {
		scale_round(&cl, &pd, n, budget, gs, &ux, rs);
		(void)scale_close_pd(&pd, gs, 60 * SEC);
		(void)guardians_quiet(gs, 60 * SEC);
		scale_free(&cl);
		scale_free(&pd);
	}
	out_val("fork+pidfd_open (kept): per-child cost, median",
	    samples_pct(&rs[SR_FORKFD], 0.5), "ns", "fork", per_child(&fk),
	    NULL, V_NONE);
	out_val("clone3 (pidfds kept): per-child cost, median",
	    samples_pct(&rs[SR_CLONE3], 0.5), "ns", "fork", per_child(&fk),
	    NULL, V_NONE);
	out_val("pdfork: per-child cost, median", samples_pct(&rs[SR_PD], 0.5),
	    "ns", "fork+pidfd", samples_pct(&rs[SR_FORKFD], 0.5), NULL,
	    V_NONE);
	out_ratio("pdfork / fork+pidfd_open per-child cost, a round",
	    &rs[SR_RATIO], 1.3);
	out_ratio("pdfork / clone3 per-child cost, a round", &rs[SR_RATIO_CL],
	    NAN);
	scale_report(&pd1, &fk, &cl1, &u0, &u1, idle_o, idle_g, idle_s);
	out_printf("  guardians quiet again %.1f ms after the last reap%s\n",
	    (double)(tg == -1 ? 60 * SEC : tg) / 1e6,
	    tg == -1 ? " (NOT reached within 60 s)" : "");
	scale_plotdata(&pd1, &fk, &cl1);
	for (r = 0; r < SR_N; r++)
		samples_free(&rs[r]);
	scale_free(&fk);
	scale_free(&cl1);
	scale_free(&pd1);
}

/*
 * Close-kill at the limit: close the descriptors of LIM_SAMPLE children
 * picked at random (in the table's middle as well as its ends, where a
 * registry or a guardian might do better or worse); each must die, as a
 * pidfd_open of our own tells.  Returns how many did within 10 s.
 */
static size_t
limit_closekill(struct scale *sc, size_t k)
{
	int cfd[LIM_SAMPLE];
	struct pollfd pfd;
	int64_t t0, left;
	size_t i, j, dead;

	srandom((unsigned)(now_ns() ^ getpid()));
	for (j = 0; j < k; ) {
		i = (size_t)random() % sc->sc_n;
		if (sc->sc_fd[i] == -1)
			continue;
		if ((cfd[j] = sys_pidfd_open(sc->sc_pid[i], 0)) == -1)
			err(1, "pidfd_open");
		close(sc->sc_fd[i]);
		sc->sc_fd[i] = -1;
		j++;
	}
	t0 = now_ns();
	for (dead = j = 0; j < k; j++) {
		pfd.fd = cfd[j];
		pfd.events = POLLIN;
		left = 10 * SEC - (now_ns() - t0);
		while (poll(&pfd, 1, left > 0 ? (int)(left / 1000000) : 0) ==
		    -1 && errno == EINTR)
			;
		if ((pfd.revents & POLLIN) != 0)
			dead++;
		close(cfd[j]);
	}
	return (dead);
}

/*
 * pdfork past the limit: fill our descriptor table but LIM_FREE slots,
 * then pdfork until it fails.  It must fail with EMFILE or EAGAIN and
 * leave no child behind, running or unreaped (children_count() counts
 * both), once the library has had a second to take back a half-made one.
 */
static void
limit_past(struct guardians *gs)
{
	pid_t made[LIM_TRIES];
	int mfd[LIM_TRIES];
	int64_t t0;
	size_t before, after, nfill, nmade;
	int error, *fill, nullfd;

	if ((fill = calloc(LIM_NOFILE, sizeof(int))) == NULL)
		err(1, "calloc");
	if ((nullfd = open("/dev/null", O_RDONLY | O_CLOEXEC)) == -1)
		err(1, "/dev/null");
	for (nfill = 0; nfill < LIM_NOFILE &&
	    (fill[nfill] = fcntl(nullfd, F_DUPFD_CLOEXEC, 0)) != -1; nfill++)
		;
	for (nmade = 0; nmade < LIM_FREE && nfill > 0; nmade++)
		close(fill[--nfill]);
	before = 0;
	error = 0;
	for (nmade = 0; nmade < LIM_TRIES; nmade++) {
		before = children_count(getpid(), gs);
		if ((made[nmade] = spawn_try(K_PD, &mfd[nmade])) == -1) {
			error = errno;
			break;
		}
	}
	if (error == 0)
		before = children_count(getpid(), gs);
	t0 = now_ns();
	while ((after = children_count(getpid(), gs)) > before &&
	    now_ns() - t0 < SEC)
		sleep_ns(SEC / 100);
	if (after > before) {
		/* Or was it a guardian started on the way? */
		guardians_refind(gs);
		after = children_count(getpid(), gs);
	}
	while (nfill > 0)
		close(fill[--nfill]);
	close(nullfd);
	free(fill);
	out_printf("  pdfork with %d descriptors free: %zu made, then %s\n",
	    LIM_FREE, nmade, error != 0 ? strerror(error) : "none failed");
	out_val("pdfork past the limit: children left",
	    (double)after - (double)before, "", NULL, NAN,
	    "fails EMFILE/EAGAIN, 0 left", out_goal((error == EMFILE ||
	    error == EAGAIN) && after == before));
	collect_all(K_PD, made, mfd, nmade);
}

/*
 * The limit: n children, however long they take (a count, not a time:
 * a slow machine reports a lower rate, not fewer children).
 */
void
bench_limit(size_t n, struct guardians *gs)
{
	struct scale pd;
	struct usage u0, u1;
	char goal[64];
	size_t dead, k, kids;
	double v;

	out_section("6. Limit: %zu live children, RLIMIT_NOFILE %d", n,
	    LIM_NOFILE);
	if (!nofile_set(LIM_NOFILE, true))
		return;
	usage_read(&u0, gs);
	scale_alloc(&pd, n);
	scale_make(&pd, K_PD, "pdfork", 0);
	snprintf(goal, sizeof(goal), ">= %zu", n);
	out_val("live children made", (double)pd.sc_n, "", NULL, NAN, goal,
	    out_goal(pd.sc_n >= n));
	out_val("creation rate", pd.sc_total > 0 ? floor((double)pd.sc_n *
	    1e9 / (double)pd.sc_total) : NAN, "/s", NULL, NAN, NULL, V_NONE);
	if (pd.sc_n == 0) {
		scale_free(&pd);
		return;
	}
	out_val("pdfork: per-child cost", per_child(&pd), "ns", NULL, NAN,
	    NULL, V_NONE);
	guardians_refind(gs);
	usage_read(&u1, gs);
	kids = children_count(getpid(), gs);
	out_val("guardians", (double)u1.u_ng, "", NULL, NAN, NULL, V_NONE);
	v = (double)(u1.u_grss - u0.u_grss) / (double)pd.sc_n;
	out_val("guardian RSS per live child", v, "KiB", NULL, NAN,
	    "<= 2 KiB", out_goal(v <= 2));
	out_val("guardian threads", (double)u1.u_gthreads, "", NULL, NAN,
	    "<= 4 per guardian", out_goal(u1.u_gthreads <=
	    4 * (long)u1.u_ng));
	/*
	 * Every task the children brought: themselves, guardian threads,
	 * helpers of the library.
	 */
	v = ((double)kids + (double)gs->gs_naux +
	    (double)(u1.u_gthreads - u0.u_gthreads) +
	    (double)(u1.u_threads - u0.u_threads)) / (double)pd.sc_n;
	out_val("pids per live child", v, "", NULL, NAN, "<= 1.01",
	    out_goal(v <= 1.01));
	k = pd.sc_n < LIM_SAMPLE ? pd.sc_n : LIM_SAMPLE;
	snprintf(goal, sizeof(goal), "all %zu", k);
	dead = limit_closekill(&pd, k);
	out_val("close -> dead, random sample: dead", (double)dead, "", NULL,
	    NAN, goal, out_goal(dead == k));
	limit_past(gs);
	pd.sc_gone = scale_close_pd(&pd, gs, 120 * SEC);
	out_val("close all -> all dead and reaped", pd.sc_gone < 0 ? NAN :
	    (double)pd.sc_gone, "ns", NULL, NAN, NULL, V_NONE);
	if (pd.sc_gone < 0)
		out_printf("  NOT all reaped 120 s after the close\n");
	if (guardians_quiet(gs, 60 * SEC) == -1)
		out_printf("  note: the guardians still busy after 60 s\n");
	scale_free(&pd);
}
