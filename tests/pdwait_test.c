/*-
 * SPDX-License-Identifier: BSD-2-Clause
 *
 * Copyright (c) 2026 The libprocdesc authors.
 */

/*
 * pdwait: the status, siginfo and rusage it reports, repeatably; NULL
 * arguments, WNOHANG, bad options and descriptors; blocking, EINTR, stop
 * and continue events.  Also what pdgetpid, pdkill and pdwait share:
 * errno left alone on success, and the calls made through a fork() copy
 * of the descriptor.
 */

#include <sys/procdesc.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include <atf-c.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "testutil.h"

#define	ERRNO_MARK	12345	/* errno before a call that must keep it. */

static long long
tv_us(const struct timeval *tv)
{

	return ((long long)tv->tv_sec * 1000000 + tv->tv_usec);
}

static bool
tv_sane(const struct timeval *tv)
{

	return (tv->tv_sec >= 0 && tv->tv_usec >= 0 && tv->tv_usec < 1000000);
}

/*
 * A child that burns about 30 ms of CPU, bounded in iterations so that it
 * always ends, then exits with code.
 */
static pid_t
pdfork_burn(int *fdp, int code)
{
	struct timespec ts;
	volatile unsigned long n;
	unsigned long i;
	pid_t pid;

	pid = pdfork(fdp, 0);
	ATF_REQUIRE_MSG(pid >= 0, "pdfork: %s", strerror(errno));
	if (pid == 0) {
		n = 0;
		for (i = 0; i < 4000000000UL; i++) {
			n++;
			if ((i & 0xfffff) == 0 &&
			    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts) == 0 &&
			    (ts.tv_sec > 0 || ts.tv_nsec >= 30 * 1000 * 1000))
				break;
		}
		_exit(code);
	}
	return (pid);
}

/*
 * A helper thread that waits until the main thread has announced a
 * blocking call (entering) and sleeps in it (within ms), then acts: writes
 * a byte to wfd, sends sig to the main thread, or pdkill()s pdsig to the
 * child.  If the main thread does not report back on done within
 * T_LONG_MS, the waker SIGKILLs the child, so that a call that missed its
 * wake-up still returns and the case fails instead of hanging.
 */
struct waker {
	pthread_t	main;		/* The thread to watch. */
	pid_t		tid;		/* Its kernel tid. */
	int		ms;		/* Bound on seeing it asleep. */
	atomic_bool	entering;	/* Main is about to block. */
	int		pdfd;		/* The pd of the child. */
	int		wfd;		/* Write a byte here, or -1. */
	int		sig;		/* Send this to main, or 0. */
	int		pdsig;		/* Send this to the child, or 0. */
	int		done[2];	/* Main writes here once it returned. */
	atomic_bool	slept;		/* Main was seen asleep. */
	atomic_bool	acted;		/* The byte or signal went out. */
	atomic_bool	rescued;	/* Main did not return: child killed. */
};

static void *
waker_main(void *arg)
{
	struct pollfd pfd;
	struct waker *w;

	w = arg;
	while (!atomic_load(&w->entering))
		sched_yield();
	atomic_store(&w->slept, t_task_sleeping(getpid(), w->tid, w->ms));
	atomic_store(&w->acted, true);
	if (w->wfd != -1)
		(void)write(w->wfd, "w", 1);
	if (w->sig != 0)
		(void)pthread_kill(w->main, w->sig);
	if (w->pdsig != 0)
		(void)pdkill(w->pdfd, w->pdsig);
	pfd.fd = w->done[0];
	pfd.events = POLLIN;
	if (poll(&pfd, 1, T_LONG_MS) != 1) {
		atomic_store(&w->rescued, true);
		(void)pdkill(w->pdfd, SIGKILL);
	}
	return (NULL);
}

/* A waker for the child behind pdfd that does nothing yet. */
static void
waker_init(struct waker *w, int pdfd)
{

	memset(w, 0, sizeof(*w));
	w->main = pthread_self();
	w->tid = (pid_t)syscall(SYS_gettid);
	w->ms = T_LONG_MS;
	atomic_init(&w->entering, false);
	atomic_init(&w->slept, false);
	atomic_init(&w->acted, false);
	atomic_init(&w->rescued, false);
	w->pdfd = pdfd;
	w->wfd = -1;
	ATF_REQUIRE(pipe(w->done) == 0);
}

static void
waker_start(struct waker *w, pthread_t *td)
{

	ATF_REQUIRE(pthread_create(td, NULL, waker_main, w) == 0);
}

