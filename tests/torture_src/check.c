/*-
 * SPDX-License-Identifier: BSD-2-Clause
 *
 * Copyright (c) 2026 The libprocdesc authors.
 */

/*
 * The checks around the run: the tag every process of the run inherits,
 * so that the end finds it wherever it was reparented; what is left at
 * the end (processes, zombies, descriptors); and the watchdog that calls
 * a thread without progress, or checks that take too long, a hang, with
 * what every thread was doing.
 */

#include <sys/random.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "guardian/protocol.h"
#include "torture.h"

static char tt_tag[64];			/* TT_TAG_ENV=value, or "". */
static pid_t tt_sentries[TT_MAXSENTRY];	/* Our guardians' sentries. */
static int tt_nsentry;
static pthread_t tt_mon;
static _Atomic bool tt_mon_done;
static _Atomic int64_t tt_final_start;	/* The checks after the run. */

/*
 * Tag the run: every process it makes inherits TT_TAG_ENV in its
 * environment, through exec too, so that the final check finds any of
 * them, wherever it was reparented.  /proc/PID/environ shows what a
 * process was exec'd with, so the run execs itself once to carry the tag
 * (whose value starts with our pid: an inherited one is not ours).
 */
void
tt_tag_run(char **argv)
{
	char val[48], pre[16], self[4096];
	const char *v;
	uint64_t r;
	ssize_t n;

	snprintf(pre, sizeof(pre), "%d.", (int)getpid());
	if ((v = getenv(TT_TAG_ENV)) != NULL &&
	    strncmp(v, pre, strlen(pre)) == 0) {
		snprintf(tt_tag, sizeof(tt_tag), TT_TAG_ENV "=%s", v);
		return;
	}
	if (getrandom(&r, sizeof(r), 0) != sizeof(r))
		r = (uint64_t)time(NULL);
	snprintf(val, sizeof(val), "%s%016" PRIx64, pre, r);
	setenv(TT_TAG_ENV, val, 1);
	/* By its name, not /proc/self/exe: the name is the command's. */
	if ((n = readlink("/proc/self/exe", self, sizeof(self) - 1)) > 0) {
		self[n] = '\0';
		execv(self, argv);
	}
	fprintf(stderr, "torture: cannot exec itself (%s): orphans go "
	    "unchecked\n", strerror(errno));
	unsetenv(TT_TAG_ENV);
}

/*
 * Whether pid inherited the tag of this run in its environment (all our
 * descendants but the guardians, whose environment is empty).
 */
static bool
tt_tagged(pid_t pid)
{
	char path[64], env[16384];
	size_t tl;
	ssize_t n, i;
	int fd;

	if (tt_tag[0] == '\0')
		return (false);
	snprintf(path, sizeof(path), "/proc/%d/environ", (int)pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return (false);
	n = read(fd, env, sizeof(env));
	close(fd);
	tl = strlen(tt_tag);
	for (i = 0; n > 0 && i + (ssize_t)tl <= n; i += (ssize_t)strnlen(env +
	    i, (size_t)(n - i)) + 1)
		if (memcmp(env + i, tt_tag, tl) == 0 &&
		    (i + (ssize_t)tl == n || env[i + tl] == '\0'))
			return (true);
	return (false);
}

static bool
tt_sentry(pid_t pid)
{
	int i;

	for (i = 0; i < tt_nsentry; i++)
		if (tt_sentries[i] == pid)
			return (true);
	return (false);
}

/*
 * What is left of the run: our children (zombies included) but the
 * sentries of our guardians, and any process anywhere that carries the
 * run's tag (an orphan init adopted, a grandchild).  How many, how many
 * zombies, the first few described in buf.  snapshot: file our sentries
 * instead (after the warm-up).
 */
int
tt_leftovers(int *zombiesp, char *buf, size_t len, bool snapshot)
{
	char path[300], st[512], *p, state;
	struct dirent *de;
	size_t off;
	DIR *d;
	FILE *fp;
	pid_t pid;
	int n, ppid;
	bool ours;

	n = *zombiesp = 0;
	off = 0;
	buf[0] = '\0';
	if ((d = opendir("/proc")) == NULL)
		return (-1);
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] < '0' || de->d_name[0] > '9' ||
		    (pid = atoi(de->d_name)) == getpid())
			continue;
		snprintf(path, sizeof(path), "/proc/%s/stat", de->d_name);
		if ((fp = fopen(path, "re")) == NULL)
			continue;
		ours = fgets(st, sizeof(st), fp) != NULL &&
		    (p = strrchr(st, ')')) != NULL &&
		    sscanf(p + 2, "%c %d", &state, &ppid) == 2 &&
		    (ppid == getpid() || tt_tagged(pid));
		fclose(fp);
		if (!ours)
			continue;
		if (snapshot) {
			if (ppid == getpid() && tt_nsentry < TT_MAXSENTRY &&
			    strstr(st, "(" PG_SENTRY_COMM ")") != NULL)
				tt_sentries[tt_nsentry++] = pid;
			continue;
		}
		if (tt_sentry(pid))
			continue;
		n++;
		if (state == 'Z')
			(*zombiesp)++;
		*p = '\0';
		if (off < len)
			off += (size_t)snprintf(buf + off, len - off,
			    "%s) %c ppid %d; ", st, state, ppid);
	}
	closedir(d);
	return (n);
}

