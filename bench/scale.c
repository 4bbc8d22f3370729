/*-
 * SPDX-License-Identifier: BSD-2-Clause
 *
 * Copyright (c) 2026 The libprocdesc authors.
 */

/*
 * Section 5: many live children.  Baseline first, n fork children, then
 * n pdfork children; per-child cost (also per twentieth, for the plot
 * of cost against live children), the owner's RSS, threads and
 * descriptors, the guardian's RSS and threads, CPU used by both over an
 * idle period, and the time from closing every descriptor to every child
 * dead and reaped (no __WCLONE child left).
 *
 * Resources are checked first: descriptors (RLIMIT_NOFILE, raised when
 * the hard limit or privilege allows), pids and threads (the guardian
 * keeps one thread per child).  Where the machine cannot, the section is
 * skipped with a message saying why.  Making children stops early, with a
 * message, when MemAvailable falls below SC_MEM_FLOOR (each pdfork child
 * may hold megabytes of private copies) or the time budget is spent.
 */

#include <sys/resource.h>
#include <sys/wait.h>

#include <err.h>
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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
};

/*
 * Stop making children when MemAvailable falls below this (KiB): every
 * child may hold private copies of its parent's pages.
 */
#define	SC_MEM_FLOOR	(3L * 1024 * 1024)

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