/* The main thread returned from its blocking call: join the waker. */
static void
waker_join(struct waker *w, pthread_t td)
{

	ATF_REQUIRE(write(w->done[1], "d", 1) == 1);
	ATF_REQUIRE(pthread_join(td, NULL) == 0);
	t_close_pipe(w->done);
	ATF_CHECK_MSG(atomic_load(&w->slept), "never saw the call asleep");
	ATF_CHECK_MSG(!atomic_load(&w->rescued),
	    "the call did not return: child killed to end it");
}

/* pdwait reports the code of _exit(N), 0 and 255 included. */
T_TC(pdwait__exit_status, "pdwait: WIFEXITED and WEXITSTATUS of _exit(N)")
{
	const int codes[] = { 0, 1, 42, 127, 128, 255 };
	size_t i;
	int fd, status;

	for (i = 0; i < sizeof(codes) / sizeof(codes[0]); i++) {
		t_pdfork_exit(&fd, 0, codes[i]);
		status = -1;
		ATF_REQUIRE(pdwait(fd, &status, WEXITED, NULL, NULL) == 0);
		ATF_CHECK_MSG(WIFEXITED(status) &&
		    WEXITSTATUS(status) == codes[i],
		    "_exit(%d): status %#x", codes[i], status);
		ATF_REQUIRE(close(fd) == 0);
	}
}

/* pdwait reports a child killed by a signal it raised itself. */
T_TC(pdwait__signaled, "pdwait: WIFSIGNALED and WTERMSIG")
{
	pid_t pid;
	int fd, status;

	pid = pdfork(&fd, 0);
	ATF_REQUIRE_MSG(pid >= 0, "pdfork: %s", strerror(errno));
	if (pid == 0) {
		(void)raise(SIGUSR2);
		_exit(1);
	}
	status = 0;
	ATF_REQUIRE(pdwait(fd, &status, WEXITED, NULL, NULL) == 0);
	ATF_CHECK_MSG(WIFSIGNALED(status) && WTERMSIG(status) == SIGUSR2,
	    "status %#x", status);
	ATF_CHECK(!WIFEXITED(status));
	ATF_REQUIRE(close(fd) == 0);
}

/* pdwait returns 0 on success, not the pid. */
T_TC(pdwait__returns_zero, "pdwait returns 0, not a pid")
{
	int fd;

	t_pdfork_exit(&fd, 0, 5);
	ATF_CHECK_EQ(pdwait(fd, NULL, WEXITED, NULL, NULL), 0);
	ATF_CHECK_EQ(pdwait(fd, NULL, WEXITED | WNOHANG, NULL, NULL), 0);
	ATF_REQUIRE(close(fd) == 0);
}

/* pdwait fills info like waitid: SIGCHLD, pid, code and status. */
T_TC(pdwait__info, "pdwait fills siginfo for an exit and a kill")
{
	siginfo_t si;
	pid_t pid;
	int fd;

	pid = t_pdfork_exit(&fd, 0, 42);
	memset(&si, 0xa5, sizeof(si));
	ATF_REQUIRE(pdwait(fd, NULL, WEXITED, NULL, &si) == 0);
	ATF_CHECK_EQ(si.si_signo, SIGCHLD);
	ATF_CHECK_EQ(si.si_pid, pid);
	ATF_CHECK_EQ(si.si_code, CLD_EXITED);
	ATF_CHECK_EQ(si.si_status, 42);
	ATF_REQUIRE(close(fd) == 0);

	pid = t_pdfork_pause(&fd, 0);
	ATF_REQUIRE(pdkill(fd, SIGKILL) == 0);
	memset(&si, 0xa5, sizeof(si));
	ATF_REQUIRE(pdwait(fd, NULL, WEXITED, NULL, &si) == 0);
	ATF_CHECK_EQ(si.si_signo, SIGCHLD);
	ATF_CHECK_EQ(si.si_pid, pid);
	ATF_CHECK_EQ(si.si_code, CLD_KILLED);
	ATF_CHECK_EQ(si.si_status, SIGKILL);
	ATF_REQUIRE(close(fd) == 0);
}

/* pdwait fills wrusage with the child's own CPU time. */
T_TC(pdwait__rusage, "pdwait fills wru_self")
{
	struct __wrusage wru;
	int fd, status;

	pdfork_burn(&fd, 3);
	memset(&wru, 0xff, sizeof(wru));
	ATF_REQUIRE(pdwait(fd, &status, WEXITED, &wru, NULL) == 0);
	ATF_CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 3);
	ATF_CHECK(tv_sane(&wru.wru_self.ru_utime));
	ATF_CHECK(tv_sane(&wru.wru_self.ru_stime));
	ATF_CHECK_MSG(tv_us(&wru.wru_self.ru_utime) +
	    tv_us(&wru.wru_self.ru_stime) > 0, "no CPU time: %lld+%lld us",
	    tv_us(&wru.wru_self.ru_utime), tv_us(&wru.wru_self.ru_stime));
	/* wru_children: zero (nothing reaped below) or real, not garbage. */
	ATF_CHECK(tv_sane(&wru.wru_children.ru_utime));
	ATF_CHECK(tv_sane(&wru.wru_children.ru_stime));
	ATF_REQUIRE(close(fd) == 0);
}

