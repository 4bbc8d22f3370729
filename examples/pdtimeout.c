/*-
 * SPDX-License-Identifier: BSD-2-Clause
 *
 * Copyright (c) 2026 The libprocdesc authors.
 */

/*
 * pdtimeout: run a command with a time limit, as timeout(1) does, but
 * hold the command by a process descriptor: poll the descriptor until it
 * reports the exit or the time is up, then pdkill(2) it with SIGTERM and
 * collect it with pdwait(2).  No SIGCHLD, no waitpid(), no pid reuse.
 *
 * usage: pdtimeout duration command [arg ...]
 * duration is a number of seconds, possibly fractional, with an optional
 * suffix s, m, h or d; 0 means no limit.
 *
 * Exit status as GNU timeout: 124 if the time ran out, 125 if pdtimeout
 * failed, 126 if the command could not be run, 127 if it was not found,
 * else the command's status; if the command died of a signal, pdtimeout
 * kills itself with the same signal.  SIGHUP, SIGINT, SIGQUIT and SIGTERM
 * sent to pdtimeout are passed on to the command.
 *
 * Unlike GNU timeout, only the command itself is signalled, not a process
 * group: a process descriptor names one process.
 */

#include <sys/types.h>
#include <sys/procdesc.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include <err.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define	EXIT_TIMEDOUT	124
#define	EXIT_CANCELED	125
#define	EXIT_CANNOT_INVOKE	126
#define	EXIT_ENOENT	127

static const int fwdsigs[] = { SIGHUP, SIGINT, SIGQUIT, SIGTERM };

static volatile sig_atomic_t gotsig;

static void	catch(int);
static double	parse_duration(const char *);
static void	usage(void);

int
main(int argc, char *argv[])
{
	struct sigaction sa;
	struct pollfd pfd;
	struct timespec deadline, now, left, *tsp;
	struct rlimit rl;
	sigset_t block, omask;
	double dur;
	pid_t pid;
	size_t i;
	int pd, saved, sig, status;
	bool timedout;

	if (argc > 1 && strcmp(argv[1], "--") == 0) {
		argc--;
		argv++;
	}
	if (argc < 3)
		usage();
	dur = parse_duration(argv[1]);
	if (dur > INT_MAX)
		dur = INT_MAX;

	/* Forwarded signals are taken only inside ppoll(). */
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = catch;
	sigemptyset(&sa.sa_mask);
	sigemptyset(&block);
	for (i = 0; i < sizeof(fwdsigs) / sizeof(fwdsigs[0]); i++) {
		sigaddset(&block, fwdsigs[i]);
		if (sigaction(fwdsigs[i], &sa, NULL) == -1)
			err(EXIT_CANCELED, "sigaction");
	}
	if (sigprocmask(SIG_BLOCK, &block, &omask) == -1)
		err(EXIT_CANCELED, "sigprocmask");

	if ((pid = pdfork(&pd, PD_CLOEXEC)) == -1)
		err(EXIT_CANCELED, "pdfork");
	if (pid == 0) {
		sa.sa_handler = SIG_DFL;
		for (i = 0; i < sizeof(fwdsigs) / sizeof(fwdsigs[0]); i++)
			(void)sigaction(fwdsigs[i], &sa, NULL);
		(void)sigprocmask(SIG_SETMASK, &omask, NULL);
		execvp(argv[2], argv + 2);
		saved = errno;
		warn("failed to run command '%s'", argv[2]);
		_exit(saved == ENOENT ? EXIT_ENOENT : EXIT_CANNOT_INVOKE);
	}

	if (clock_gettime(CLOCK_MONOTONIC, &deadline) == -1)
		err(EXIT_CANCELED, "clock_gettime");
	deadline.tv_sec += (time_t)dur;
	deadline.tv_nsec += (long)((dur - (double)(time_t)dur) * 1e9);
	if (deadline.tv_nsec >= 1000000000L) {
		deadline.tv_sec++;
		deadline.tv_nsec -= 1000000000L;
	}

	pfd.fd = pd;
	pfd.events = POLLIN;
	timedout = false;
	for (;;) {
		tsp = NULL;
		if (dur > 0) {
			if (clock_gettime(CLOCK_MONOTONIC, &now) == -1)
				err(EXIT_CANCELED, "clock_gettime");
			left.tv_sec = deadline.tv_sec - now.tv_sec;
			left.tv_nsec = deadline.tv_nsec - now.tv_nsec;
			if (left.tv_nsec < 0) {
				left.tv_sec--;
				left.tv_nsec += 1000000000L;
			}
			if (left.tv_sec < 0) {
				timedout = true;
				break;
			}
			tsp = &left;
		}
		pfd.revents = 0;
		if (ppoll(&pfd, 1, tsp, &omask) == -1) {
			if (errno != EINTR)
				err(EXIT_CANCELED, "ppoll");
			if (gotsig != 0) {
				sig = gotsig;
				gotsig = 0;
				if (pdkill(pd, sig) == -1)
					warn("pdkill");
			}
			continue;
		}
		if (pfd.revents != 0)
			break;
	}
	if (timedout && pdkill(pd, SIGTERM) == -1)
		warn("pdkill");

	while (pdwait(pd, &status, WEXITED, NULL, NULL) == -1)
		if (errno != EINTR)
			err(EXIT_CANCELED, "pdwait");
	(void)close(pd);
	if (timedout)
		exit(EXIT_TIMEDOUT);
	if (WIFEXITED(status))
		exit(WEXITSTATUS(status));
	if (WIFSIGNALED(status)) {
		/* Die the same way, without a core dump of our own. */
		sig = WTERMSIG(status);
		rl.rlim_cur = rl.rlim_max = 0;
		(void)setrlimit(RLIMIT_CORE, &rl);
		sa.sa_handler = SIG_DFL;
		(void)sigaction(sig, &sa, NULL);
		(void)sigprocmask(SIG_UNBLOCK, &block, NULL);
		(void)raise(sig);
		exit(128 + sig);
	}
	exit(EXIT_CANCELED);
}

static void
catch(int sig)
{

	gotsig = sig;
}

static double
parse_duration(const char *s)
{
	char *end;
	double d;

	errno = 0;
	d = strtod(s, &end);
	if (errno != 0 || end == s || d < 0 || isnan(d))
		goto bad;
	switch (*end) {
	case '\0':
		return (d);
	case 's':
		break;
	case 'm':
		d *= 60;
		break;
	case 'h':
		d *= 60 * 60;
		break;
	case 'd':
		d *= 24 * 60 * 60;
		break;
	default:
		goto bad;
	}
	if (end[1] != '\0')
		goto bad;
	return (d);
bad:
	warnx("invalid time interval '%s'", s);
	usage();
	return (0);
}

static void
usage(void)
{

	fprintf(stderr, "usage: pdtimeout duration command [arg ...]\n");
	exit(EXIT_CANCELED);
}