/* The open descriptors, as "0 1 2 ...". */
void
tt_fds(char *buf, size_t len)
{
	struct dirent *de;
	size_t n;
	DIR *d;
	int dfd;

	buf[0] = '\0';
	if ((d = opendir("/proc/self/fd")) == NULL)
		return;
	dfd = dirfd(d);
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.' || atoi(de->d_name) == dfd)
			continue;
		n = strlen(buf);
		snprintf(buf + n, len - n, "%s ", de->d_name);
	}
	closedir(d);
}

/* The end: nothing of ours left running, no zombie, no descriptor. */
void
tt_final_checks(const char *fds0)
{
	char list[512], fds[4096];
	int64_t end;
	int n, zombies;

	end = tt_now() + (int64_t)TT_LONG_MS * 1000000;
	while ((n = tt_leftovers(&zombies, list, sizeof(list), false)) != 0 &&
	    tt_now() < end)
		usleep(10000);
	if (n != 0)
		tt_fail(NULL, "%d process%s of the run left after %d ms (%d "
		    "zombie%s): %s", n, n == 1 ? "" : "es", TT_LONG_MS,
		    zombies, zombies == 1 ? "" : "s", list);
	tt_fds(fds, sizeof(fds));
	if (strcmp(fds, fds0) != 0)
		tt_fail(NULL, "descriptors at the start [%s], at the end [%s]",
		    fds0, fds);
}

/* /proc/self/task/TID/NAME, one line, for the hang report. */
static void
tt_task_file(pid_t tid, const char *name, char *buf, size_t len)
{
	char path[64];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/self/task/%d/%s", (int)tid, name);
	buf[0] = '\0';
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return;
	n = read(fd, buf, len - 1);
	close(fd);
	buf[n > 0 ? n : 0] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
}

/* A hang: what every thread was doing, then abort. */
static void __attribute__((noreturn))
tt_hang(const char *why)
{
	char sc[128], wchan[64];
	struct tthread *t;
	int64_t now;
	int i;

	now = tt_now();
	for (i = 0; i < tt_nthreads; i++) {
		t = &tt_th[i];
		tt_task_file(atomic_load(&t->tid), "syscall", sc, sizeof(sc));
		tt_task_file(atomic_load(&t->tid), "wchan", wchan,
		    sizeof(wchan));
		printf("torture: thread %d (tid %d)%s: op %s pid %d for "
		    "%.1f s, handler %s, syscall [%s], wchan %s\n", i,
		    (int)atomic_load(&t->tid), atomic_load(&t->done) ?
		    " done" : "", tt_opname[atomic_load(&t->op)],
		    (int)atomic_load(&t->oppid),
		    (double)(now - atomic_load(&t->stamp)) / 1e9,
		    tt_hopname[atomic_load(&t->hop)], sc, wchan);
	}
	printf("torture: FAIL: seed %" PRIu64 ": hang: %s\n", tt_seed, why);
	fflush(stdout);
#ifdef TT_HANG_PAUSE
	/* Built with -DTT_HANG_PAUSE: time to attach a debugger. */
	sleep(600);
#endif
	abort();
}

/* The hang watchdog: any thread without progress for TT_HANG_S. */
static void *
tt_monitor(void *arg)
{
	struct timespec ts = { 0, 200 * 1000 * 1000 };
	char why[128];
	int64_t now, fs;
	int i;

	(void)arg;
	while (!atomic_load(&tt_mon_done)) {
		nanosleep(&ts, NULL);
		now = tt_now();
		for (i = 0; i < tt_nthreads; i++) {
			if (atomic_load(&tt_th[i].done) ||
			    now - atomic_load(&tt_th[i].stamp) <
			    (int64_t)TT_HANG_S * 1000000000)
				continue;
			snprintf(why, sizeof(why), "thread %d made no "
			    "progress for %d s", i, TT_HANG_S);
			tt_hang(why);
		}
		fs = atomic_load(&tt_final_start);
		if (fs != 0 && now - fs > (int64_t)TT_FINAL_S * 1000000000)
			tt_hang("the checks after the run took too long");
	}
	return (NULL);
}

/* The watchdog runs from before the threads to the end of the checks. */
bool
tt_watchdog_start(void)
{

	return (pthread_create(&tt_mon, NULL, tt_monitor, NULL) == 0);
}

/* The run is over: the checks after it start, bounded by TT_FINAL_S. */
void
tt_watchdog_final(void)
{

	atomic_store(&tt_final_start, tt_now());
}

/* The checks are over: no more watching. */
void
tt_watchdog_stop(void)
{

	atomic_store(&tt_mon_done, true);
	pthread_join(tt_mon, NULL);
}