/* pdwait accepts NULL for status, wrusage and info, in any mix. */
T_TC(pdwait__null_args, "pdwait: NULL status, wrusage, info accepted")
{
	struct __wrusage wru;
	siginfo_t si;
	int fd, status;

	t_pdfork_exit(&fd, 0, 9);
	ATF_CHECK_EQ(pdwait(fd, NULL, WEXITED, NULL, NULL), 0);
	status = -1;
	ATF_CHECK_EQ(pdwait(fd, &status, WEXITED, NULL, NULL), 0);
	ATF_CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 9);
	ATF_CHECK_EQ(pdwait(fd, NULL, WEXITED, &wru, NULL), 0);
	memset(&si, 0, sizeof(si));
	ATF_CHECK_EQ(pdwait(fd, NULL, WEXITED, NULL, &si), 0);
	ATF_CHECK_EQ(si.si_status, 9);
	ATF_REQUIRE(close(fd) == 0);
}

/* pdwait WNOHANG on a live child fails with EAGAIN, writing nothing. */
T_TC(pdwait__wnohang_live, "pdwait WNOHANG on a live child: EAGAIN")
{
	int fd, status;

	t_pdfork_pause(&fd, 0);
	status = -42;
	errno = 0;
	ATF_CHECK_ERRNO(EAGAIN,
	    pdwait(fd, &status, WEXITED | WNOHANG, NULL, NULL) == -1);
	ATF_CHECK_EQ(status, -42);
	ATF_REQUIRE(pdkill(fd, SIGKILL) == 0);
	ATF_REQUIRE(pdwait(fd, &status, WEXITED, NULL, NULL) == 0);
	ATF_REQUIRE(close(fd) == 0);
}

/* pdwait WNOHANG after the child was reaped returns 0 and the status. */
T_TC(pdwait__wnohang_exited, "pdwait WNOHANG after exit: 0 and status")
{
	siginfo_t si;
	pid_t pid;
	int fd, status;

	pid = t_pdfork_exit(&fd, 0, 17);
	t_wait_reaped(fd);
	status = -1;
	memset(&si, 0, sizeof(si));
	ATF_REQUIRE_EQ(pdwait(fd, &status, WEXITED | WNOHANG, NULL, &si), 0);
	ATF_CHECK_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 17,
	    "status %#x", status);
	ATF_CHECK_EQ(si.si_pid, pid);
	ATF_REQUIRE(close(fd) == 0);
}

/* pdwait is repeatable: each call gives the same status and rusage. */
T_TC(pdwait__repeatable, "pdwait three times: same status and rusage")
{
	struct __wrusage wru[3];
	siginfo_t si[3];
	int fd, i, status[3];

	pdfork_burn(&fd, 21);
	memset(wru, 0xa5, sizeof(wru));
	memset(si, 0, sizeof(si));
	for (i = 0; i < 3; i++) {
		status[i] = -1;
		ATF_REQUIRE_MSG(pdwait(fd, &status[i], WEXITED | (i == 2 ?
		    WNOHANG : 0), &wru[i], &si[i]) == 0, "call %d: %s", i,
		    strerror(errno));
	}
	ATF_CHECK(WIFEXITED(status[0]) && WEXITSTATUS(status[0]) == 21);
	ATF_CHECK(tv_us(&wru[0].wru_self.ru_utime) +
	    tv_us(&wru[0].wru_self.ru_stime) > 0);
	for (i = 1; i < 3; i++) {
		ATF_CHECK_EQ(status[i], status[0]);
		ATF_CHECK_MSG(memcmp(&wru[i].wru_self, &wru[0].wru_self,
		    sizeof(wru[0].wru_self)) == 0, "rusage of call %d differs",
		    i);
		ATF_CHECK_EQ(si[i].si_pid, si[0].si_pid);
		ATF_CHECK_EQ(si[i].si_code, si[0].si_code);
		ATF_CHECK_EQ(si[i].si_status, si[0].si_status);
	}
	ATF_REQUIRE(close(fd) == 0);
}

/*
 * pdwait with options that ask for no event, or unknown bits, fails with
 * EINVAL: WEXITED is not implied.
 */
