/*-
 * SPDX-License-Identifier: BSD-2-Clause
 *
 * Copyright (c) 2026 The libprocdesc authors.
 */

/*
 * Private interfaces between the benchmark's files (issue #7).
 *
 * bench.c runs the sections and owns main(); scale.c the 10,000- and
 * 19,000-children sections; spawn.c the spawn by the caller's size; proc.c creates and collects children, finds
 * the guardians and reads /proc; stats.c keeps samples and prints the
 * table, the CSV and the goals.
 * Single-threaded: nothing here is shared with another thread.
 */

#ifndef _BENCH_H_
#define	_BENCH_H_

#include <sys/types.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Samples of one measurement, in ns unless the row says otherwise. */
struct samples {
	double		*s_v;
	size_t		 s_n;
	size_t		 s_cap;
	bool		 s_sorted;
};

enum verdict {
	V_NONE,				/* No goal on this row. */
	V_MET,
	V_MISSED
};

/* One line of the table. */
struct row {
	const char	*r_name;
	size_t		 r_n;		/* Samples, 0 for a single value. */
	double		 r_med;		/* Median, or the value. */
	double		 r_p99;		/* NAN: none. */
	const char	*r_unit;	/* "ns" formats as a time. */
	const char	*r_base;	/* Name of the baseline, or NULL. */
	double		 r_bmed;	/* Its median. */
	const char	*r_goal;	/* Goal text, or NULL. */
	const char	*r_hi;		/* What r_p99 is, if not the p99. */
	enum verdict	 r_verdict;
};

/* Kinds of children: how they are made and collected. */
enum kind {
	K_PD,				/* pdfork, pdkill, pdwait. */
	K_FORK,				/* fork, kill, waitpid. */
	K_CLONE3,			/* clone3 pidfd, waitid(P_PIDFD). */
	K_FORKFD			/* fork, pidfd_open kept, waitpid. */
};

/*
 * The guardian processes of one owner.  The library may run several (one
 * per so many children), and figures about "the guardian" are summed over
 * all of them.  Other helpers of the library among the owner's children
 * (such as a parent standing between owner and guardian) are kept apart,
 * so as not to be taken for the owner's children.
 */
#define	GUARDIANS_MAX	16
struct guardians {
	pid_t		 gs_pid[GUARDIANS_MAX];
	size_t		 gs_n;
	pid_t		 gs_aux[GUARDIANS_MAX];
	size_t		 gs_naux;
};

/* stats.c */
void	samples_init(struct samples *, size_t);
void	samples_add(struct samples *, double);
double	samples_pct(struct samples *, double);
void	samples_free(struct samples *);
double	round_median(const struct samples *, size_t, size_t);
int	samples_write(struct samples *, const char *);
int64_t	now_ns(void);
void	out_init(const char *, const char *);
const char *out_dir(void);
void	out_printf(const char *, ...) __attribute__((format(printf, 1, 2)));
void	out_section(const char *, ...) __attribute__((format(printf, 1, 2)));
void	out_row(const struct row *);
void	out_ratio(const char *, struct samples *, double);
void	out_time(const char *, struct samples *, const char *,
	    struct samples *, const char *, enum verdict);
void	out_time_vs(const char *, struct samples *, const char *, double,
	    const char *, enum verdict);
void	out_val(const char *, double, const char *, const char *, double,
	    const char *, enum verdict);
enum verdict out_goal(bool);
void	out_summary(void);
void	out_goals_clear(void);
void	out_goals_export(int);
void	out_goals_import(int);
void	out_close(void);

/* proc.c */
void	child_pause(void) __attribute__((noreturn));
void	bench_kernel(size_t rounds);
pid_t	spawn_try(enum kind, int *);
pid_t	spawn_paused(enum kind, int *);
void	collect_all(enum kind, const pid_t *, const int *, size_t);
pid_t	*proc_children(pid_t, size_t *);
size_t	children_count(pid_t, const struct guardians *);
size_t	guardians_find(pid_t, struct guardians *, const char **);
long	guardians_status(const struct guardians *, const char *);
uint64_t guardians_cpu_ns(const struct guardians *);
int64_t	guardians_quiet(const struct guardians *, int64_t);
bool	guardians_gone(const struct guardians *, int64_t);
long	proc_status(pid_t, const char *);
long	proc_field(pid_t, const char *, const char *);
long	proc_nfds(pid_t);
uint64_t proc_cpu_ns(pid_t, pid_t);
long	proc_syscall(pid_t, pid_t);
long	mem_available_kb(void);
void	sleep_ns(int64_t);

/* bench.c: spawns of true(1), collected, timed (ns); spawn.c's too. */
int64_t	op_posix_spawn(void);
int64_t	op_pdrfork(void);

/* spawn.c */
void	bench_spawn_size(size_t, size_t, bool);

/* scale.c */
void	bench_scale(size_t, int, int, size_t, struct guardians *);
void	bench_limit(size_t, struct guardians *);

#endif /* !_BENCH_H_ */
