/*-
 * SPDX-License-Identifier: BSD-2-Clause
 *
 * Copyright (c) 2026 The libprocdesc authors.
 */

/*
 *	dlopen_helper plugin.so cycles
 *	dlopen_helper plugin.so waits
 *
 * A host not linked with the library (dlopen_test runs it): cycles times
 * it dlopens the plugin (tests/dlopen_plugin.c), which loads the library,
 * has it pdfork and pdwait a child, and every DH_EVERY-th cycle keep one
 * paused child alive, then dlcloses it.  The library's reaper and
 * guardian must go on serving the children whose descriptors the host
 * still holds: no crash at any cycle, no thread and no descriptor more
 * after the last cycle than after the first (a sanitizer's own threads
 * are there by then), but the kept children's; then each kept
 * descriptor's close kills its child, and the host still forks.  Exit 0
 * and "ok", or 1 and what went wrong.
 *
 * waits: the plugin's child execs and exits, which signals the host, and
 * the host's waitpid(-1, WNOHANG) must not take it (FreeBSD's rule, which
 * needs libprocdesc-preload.so in LD_PRELOAD here, since the host's waits
 * are the C library's otherwise): the plugin's pdwait then gets its
 * status.  Exit 0 and "ok", 2 if the host's wait took the child, 1 if
 * something else went wrong.
 */

#include <sys/syscall.h>
#include <sys/wait.h>

#include <dirent.h>
#include <dlfcn.h>
#include <err.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define	DH_EVERY	50	/* A child kept alive every so many cycles. */
#define	DH_KEPT		64	/* At most this many kept. */
#define	DH_SLACK	4	/* Descriptors the library may add later. */

/* Our open descriptors. */
static long
dh_fds(void)
{
	DIR *d;
	long n;

	if ((d = opendir("/proc/self/fd")) == NULL)
		err(1, "opendir");
	for (n = -3; readdir(d) != NULL; n++)	/* ., .., d's own */
		;
	closedir(d);
	return (n);
}

/* Our threads. */
static long
dh_threads(void)
{
	char line[256];
	FILE *fp;
	long n;

	if ((fp = fopen("/proc/self/status", "r")) == NULL)
		err(1, "fopen");
	n = -1;
	while (fgets(line, sizeof(line), fp) != NULL)
		if (sscanf(line, "Threads: %ld", &n) == 1)
			break;
	fclose(fp);
	return (n);
}

/* The child pid dies within 10 s of its descriptor's close. */
static int
dh_dies(pid_t pid)
{
	struct pollfd pfd;
	int fd, n;

	if ((fd = (int)syscall(SYS_pidfd_open, pid, 0)) == -1)
		return (1);		/* Gone, reaped already. */
	pfd.fd = fd;
	pfd.events = POLLIN;
	n = poll(&pfd, 1, 10000);
	close(fd);
	return (n == 1);
}

static int
dh_waits(const char *plugin)
{
	int (*exec)(pid_t *), (*collect)(int);
	pid_t pid, got;
	int fd, st;
	void *h;

	if ((h = dlopen(plugin, RTLD_NOW | RTLD_LOCAL)) == NULL)
		errx(1, "dlopen: %s", dlerror());
	exec = (int (*)(pid_t *))dlsym(h, "plugin_exec");
	collect = (int (*)(int))dlsym(h, "plugin_collect");
	if (exec == NULL || collect == NULL)
		errx(1, "dlsym: %s", dlerror());
	if ((fd = exec(&pid)) == -1)
		errx(1, "pdfork, exec or poll failed");
	if ((got = waitpid(-1, &st, WNOHANG)) == pid) {
		printf("the host's waitpid(-1) took the pdfork child %d\n",
		    (int)pid);
		return (2);
	}
	if (got != 0 && got != -1)
		errx(1, "waitpid(-1): %d", (int)got);
	if (collect(fd) != 0)
		errx(1, "pdwait: not the exit status 0 of true(1)");
	printf("ok: waits\n");
	return (0);
}

int
main(int argc, char **argv)
{
	int (*spawn)(pid_t *), (*run)(void);
	pid_t kept_pid[DH_KEPT], pid;
	int kept_fd[DH_KEPT], c, cycles, i, nkept, st;
	long fds0, threads0;
	void *h;

	if (argc == 3 && strcmp(argv[2], "waits") == 0)
		return (dh_waits(argv[1]));
	if (argc != 3 || (cycles = atoi(argv[2])) <= 0)
		errx(1, "usage: dlopen_helper plugin.so cycles | waits");
	fds0 = threads0 = -1;
	nkept = 0;
	for (c = 0; c < cycles; c++) {
		if ((h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL)) == NULL)
			errx(1, "cycle %d: dlopen: %s", c, dlerror());
		spawn = (int (*)(pid_t *))dlsym(h, "plugin_spawn");
		run = (int (*)(void))dlsym(h, "plugin_run");
		if (spawn == NULL || run == NULL)
			errx(1, "cycle %d: dlsym: %s", c, dlerror());
		if (run() != 0)
			errx(1, "cycle %d: pdfork and pdwait failed", c);
		if (c % DH_EVERY == 0 && nkept < DH_KEPT) {
			if ((kept_fd[nkept] = spawn(&kept_pid[nkept])) == -1)
				errx(1, "cycle %d: pdfork failed", c);
			nkept++;
		}
		if (dlclose(h) != 0)
			errx(1, "cycle %d: dlclose: %s", c, dlerror());
		if (c == 0) {
			/* The library loaded, its reaper and guardian up. */
			fds0 = dh_fds() - nkept;
			threads0 = dh_threads();
		}
		/* A kept child closed now and then wakes the reaper. */
		if (c % DH_EVERY == DH_EVERY / 2 && nkept > 1) {
			nkept--;
			close(kept_fd[nkept]);
			if (!dh_dies(kept_pid[nkept]))
				errx(1, "cycle %d: a closed child lives", c);
		}
	}
	if (dh_threads() > threads0)
		errx(1, "%ld threads, %ld after the first cycle",
		    dh_threads(), threads0);
	if (dh_fds() > fds0 + nkept + DH_SLACK)
		errx(1, "%ld descriptors, %ld after the first cycle and %d "
		    "kept", dh_fds(), fds0, nkept);
	for (i = 0; i < nkept; i++) {
		close(kept_fd[i]);
		if (!dh_dies(kept_pid[i]))
			errx(1, "kept child %d lives after its close",
			    (int)kept_pid[i]);
	}
	if ((pid = fork()) == 0)
		_exit(3);
	if (pid == -1 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st) ||
	    WEXITSTATUS(st) != 3)
		errx(1, "fork after the cycles");
	printf("ok: %d cycles\n", cycles);
	return (0);
}