T_TC(pdwait__einval_options, "pdwait: EINVAL for 0, unknown bits, WNOHANG")
{
	const int bad[] = { 0, 0x40000000, WNOHANG, WNOHANG | WNOWAIT,
	    WEXITED | 0x40000000, -1 };
	size_t i;
	int fd, status;

	t_pdfork_exit(&fd, 0, 0);
	t_wait_reaped(fd);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		status = -42;
		errno = 0;
		ATF_CHECK_ERRNO(EINVAL,
		    pdwait(fd, &status, bad[i], NULL, NULL) == -1);
		ATF_CHECK_EQ(status, -42);
	}
	ATF_CHECK_EQ(pdwait(fd, &status, WEXITED, NULL, NULL), 0);
	ATF_REQUIRE(close(fd) == 0);
}

/* pdwait on an open fd that is not a pd fails with EINVAL, not EBADF. */
T_TC(pdwait__einval_not_pd, "pdwait: EINVAL for a pipe, file, socket")
{
	int f, p[2], s[2];

	f = t_regular_file();
	ATF_REQUIRE(pipe(p) == 0);
	ATF_REQUIRE(socketpair(AF_UNIX, SOCK_STREAM, 0, s) == 0);
	ATF_CHECK_ERRNO(EINVAL, pdwait(p[0], NULL, WEXITED, NULL, NULL) == -1);
	ATF_CHECK_ERRNO(EINVAL, pdwait(p[1], NULL, WEXITED, NULL, NULL) == -1);
	ATF_CHECK_ERRNO(EINVAL, pdwait(f, NULL, WEXITED, NULL, NULL) == -1);
	ATF_CHECK_ERRNO(EINVAL, pdwait(s[0], NULL, WEXITED, NULL, NULL) == -1);
	ATF_REQUIRE(close(f) == 0);
	t_close_pipe(p);
	t_close_pipe(s);
}

/* pdwait on an fd that is not open fails with EBADF. */
T_TC(pdwait__ebadf, "pdwait: EBADF for a closed fd")
{
	int status;

	status = -42;
	ATF_CHECK_ERRNO(EBADF,
	    pdwait(-1, &status, WEXITED, NULL, NULL) == -1);
	ATF_CHECK_ERRNO(EBADF,
	    pdwait(INT_MAX, &status, WEXITED, NULL, NULL) == -1);
	ATF_CHECK_ERRNO(EBADF, pdwait(t_closed_fd(), &status,
	    WEXITED | WNOHANG, NULL, NULL) == -1);
	ATF_CHECK_EQ(status, -42);
}

/* pdwait with an unwritable status, wrusage or info fails with EFAULT. */
T_TC(pdwait__efault, "pdwait: EFAULT for unmapped status, wrusage, info")
{
	int fd, status;

	t_pdfork_exit(&fd, 0, 4);
	t_wait_reaped(fd);
	ATF_CHECK_ERRNO(EFAULT,
	    pdwait(fd, t_unmapped(), WEXITED, NULL, NULL) == -1);
	ATF_CHECK_ERRNO(EFAULT,
	    pdwait(fd, NULL, WEXITED, t_unmapped(), NULL) == -1);
	ATF_CHECK_ERRNO(EFAULT,
	    pdwait(fd, NULL, WEXITED, NULL, t_unmapped()) == -1);
	ATF_CHECK_ERRNO(EFAULT,
	    pdwait(fd, &status, WEXITED | WNOHANG, NULL, t_unmapped()) == -1);
	/* Nothing was consumed. */
	status = -1;
	ATF_CHECK_EQ(pdwait(fd, &status, WEXITED, NULL, NULL), 0);
	ATF_CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 4);
	ATF_REQUIRE(close(fd) == 0);
}

/*
 * pdwait without WNOHANG blocks while the child runs and returns once it
 * exits: a thread lets the child exit only after it saw us asleep.
 */
T_TC(pdwait__blocks, "pdwait blocks until the child exits")
{
	struct waker w;
	pthread_t td;
	int ctl[2], fd, status;

	t_pdfork_on_byte(&fd, ctl, 33);
	waker_init(&w, fd);
	w.wfd = ctl[1];
	waker_start(&w, &td);
	status = -1;
	atomic_store(&w.entering, true);
	ATF_CHECK_EQ(pdwait(fd, &status, WEXITED, NULL, NULL), 0);
	ATF_CHECK_MSG(atomic_load(&w.acted), "returned before the exit");
	waker_join(&w, td);
	ATF_CHECK_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 33,
	    "status %#x", status);
	t_close_pipe(ctl);
	ATF_REQUIRE(close(fd) == 0);
}