/* Can this machine hold n more children and n guardian threads? */
static bool
scale_fits(size_t n)
{
	struct rlimit rl;
	rlim_t need;
	long pidmax, thrmax, tasks;

	need = (rlim_t)n + 256;
	if (getrlimit(RLIMIT_NOFILE, &rl) == -1)
		err(1, "getrlimit");
	if (rl.rlim_cur < need) {
		rl.rlim_cur = need;
		if (rl.rlim_max < need)
			rl.rlim_max = need;
		if (setrlimit(RLIMIT_NOFILE, &rl) == -1) {
			out_printf("  skipped: RLIMIT_NOFILE is below %lu and "
			    "cannot be raised (%s)\n", (unsigned long)need,
			    strerror(errno));
			return (false);
		}
		out_printf("  RLIMIT_NOFILE raised to %lu\n",
		    (unsigned long)need);
	}
	pidmax = read_long("/proc/sys/kernel/pid_max");
	thrmax = read_long("/proc/sys/kernel/threads-max");
	tasks = tasks_now();
	if (pidmax > 0 && tasks > 0 &&
	    (size_t)(pidmax - tasks) < 2 * n + 500) {
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

/*
 * Make sc->sc_n paused children of kind k, timing each twentieth.  Stop
 * early, lowering sc_n, should the machine run short of memory.
 */
static void
scale_make(struct scale *sc, enum kind k, const char *name, int budget)
{
	size_t b, i, lo, hi;
	int64_t start, t0, t;
	long mem0, mem;
	bool late;

	mem0 = mem_available_kb();
	mem = -1;
	late = false;
	start = now_ns();
	sc->sc_total = 0;
	for (b = 0; b < SC_BUCKETS; b++) {
		lo = sc->sc_n * b / SC_BUCKETS;
		hi = sc->sc_n * (b + 1) / SC_BUCKETS;
		t0 = now_ns();
		for (i = lo; i < hi; i++) {
			sc->sc_pid[i] = spawn_paused(k, &sc->sc_fd[i]);
			if (i % 64 != 0)
				continue;
			if ((mem = mem_available_kb()) >= 0 &&
			    mem < SC_MEM_FLOOR)
				break;
			if ((late = now_ns() - start > budget * SEC))
				break;
		}
		t = now_ns() - t0;
		sc->sc_total += t;
		sc->sc_us[b] = (double)t / 1e3 /
		    (double)((i < hi ? i + 1 : hi) - lo);
		if (i < hi && late)
			out_printf("  STOPPED %s at %zu children: not done "
			    "after %d s (make bench must end in 3 minutes)\n",
			    name, i + 1, budget);
		else if (i < hi)
			out_printf("  STOPPED %s at %zu children: "
			    "MemAvailable %ld MiB, below the %ld MiB floor\n",
			    name, i + 1, mem / 1024, SC_MEM_FLOOR / 1024);
		if (i < hi) {
			sc->sc_n = i + 1;
			for (b++; b < SC_BUCKETS; b++)
				sc->sc_us[b] = NAN;
			break;
		}
	}
	/* Let the last child run its atfork handlers before looking. */
	sleep_ns(SEC / 5);
	sc->sc_memkb = mem0 - mem_available_kb();
	sc->sc_dirty = proc_field(sc->sc_pid[sc->sc_n - 1], "smaps_rollup",
	    "Private_Dirty:");
}

/* Close every descriptor; ns until no __WCLONE child is left at all. */
static int64_t
scale_close_pd(struct scale *sc)
{
	siginfo_t si;
	int64_t t0;
	size_t i;

	t0 = now_ns();
	for (i = 0; i < sc->sc_n; i++)
		close(sc->sc_fd[i]);
	for (;;) {
		memset(&si, 0, sizeof(si));
		if (waitid(P_ALL, 0, &si, WEXITED | WNOHANG | WNOWAIT |
		    __WCLONE) == -1 && errno == ECHILD)
			return (now_ns() - t0);
		if (now_ns() - t0 > 60 * SEC)
			return (-1);
		sleep_ns(100000);
	}
}

static void
row_val(const char *name, double v, const char *unit, const char *base,
    double bv, const char *goal, enum verdict vd)
{
	struct row r;

	memset(&r, 0, sizeof(r));
	r.r_name = name;
	r.r_med = v;
	r.r_p99 = NAN;
	r.r_unit = unit;
	r.r_base = base;
	r.r_bmed = bv;
	r.r_goal = goal;
	r.r_verdict = vd;
	out_row(&r);
}

static void
scale_plotdata(const struct scale *pd, const struct scale *fk)
{
	char path[512];
	FILE *fp;
	size_t b;

	snprintf(path, sizeof(path), "%s/scale.csv", out_dir());
	if ((fp = fopen(path, "w")) == NULL) {
		warn("%s", path);
		return;
	}
	fprintf(fp, "live_children,pdfork_us_per_child,fork_us_per_child\n");
	for (b = 0; b < SC_BUCKETS; b++)
		fprintf(fp, "%zu,%.2f,%.2f\n",
		    pd->sc_n * (2 * b + 1) / (2 * SC_BUCKETS), pd->sc_us[b],
		    fk->sc_us[b]);
	fclose(fp);
}

/* The owner and guardian before and after the pdfork children. */
struct usage {
	long	u_rss;			/* Owner VmRSS, KiB. */
	long	u_fds;
	long	u_threads;
	long	u_grss;			/* Guardian VmRSS, KiB. */
	long	u_gthreads;
};

static void
usage_read(struct usage *u, pid_t g)
{

	u->u_rss = proc_status(getpid(), "VmRSS:");
	u->u_fds = proc_nfds(getpid());
	u->u_threads = proc_status(getpid(), "Threads:");
	u->u_grss = proc_status(g, "VmRSS:");
	u->u_gthreads = proc_status(g, "Threads:");
}

static void
scale_report(const struct scale *pd, const struct scale *fk,
    const struct usage *u0, const struct usage *u1, double idle_o,
    double idle_g, int idle_s)
{
	char name[64];
	double n, v;

	n = (double)pd->sc_n;
	row_val("pdfork: per-child cost", (double)pd->sc_total / n, "ns",
	    "fork", (double)fk->sc_total / (double)fk->sc_n, NULL, V_NONE);
	v = (double)(u1->u_rss - u0->u_rss) / n;
	row_val("owner RSS per live child", v, "KiB", NULL, NAN,
	    "<= 16 KiB", out_goal(v <= 16));
	v = (double)(u1->u_fds - u0->u_fds) / n;
	row_val("owner fds per live child", v, "fds", NULL, NAN, "<= 2",
	    out_goal(v <= 2));
	row_val("owner library threads", (double)(u1->u_threads - 1),
	    "threads", NULL, NAN, "<= 1", out_goal(u1->u_threads - 1 <= 1));
	row_val("guardian RSS per live child",
	    (double)(u1->u_grss - u0->u_grss) / n, "KiB", NULL, NAN, NULL,
	    V_NONE);
	row_val("guardian RSS in all", (double)u1->u_grss, "KiB", NULL, NAN,
	    NULL, V_NONE);
	row_val("guardian threads", (double)u1->u_gthreads, "threads", NULL,
	    NAN, NULL, V_NONE);
	row_val("last child's Private_Dirty", (double)pd->sc_dirty, "KiB",
	    "fork", (double)fk->sc_dirty, NULL, V_NONE);
	row_val("system MemAvailable drop per child",
	    (double)pd->sc_memkb / n, "KiB", "fork",
	    (double)fk->sc_memkb / (double)fk->sc_n,
	    NULL, V_NONE);
	snprintf(name, sizeof(name), "owner library CPU over %d s idle",
	    idle_s);
	row_val(name, idle_o, "ns", NULL, NAN, "zero", out_goal(idle_o == 0));
	snprintf(name, sizeof(name), "guardian CPU over %d s idle", idle_s);
	row_val(name, idle_g, "ns", NULL, NAN, "zero", out_goal(idle_g == 0));
	row_val("close all -> all dead and reaped", (double)pd->sc_gone,
	    "ns", "kill+waitpid all forks", (double)fk->sc_gone, NULL,
	    V_NONE);
}

/*
 * Idle CPU of the owner's library threads (every thread but this one,
 * which sleeps) and of the whole guardian, in ns.
 */
static void
scale_idle(pid_t g, int idle_s, double *op, double *gp)
{
	uint64_t o0, g0;
	pid_t self;

	self = gettid();
	o0 = proc_cpu_ns(getpid(), self);
	g0 = proc_cpu_ns(g, 0);
	sleep_ns((int64_t)idle_s * SEC);
	*op = (double)(proc_cpu_ns(getpid(), self) - o0);
	*gp = (double)(proc_cpu_ns(g, 0) - g0);
}

void
bench_scale(size_t n, int idle_s, int budget, pid_t g)
{
	struct scale pd, fk;
	struct usage u0, u1;
	double idle_o, idle_g;
	int64_t t0, tg;

	out_section("5. Scale: %zu live children", n);
	if (!scale_fits(n))
		return;
	memset(&pd, 0, sizeof(pd));
	pd.sc_n = fk.sc_n = n;
	if ((pd.sc_pid = calloc(n, sizeof(pid_t))) == NULL ||
	    (pd.sc_fd = calloc(n, sizeof(int))) == NULL)
		err(1, "calloc");
	memset(pd.sc_pid, 0xff, n * sizeof(pid_t));
	memset(pd.sc_fd, 0xff, n * sizeof(int));
	fk = pd;

	scale_make(&fk, K_FORK, "fork", budget);
	t0 = now_ns();
	collect_all(K_FORK, fk.sc_pid, fk.sc_fd, fk.sc_n);
	fk.sc_gone = now_ns() - t0;
	row_val("fork: per-child cost", (double)fk.sc_total /
	    (double)fk.sc_n, "ns", NULL, NAN, NULL, V_NONE);

	usage_read(&u0, g);
	scale_make(&pd, K_PD, "pdfork", budget);
	if (guardian_wait_threads(g, GUARDIAN_IDLE + (long)pd.sc_n,
	    60 * SEC) == -1)
		out_printf("  note: guardian has %ld threads, not %zu\n",
		    proc_status(g, "Threads:"), pd.sc_n + 1);
	usage_read(&u1, g);
	scale_idle(g, idle_s, &idle_o, &idle_g);
	pd.sc_gone = scale_close_pd(&pd);
	t0 = now_ns();
	tg = guardian_wait_threads(g, GUARDIAN_IDLE, 60 * SEC);
	scale_report(&pd, &fk, &u0, &u1, idle_o, idle_g, idle_s);
	out_printf("  guardian idle again %.1f ms after the last "
	    "reap%s\n", (double)(tg == -1 ? now_ns() - t0 : tg) / 1e6,
	    tg == -1 ? " (NOT reached within 60 s)" : "");
	scale_plotdata(&pd, &fk);
	free(pd.sc_pid);
	free(pd.sc_fd);
}
