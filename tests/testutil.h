/*-
 * SPDX-License-Identifier: BSD-2-Clause
 *
 * Copyright (c) 2026 The libprocdesc authors.
 */

/*
 * Test helpers, prefixed t_.  Every case is written with T_TC(), which
 * wraps its body in a leak check: the same open fds after as before, no
 * child process (running or zombie) left behind.  testutil_test checks
 * the check itself.
 */

#ifndef _TESTUTIL_H_
#define	_TESTUTIL_H_

#include <sys/socket.h>
#include <sys/types.h>

#include <atf-c.h>
#include <stdbool.h>
#include <stdint.h>

/* The guardian's and the sentry's names, the descriptor's name prefix. */
#include "guardian/protocol.h"

#define	T_LONG_MS	10000	/* Bound on waits that must succeed. */
#define	T_LIFE		300	/* alarm(2) of paused children: should a
				   broken library fail to kill them, they go
				   anyway. */

/* Skip a case that TSan cannot run, under TSan only (NOTES 2.9). */
#ifdef __SANITIZE_THREAD__
#define	T_SKIP_UNDER_TSAN(why)	atf_tc_skip("%s", (why))
#else
#define	T_SKIP_UNDER_TSAN(why)	((void)0)
#endif
#define	T_TSAN_NO_HANDLERS	"TSan runs no signal handler in the child " \
	"of a multi-threaded fork, fork()'s included (NOTES 2.9)"

/* Which of our children t_children() lists. */
enum t_childkind {
	T_CHILDREN_ALL,
	T_CHILDREN_SENTRIES,	/* The sentries of our guardians. */
	T_CHILDREN_OTHERS,	/* All but those. */
};

/*
 * The seccomp_data.arch of this build's system calls (<linux/audit.h>),
 * for the filters that fake an older kernel: a filter that checked
 * another architecture's would let every call through.
 */
#define	T_ANY_ARG	(-1L)	/* t_refuse_syscall(): any first argument. */

#if defined(__x86_64__)
#define	T_AUDIT_ARCH	AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define	T_AUDIT_ARCH	AUDIT_ARCH_AARCH64
#endif

struct t_leak {
	char	fds[4096];	/* Open fds at the start, as a string. */
};

void	t_init(void);
void	t_start_guardian(void);
void	t_leak_begin(struct t_leak *);
const char *t_leak_check(const struct t_leak *);
void	t_leak_end(const struct t_leak *);

pid_t	t_pdfork_exit(int *fdp, int flags, int code);
pid_t	t_pdfork_pause(int *fdp, int flags);
void	t_pause(void) __attribute__((noreturn));
pid_t	t_pdfork_clean(int *fdp, int flags);
void	t_child_write(int fd, const void *buf, size_t len);
void	t_close_barrier(void);
int	t_watch(pid_t pid);
bool	t_dead_within(int watchfd, int ms);
bool	t_alive(int watchfd);
void	t_kill_wait(int watchfd);
void	t_expect_death(int watchfd);
void	*t_unmapped(void);
int	t_sendfd(int s, const void *buf, size_t len, int fd);
int	t_sendfd_to(int s, const void *sa, socklen_t salen, const void *buf,
	    size_t len, int fd, int flags);
ssize_t	t_recvfd(int s, void *buf, size_t len, int *fdp, int flags);
int	t_guardian_sock(void);
bool	t_is_pd(int fd);
int	t_children(enum t_childkind which, pid_t *pids, int max);
int	t_children_of(pid_t, enum t_childkind, pid_t *, int);
int	t_nchildren(void);
int	t_nsentries(void);
int	t_reap(pid_t pid);
bool	t_proc_status(pid_t pid, const char *key, char *buf, size_t len);
bool	t_task_asleep(pid_t pid, pid_t tid);
bool	t_task_in_poll(pid_t pid, pid_t tid);
bool	t_task_sleeping(pid_t pid, pid_t tid, int ms);
int	t_scale(void);
int	t_scaled(int n);
int64_t	t_now_ms(void);
bool	t_become_nobody(void);
int	t_as_nobody(int (*fn)(int, pid_t), int fd, pid_t pid);
ino_t	t_peer_ino(ino_t ino);
bool	t_kernel_pollhup(void);
bool	t_kernel_exit_info(void);
bool	t_kernel_pidfs(void);
bool	t_fork_trap(void);
int	t_refuse_syscall(int, long, int);
bool	t_reaped_within(int fd, int ms);
int	t_copy_ops(int fd, pid_t want);

int	t_closed_fd(void);
int	t_regular_file(void);
void	t_close_pipe(int p[2]);
int	t_read_byte(int fd);
ssize_t	t_read_within(int fd, void *buf, size_t len, int ms);
pid_t	t_guardian_of(pid_t owner);
pid_t	t_pdfork_on_byte(int *fdp, int ctl[2], int code);
void	t_wait_reaped(int fd);
bool	t_dispose(int fd);
int	t_bounded_wait(int fd, const char *what);
void	t_wait_exit_code(int fd, int code, const char *what);

/*
 * A test case with the leak check around its body; head_md sets more
 * metadata after "descr".
 */
#define	T_TC_MD(name, descr, head_md)					\
	static void name##_body(const atf_tc_t *);			\
	ATF_TC(name);							\
	ATF_TC_HEAD(name, tc)						\
	{								\
		atf_tc_set_md_var(tc, "descr", descr);			\
		head_md;						\
	}								\
	ATF_TC_BODY(name, tc)						\
	{								\
		struct t_leak l;					\
									\
		t_init();						\
		t_leak_begin(&l);					\
		name##_body(tc);					\
		t_leak_end(&l);						\
	}								\
	static void name##_body(const atf_tc_t *tc __attribute__((unused)))

/* The uid and gid of the less trusted side in attack cases. */
#define	T_NOBODY	65534

#define	T_TC(name, descr)	T_TC_MD(name, descr, (void)0)

/* As T_TC, for a case that kyua runs as unprivileged_user. */
#define	T_TC_UNPRIV(name, descr)					\
	T_TC_MD(name, descr,						\
	    atf_tc_set_md_var(tc, "require.user", "unprivileged"))

#endif /* !_TESTUTIL_H_ */