static volatile sig_atomic_t got_alrm;

static void
on_alrm(int sig)
{

	(void)sig;
	got_alrm = 1;
}

/*
 * A signal caught by a handler without SA_RESTART interrupts a blocked
 * pdwait: -1/EINTR, the child untouched.
 */
T_TC(pdwait__eintr, "pdwait: EINTR when a handler interrupts it")
{
	struct sigaction sa, osa;
	struct waker w;
	pthread_t td;
	pid_t pid;
	int fd, status, watch, r, e;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alrm;
	sa.sa_flags = 0;
	ATF_REQUIRE(sigaction(SIGALRM, &sa, &osa) == 0);
	got_alrm = 0;
	pid = t_pdfork_pause(&fd, 0);
	watch = t_watch(pid);
	waker_init(&w, fd);
	w.sig = SIGALRM;
	waker_start(&w, &td);
	status = -42;
	atomic_store(&w.entering, true);
	r = pdwait(fd, &status, WEXITED, NULL, NULL);
	e = errno;
	waker_join(&w, td);
	ATF_CHECK(got_alrm == 1);
	ATF_CHECK_MSG(r == -1 && e == EINTR, "pdwait: %d, %s", r,
	    strerror(e));
	ATF_CHECK_EQ(status, -42);
	ATF_CHECK(t_alive(watch));
	ATF_REQUIRE(pdkill(fd, SIGKILL) == 0);
	ATF_REQUIRE(pdwait(fd, &status, WEXITED, NULL, NULL) == 0);
	ATF_CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	ATF_REQUIRE(sigaction(SIGALRM, &osa, NULL) == 0);
	ATF_REQUIRE(close(watch) == 0);
	ATF_REQUIRE(close(fd) == 0);
}

/*
 * pdwait(WUNTRACED) reports a stopped child and pdwait(WCONTINUED) its
 * continuation.
 */
T_TC(pdwait__stop_continue, "pdwait: WUNTRACED and WCONTINUED events")
{
	siginfo_t si;
	pid_t pid;
	int fd, status;

	pid = t_pdfork_pause(&fd, 0);
	ATF_REQUIRE(pdkill(fd, SIGSTOP) == 0);
	status = -1;
	memset(&si, 0, sizeof(si));
	ATF_REQUIRE(pdwait(fd, &status, WUNTRACED, NULL, &si) == 0);
	ATF_CHECK_MSG(WIFSTOPPED(status) && WSTOPSIG(status) == SIGSTOP,
	    "status %#x", status);
	ATF_CHECK_EQ(si.si_pid, pid);
	ATF_CHECK_EQ(si.si_code, CLD_STOPPED);
	ATF_CHECK_EQ(si.si_status, SIGSTOP);

	ATF_REQUIRE(pdkill(fd, SIGCONT) == 0);
	status = -1;
	memset(&si, 0, sizeof(si));
	ATF_REQUIRE(pdwait(fd, &status, WCONTINUED, NULL, &si) == 0);
	ATF_CHECK_MSG(WIFCONTINUED(status), "status %#x", status);
	ATF_CHECK_EQ(si.si_pid, pid);
	ATF_CHECK_EQ(si.si_code, CLD_CONTINUED);

	ATF_REQUIRE(pdkill(fd, SIGKILL) == 0);
	ATF_REQUIRE(pdwait(fd, &status, WEXITED | WUNTRACED | WCONTINUED,
	    NULL, NULL) == 0);
	ATF_CHECK_MSG(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL,
	    "status %#x", status);
	ATF_REQUIRE(close(fd) == 0);
}

static long long
thread_cpu_us(void)
{
	struct rusage ru;

	ATF_REQUIRE(getrusage(RUSAGE_THREAD, &ru) == 0);
	return (tv_us(&ru.ru_utime) + tv_us(&ru.ru_stime));
}

/*
 * pdwait(WCONTINUED) on a stopped child whose stop nobody collected
 * sleeps until the child is continued.
 */
