/*-
 * SPDX-License-Identifier: BSD-2-Clause
 *
 * Copyright (c) 2026 The libprocdesc authors.
 */

/*
 * The torture test's main program (torture.h says what the test does):
 * the options, the process-wide setup, the start of the worker threads,
 * the timer and the watchdog, the checks after the run, the counts line
 * and the verdict.
 */

#include <sys/procdesc.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "guardian/protocol.h"
#include "torture.h"

#ifndef T_GUARDIAN
#define	T_GUARDIAN	"obj/" PG_GUARDIAN_NAME
#endif

uint64_t tt_seed;
int tt_nthreads = TT_MINTHREADS;
int64_t tt_deadline;
struct tthread *tt_th;
static int tt_seconds = 5;

static void __attribute__((noreturn))
tt_usage(void)
{

	fprintf(stderr, "usage: torture [-s seconds] [-S seed] "
	    "[-t threads (%d to %d)]\n", TT_MINTHREADS, TT_MAXTHREADS);
	exit(2);
}

static void
tt_options(int argc, char **argv)
{
	char *end;
	int ch;
	bool seeded;

	seeded = false;
	while ((ch = getopt(argc, argv, "s:S:t:")) != -1) {
		switch (ch) {
		case 's':
			tt_seconds = (int)strtol(optarg, &end, 10);
			if (*end != '\0' || tt_seconds < 0)
				tt_usage();
			break;
		case 'S':
			tt_seed = strtoull(optarg, &end, 0);
			if (*end != '\0')
				tt_usage();
			seeded = true;
			break;
		case 't':
			tt_nthreads = (int)strtol(optarg, &end, 10);
			if (*end != '\0' || tt_nthreads < TT_MINTHREADS ||
			    tt_nthreads > TT_MAXTHREADS)
				tt_usage();
			break;
		default:
			tt_usage();
		}
	}
	if (optind != argc)
		tt_usage();
	if (!seeded && getrandom(&tt_seed, sizeof(tt_seed), 0) !=
	    sizeof(tt_seed))
		tt_seed = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32);
}

/*
 * Everything process-wide before the threads: no core files (children die
 * of SIGABRT), the guardian of the build tree, the pid map.
 */
static bool
tt_setup(void)
{
	struct rlimit rl = { 0, 0 };

	if (getenv("LIBPROCDESC_GUARDIAN") == NULL)
		setenv("LIBPROCDESC_GUARDIAN", T_GUARDIAN, 1);
	(void)setrlimit(RLIMIT_CORE, &rl);
	if (!tt_pidmap_init() || !tt_slots_init() ||
	    (tt_th = calloc((size_t)tt_nthreads, sizeof(*tt_th))) == NULL) {
		printf("torture: FAIL: out of memory\n");
		return (false);
	}
	tt_probe_kernel();
	return (true);
}

/* Start the library (guardian, reaper) before the descriptor snapshot. */
static bool
tt_warm_up(void)
{
	pid_t pid;
	int fd, st;

	if ((pid = pdfork(&fd, 0)) == -1) {
		printf("torture: FAIL: warm-up pdfork: %s\n", strerror(errno));
		return (false);
	}
	if (pid == 0)
		tt_exit(7);
	if (pdwait(fd, &st, WEXITED, NULL, NULL) != 0 || !WIFEXITED(st) ||
	    WEXITSTATUS(st) != 7) {
		printf("torture: FAIL: warm-up pdwait\n");
		return (false);
	}
	close(fd);
	return (true);
}

/* Start the threads and the timer; join them. */
static bool
tt_run(void)
{
	struct tthread *t;
	int i, j;

	tt_handler_install();
	tt_deadline = tt_now() + (int64_t)tt_seconds * 1000000000;
	for (i = 0; i < tt_nthreads; i++) {
		t = &tt_th[i];
		t->idx = i;
		t->rng = tt_seed + (uint64_t)i;
		t->hrng = (tt_seed + (uint64_t)i) ^ 0x5bd1e9955bd1e995ULL;
		for (j = 0; j < TT_NLIVE; j++)
			t->ch[j].fd = t->ch[j].dup = t->ch[j].watch = -1;
		for (j = 0; j < TT_NORPHAN; j++)
			t->orph[j].watch = -1;
		atomic_store(&t->stamp, tt_now());
	}
	if (!tt_watchdog_start())
		return (false);
	for (i = 0; i < tt_nthreads; i++)
		if (pthread_create(&tt_th[i].td, NULL, tt_worker, &tt_th[i]) !=
		    0) {
			printf("torture: FAIL: pthread_create\n");
			exit(1);
		}
	tt_timer(true);
	for (i = 0; i < tt_nthreads; i++)
		pthread_join(tt_th[i].td, NULL);
	tt_timer(false);
	tt_watchdog_final();
	return (true);
}

/* One line: how often each operation ran, and what the handler did. */
static void
tt_summary(void)
{
	unsigned long n[OP_NOPS], eintr, closekill, vague;
	char line[1024], handler[512];
	size_t off;
	int i, op;

	memset(n, 0, sizeof(n));
	eintr = closekill = vague = 0;
	for (i = 0; i < tt_nthreads; i++) {
		for (op = 0; op < OP_NOPS; op++)
			n[op] += tt_th[i].n[op];
		eintr += tt_th[i].neintr;
		closekill += tt_th[i].nclosekill;
		vague += tt_th[i].nwaitid_vague;
	}
	off = 0;
	for (op = 0; op < OP_NOPS && off < sizeof(line); op++)
		off += (size_t)snprintf(line + off, sizeof(line) - off,
		    "%s %lu, ", tt_opname[op], n[op]);
	tt_handler_summary(handler, sizeof(handler));
	printf("torture: %sclose-kills %lu, pdwait EINTR %lu, waitid moot "
	    "%lu; %s\n", line, closekill, eintr, vague, handler);
}

int
main(int argc, char **argv)
{
	static char fds0[4096];
	const char *why;
	char list[16];
	sigset_t alrm;
	int n;

	tt_tag_run(argv);
	tt_options(argc, argv);
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("torture: seed %" PRIu64 ", %d threads, %d s\n", tt_seed,
	    tt_nthreads, tt_seconds);
	tt_signals_reset();
	/* Only the workers take the timer's signal. */
	sigemptyset(&alrm);
	sigaddset(&alrm, SIGALRM);
	pthread_sigmask(SIG_BLOCK, &alrm, NULL);
	if (!tt_setup() || !tt_warm_up())
		return (1);
	tt_fds(fds0, sizeof(fds0));
	(void)tt_leftovers(&n, list, sizeof(list), true);
	if (!tt_run())
		return (1);
	tt_report_handler();
	tt_final_checks(fds0);
	tt_watchdog_stop();
	tt_summary();
	if ((why = tt_first_failure()) != NULL) {
		printf("torture: FAIL: %s\n", why);
		return (1);
	}
	printf("torture: ok\n");
	return (0);
}
