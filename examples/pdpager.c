/*-
 * SPDX-License-Identifier: BSD-2-Clause
 *
 * Copyright (c) 2026 The libprocdesc authors.
 */

/*
 * pdpager: copy files (or standard input) to standard output through
 * pr(1).  The filter is a child under a process descriptor; our standard
 * output is swapped for the write end of its pipe, so the copy loop is
 * plain stdio.  At the end, closing standard output gives the filter its
 * end of file, and pdwait(2) collects it: a filter that fails or dies is
 * reported, and pdpager exits with its status (128 + signal if killed).
 *
 * usage: pdpager [-t] [-h header] [-l lines] [-P filter] [file ...]
 * -t, -h and -l are passed to pr; -P runs filter instead of pr.
 */

#include <sys/types.h>
#include <sys/procdesc.h>
#include <sys/wait.h>

#include <err.h>
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void	copy(FILE *, const char *);
static void	usage(void);

static bool	broken;		/* The filter stopped reading. */
static int	rval;

int
main(int argc, char *argv[])
{
	char *prargv[8];
	const char *filter;
	FILE *fp;
	pid_t pid;
	int ch, i, pd, pfd[2], status;

	filter = "pr";
	i = 1;
	while ((ch = getopt(argc, argv, "th:l:P:")) != -1) {
		switch (ch) {
		case 't':
			prargv[i++] = "-t";
			break;
		case 'h':
			prargv[i++] = "-h";
			prargv[i++] = optarg;
			break;
		case 'l':
			prargv[i++] = "-l";
			prargv[i++] = optarg;
			break;
		case 'P':
			filter = optarg;
			break;
		default:
			usage();
		}
		if (i > 6)
			usage();
	}
	argc -= optind;
	argv += optind;
	prargv[0] = (char *)filter;
	prargv[i] = NULL;

	/* A filter that quits early must not kill us before we report. */
	if (signal(SIGPIPE, SIG_IGN) == SIG_ERR)
		err(1, "signal");
	if (pipe(pfd) == -1)
		err(1, "pipe");
	if ((pid = pdfork(&pd, PD_CLOEXEC)) == -1)
		err(1, "pdfork");
	if (pid == 0) {
		if (dup2(pfd[0], STDIN_FILENO) == -1)
			_exit(126);
		close(pfd[0]);
		close(pfd[1]);
		(void)signal(SIGPIPE, SIG_DFL);
		execvp(filter, prargv);
		warn("%s", filter);
		_exit(errno == ENOENT ? 127 : 126);
	}
	close(pfd[0]);
	if (fflush(stdout) != 0)
		err(1, "stdout");
	if (dup2(pfd[1], STDOUT_FILENO) == -1)
		err(1, "dup2");
	close(pfd[1]);

	if (*argv == NULL)
		copy(stdin, "stdin");
	for (; *argv != NULL && !broken; argv++) {
		if (strcmp(*argv, "-") == 0) {
			copy(stdin, "stdin");
			continue;
		}
		if ((fp = fopen(*argv, "r")) == NULL) {
			warn("%s", *argv);
			rval = 1;
			continue;
		}
		copy(fp, *argv);
		(void)fclose(fp);
	}
	if (fclose(stdout) != 0 && errno != EPIPE) {
		warn("stdout");
		rval = 1;
	}

	while (pdwait(pd, &status, WEXITED, NULL, NULL) == -1)
		if (errno != EINTR)
			err(1, "pdwait");
	(void)close(pd);
	if (WIFSIGNALED(status)) {
		warnx("%s: killed by signal %d (%s)", filter, WTERMSIG(status),
		    strsignal(WTERMSIG(status)));
		exit(128 + WTERMSIG(status));
	}
	if (WIFEXITED(status) && WEXITSTATUS(status) != 0) {
		warnx("%s: exited with status %d", filter,
		    WEXITSTATUS(status));
		exit(WEXITSTATUS(status));
	}
	exit(rval);
}

static void
copy(FILE *fp, const char *name)
{
	char buf[8192];
	size_t n;

	while ((n = fread(buf, 1, sizeof(buf), fp)) > 0) {
		if (fwrite(buf, 1, n, stdout) != n || fflush(stdout) != 0) {
			if (errno != EPIPE) {
				warn("stdout");
				rval = 1;
			}
			broken = true;
			clearerr(stdout);
			return;
		}
	}
	if (ferror(fp)) {
		warn("%s", name);
		rval = 1;
	}
}

static void
usage(void)
{

	fprintf(stderr,
	    "usage: pdpager [-t] [-h header] [-l lines] [-P filter] "
	    "[file ...]\n");
	exit(1);
}