T_TC(pdwait__wcontinued_sleeps, "pdwait(WCONTINUED) sleeps while stopped")
{
	struct waker w;
	pthread_t td;
	long long cpu;
	int fd, status;

	t_pdfork_pause(&fd, 0);
	ATF_REQUIRE(pdkill(fd, SIGSTOP) == 0);
	/* The stop is pending (not collected) from here on. */
	status = -1;
	ATF_REQUIRE(pdwait(fd, &status, WUNTRACED | WNOWAIT, NULL, NULL) == 0);
	ATF_REQUIRE(WIFSTOPPED(status));
	waker_init(&w, fd);
	w.ms = 2000;
	w.pdsig = SIGCONT;
	waker_start(&w, &td);
	cpu = thread_cpu_us();
	atomic_store(&w.entering, true);
	ATF_CHECK_EQ(pdwait(fd, &status, WCONTINUED, NULL, NULL), 0);
	cpu = thread_cpu_us() - cpu;
	waker_join(&w, td);
	ATF_CHECK_MSG(WIFCONTINUED(status), "status %#x", status);
	ATF_CHECK_MSG(atomic_load(&w.slept), "pdwait used %lld us of CPU",
	    cpu);
	ATF_REQUIRE(pdkill(fd, SIGKILL) == 0);
	ATF_REQUIRE(pdwait(fd, NULL, WEXITED, NULL, NULL) == 0);
	ATF_REQUIRE(close(fd) == 0);
}

/*
 * pdwait(WUNTRACED) on a child whose continuation nobody collected sleeps
 * until the child stops again.
 */
T_TC(pdwait__wuntraced_sleeps, "pdwait(WUNTRACED) sleeps while running")
{
	struct waker w;
	pthread_t td;
	long long cpu;
	int fd, status;

	t_pdfork_pause(&fd, 0);
	ATF_REQUIRE(pdkill(fd, SIGSTOP) == 0);
	ATF_REQUIRE(pdwait(fd, &status, WUNTRACED, NULL, NULL) == 0);
	ATF_REQUIRE(WIFSTOPPED(status));
	/* The continuation is pending (not collected) from here on. */
	ATF_REQUIRE(pdkill(fd, SIGCONT) == 0);
	waker_init(&w, fd);
	w.ms = 2000;
	w.pdsig = SIGSTOP;
	waker_start(&w, &td);
	cpu = thread_cpu_us();
	atomic_store(&w.entering, true);
	ATF_CHECK_EQ(pdwait(fd, &status, WUNTRACED, NULL, NULL), 0);
	cpu = thread_cpu_us() - cpu;
	waker_join(&w, td);
	ATF_CHECK_MSG(WIFSTOPPED(status) && WSTOPSIG(status) == SIGSTOP,
	    "status %#x", status);
	ATF_CHECK_MSG(atomic_load(&w.slept), "pdwait used %lld us of CPU",
	    cpu);
	ATF_REQUIRE(pdkill(fd, SIGKILL) == 0);
	ATF_REQUIRE(pdwait(fd, NULL, WEXITED, NULL, NULL) == 0);
	ATF_REQUIRE(close(fd) == 0);
}

/* A successful pdgetpid, pdkill or pdwait leaves errno alone. */
T_TC(errno__kept, "errno is unchanged by successful calls")
{
	struct __wrusage wru;
	siginfo_t si;
	pid_t got;
	int ctl[2], fd, status;

	t_pdfork_on_byte(&fd, ctl, 0);
	errno = ERRNO_MARK;
	ATF_CHECK(pdgetpid(fd, &got) == 0);
	ATF_CHECK_EQ(errno, ERRNO_MARK);
	errno = ERRNO_MARK;
	ATF_CHECK(pdkill(fd, 0) == 0);
	ATF_CHECK_EQ(errno, ERRNO_MARK);
	ATF_REQUIRE(write(ctl[1], "x", 1) == 1);
	errno = ERRNO_MARK;
	ATF_CHECK(pdwait(fd, &status, WEXITED, &wru, &si) == 0);
	ATF_CHECK_EQ(errno, ERRNO_MARK);
	errno = ERRNO_MARK;
	ATF_CHECK(pdwait(fd, &status, WEXITED | WNOHANG, NULL, NULL) == 0);
	ATF_CHECK_EQ(errno, ERRNO_MARK);
	errno = ERRNO_MARK;
	ATF_CHECK(pdkill(fd, SIGTERM) == 0);	/* Exited: a no-op. */
	ATF_CHECK_EQ(errno, ERRNO_MARK);
	errno = ERRNO_MARK;
	ATF_CHECK(pdgetpid(fd, &got) == 0);
	ATF_CHECK_EQ(errno, ERRNO_MARK);
	t_close_pipe(ctl);
	ATF_REQUIRE(close(fd) == 0);
}

/*
 * Reap a fork() child within T_LONG_MS (else kill it) and return its exit
 * code, or -1 if it did not exit.
 */
static int
reap_fork(pid_t f)
{
	int st, w;

	w = t_watch(f);
	if (!t_dead_within(w, T_LONG_MS))
		(void)kill(f, SIGKILL);
	ATF_REQUIRE(close(w) == 0);
	ATF_REQUIRE(waitpid(f, &st, 0) == f);
	return (WIFEXITED(st) ? WEXITSTATUS(st) : -1);
}

/*
 * A fork() copy of the process holding the descriptor can pdgetpid,
 * pdkill and pdwait (blocking) through its copy.
 */
T_TC(fork_copy__calls, "a fork copy can pdgetpid, pdkill and pdwait")
{
	pid_t pid, f;
	int fd, status;

	pid = t_pdfork_pause(&fd, 0);
	f = fork();
	ATF_REQUIRE(f >= 0);
	if (f == 0)
		_exit(t_copy_ops(fd, pid));
	ATF_CHECK_EQ_MSG(reap_fork(f), 0, "see the _exit codes in the copy");
	/* A no-op unless the copy failed to kill it. */
	ATF_REQUIRE(pdkill(fd, SIGKILL) == 0);
	ATF_REQUIRE_MSG(pdwait(fd, &status, WEXITED, NULL, NULL) == 0,
	    "pdwait: %s", strerror(errno));
	ATF_CHECK_MSG(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM,
	    "status %#x", status);
	ATF_REQUIRE(close(fd) == 0);
}

/*
 * In a fork() copy made while the child ran, pdwait after the child's exit
 * gives the status (PIDFD_INFO_EXIT), as do pdgetpid and pdkill (0).
 * Before Linux 6.15 the kernel keeps no status for a non-parent: ECHILD.
 */
T_TC(fork_copy__pdwait_after_exit, "a fork copy pdwaits an exited child")
{
	siginfo_t si;
	pid_t pid, f, got;
	int ctl[2], go[2], fd, status, st;
	char c;

	pid = t_pdfork_on_byte(&fd, ctl, 77);
	ATF_REQUIRE(pipe(go) == 0);
	f = fork();
	ATF_REQUIRE(f >= 0);
	if (f == 0) {
		(void)close(go[1]);
		if (read(go[0], &c, 1) != 1)
			_exit(10);
		if (pdgetpid(fd, &got) != 0 || got != pid)
			_exit(11);
		if (pdkill(fd, SIGKILL) != 0)
			_exit(12);
		memset(&si, 0, sizeof(si));
		errno = ERRNO_MARK;
		if (pdwait(fd, &st, WEXITED | WNOHANG, NULL, &si) != 0)
			_exit(13);
		if (errno != ERRNO_MARK)
			_exit(17);
		if (!WIFEXITED(st) || WEXITSTATUS(st) != 77)
			_exit(14);
		if (si.si_pid != pid || si.si_code != CLD_EXITED ||
		    si.si_status != 77)
			_exit(15);
		st = -1;
		if (pdwait(fd, &st, WEXITED, NULL, NULL) != 0 ||
		    !WIFEXITED(st) || WEXITSTATUS(st) != 77)
			_exit(16);
		_exit(0);
	}
	ATF_REQUIRE(write(ctl[1], "x", 1) == 1);
	t_wait_reaped(fd);
	ATF_REQUIRE(write(go[1], "g", 1) == 1);
	ATF_CHECK_EQ_MSG(reap_fork(f), 0, "see the _exit codes in the copy");
	ATF_REQUIRE(pdwait(fd, &status, WEXITED, NULL, NULL) == 0);
	ATF_CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 77);
	t_close_pipe(go);
	t_close_pipe(ctl);
	ATF_REQUIRE(close(fd) == 0);
}

/*
 * In a fork() copy of the owner, which can see no stop of the child, pdwait
 * for stops alone fails with ECHILD at once instead of blocking.
 */
T_TC(pdwait__copy_wuntraced_echild, "pdwait(WUNTRACED) in a fork copy: "
    "ECHILD, not a wait for ever")
{
	siginfo_t si;
	pid_t pid, copy;
	int fd, st, watch;

	pid = t_pdfork_pause(&fd, 0);
	watch = t_watch(pid);
	if ((copy = fork()) == 0) {
		alarm(10);	/* A broken library blocks: fail, not hang. */
		_exit(pdwait(fd, &st, WUNTRACED, NULL, NULL) == -1 &&
		    errno == ECHILD ? 0 : 1);
	}
	ATF_REQUIRE(copy > 0);
	memset(&si, 0, sizeof(si));
	ATF_REQUIRE(waitid(P_PID, (id_t)copy, &si, WEXITED) == 0);
	ATF_CHECK_MSG(si.si_code == CLD_EXITED && si.si_status == 0,
	    "the copy's pdwait: code %d status %d", si.si_code, si.si_status);
	ATF_REQUIRE(close(fd) == 0);
	t_expect_death(watch);
}

/*
 * The copy's side of fork_copy__wnohang_after_hangup: once told, make the
 * child exit, see the hang-up, and pdwait(WNOHANG) at once.  What it
 * found goes to res: 0, or a code that says what went wrong.
 */
static char
hangup_probe(int fd, int ctl, int go)
{
	struct pollfd pfd;
	char c;
	int st;

	if (read(go, &c, 1) != 1)
		return (10);
	if (write(ctl, "x", 1) != 1)
		return (11);
	pfd.fd = fd;
	pfd.events = POLLHUP;
	if (poll(&pfd, 1, T_LONG_MS) != 1)
		return (12);
	st = -1;
	if (pdwait(fd, &st, WEXITED | WNOHANG, NULL, NULL) != 0)
		return (errno == EAGAIN ? 13 : 14);
	return (WIFEXITED(st) && WEXITSTATUS(st) == 77 ? 0 : 15);
}

/*
 * A hang-up means the exit happened: a holder's pdwait(WNOHANG) then
 * reports it, even while the owner, whose word carries the status, cannot
 * speak (stopped here).  It said EAGAIN, "running", before (13).
 */
T_TC(fork_copy__wnohang_after_hangup, "after the hang-up a holder's "
    "pdwait(WNOHANG) reports the exit")
{
	int ctl[2], go[2], res[2], fd, st;
	pid_t k, o;
	char r;

	ATF_REQUIRE(pipe2(go, O_CLOEXEC) == 0);
	ATF_REQUIRE(pipe2(res, O_CLOEXEC) == 0);
	ATF_REQUIRE((o = fork()) >= 0);
	if (o == 0) {
		/* The owner: a child, a fork copy of it, then it stops. */
		(void)t_pdfork_on_byte(&fd, ctl, 77);
		if ((k = fork()) == -1)
			_exit(20);
		if (k == 0) {
			r = hangup_probe(fd, ctl[1], go[0]);
			t_child_write(res[1], &r, 1);
			_exit(0);
		}
		(void)raise(SIGSTOP);
		(void)close(fd);
		_exit(t_reap(k));
	}
	ATF_REQUIRE(close(res[1]) == 0);
	ATF_REQUIRE(waitpid(o, &st, WUNTRACED) == o && WIFSTOPPED(st));
	ATF_REQUIRE(write(go[1], "g", 1) == 1);
	/* The owner stays stopped until the copy has its answer. */
	if (read(res[0], &r, 1) != 1)
		r = -1;
	ATF_REQUIRE(kill(o, SIGCONT) == 0);
	ATF_CHECK_EQ_MSG(t_reap(o), 0, "the owner or its copy failed");
	ATF_CHECK_EQ_MSG(r, 0, "see hangup_probe()'s codes");
	ATF_REQUIRE(close(res[0]) == 0);
	ATF_REQUIRE(close(go[0]) == 0);
	ATF_REQUIRE(close(go[1]) == 0);
}

ATF_TP_ADD_TCS(tp)
{

	ATF_TP_ADD_TC(tp, pdwait__exit_status);
	ATF_TP_ADD_TC(tp, pdwait__signaled);
	ATF_TP_ADD_TC(tp, pdwait__returns_zero);
	ATF_TP_ADD_TC(tp, pdwait__info);
	ATF_TP_ADD_TC(tp, pdwait__rusage);
	ATF_TP_ADD_TC(tp, pdwait__null_args);
	ATF_TP_ADD_TC(tp, pdwait__wnohang_live);
	ATF_TP_ADD_TC(tp, pdwait__wnohang_exited);
	ATF_TP_ADD_TC(tp, pdwait__repeatable);
	ATF_TP_ADD_TC(tp, pdwait__einval_options);
	ATF_TP_ADD_TC(tp, pdwait__einval_not_pd);
	ATF_TP_ADD_TC(tp, pdwait__ebadf);
	ATF_TP_ADD_TC(tp, pdwait__efault);
	ATF_TP_ADD_TC(tp, pdwait__blocks);
	ATF_TP_ADD_TC(tp, pdwait__eintr);
	ATF_TP_ADD_TC(tp, pdwait__stop_continue);
	ATF_TP_ADD_TC(tp, pdwait__wcontinued_sleeps);
	ATF_TP_ADD_TC(tp, pdwait__wuntraced_sleeps);
	ATF_TP_ADD_TC(tp, pdwait__copy_wuntraced_echild);
	ATF_TP_ADD_TC(tp, errno__kept);
	ATF_TP_ADD_TC(tp, fork_copy__calls);
	ATF_TP_ADD_TC(tp, fork_copy__pdwait_after_exit);
	ATF_TP_ADD_TC(tp, fork_copy__wnohang_after_hangup);
	return (atf_no_error());
}
