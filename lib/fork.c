/*-
 * SPDX-License-Identifier: BSD-2-Clause
 *
 * Copyright (c) 2026 The libprocdesc authors.
 */

/*
 * The fork machinery.  A raw clone3() would leave glibc's malloc, stdio and
 * thread state broken in the child of a multi-threaded parent, and would not
 * run pthread_atfork handlers (NOTES 2.1).  So pdfork runs the C library's
 * own fork() and intercepts the one system call that makes the child
 * (glibc's clone, musl's fork: NOTES 9.3), using syscall user dispatch
 * (Linux 5.11): for the duration of the call, every system call of this
 * thread outside the handler's signal restorer raises SIGSYS.  The
 * handler issues clone3 with the same flags plus CLONE_PIDFD and exit
 * signal 0 instead of SIGCHLD, and passes every other call through.  The
 * child then sends no SIGCHLD and is invisible to wait(2).  Still inside
 * the trap, before any pthread_atfork handler, the new child runs the hook
 * it was given: the close-kill mechanism's registration (closekill.h).
 *
 * Where the dispatch cannot be switched on (no trap in lib/arch/, no
 * kernel support, seccomp), pdfork runs the C library's fork() as it is:
 * the child, a full fork() child with SIGCHLD as its exit signal, sends
 * the parent its own pidfd and runs the hook from the first of the atfork
 * child handlers (fk_libc_fork(), NOTES 1.1).  Only clone flags of the
 * close-kill mechanism (the kernel's path, forced there) need a raw
 * clone3, whose child may call async-signal-safe functions only (NOTES
 * 5.2).  RFSPAWN is always a raw clone3, with
 * CLONE_VFORK: in our memory, as vfork(2), where lib/arch/ has pdrfork's
 * entry (procdesc_fork_vfork_prepare()), else with a copy of it
 * (procdesc_fork_spawn()).
 *
 * Invariants: procdesc_fork_mtx serialises pdforks, because the SIGSYS
 * action is process-wide; the trap acts only on the thread that set
 * fk_active; the dispatch is off again before pdfork returns, in the
 * parent and in the child; the forking thread unlocks in the child what
 * it locked for the fork (atfork.c); an RFSPAWN parent holds no lock
 * while it waits for its child.
 */

#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include <dlfcn.h>
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "sys/procdesc.h"
#include "atfork.h"
#include "closekill.h"
#include "fork.h"
#include "lock.h"
#include "syscall.h"
#include "arch/arch.h"

#if PROCDESC_ARCH_TRAP
/*
 * The SIGSYS handler's restorer (lib/arch/): ours, so that the handler is
 * installed with rt_sigaction(2) itself, not through sigaction(3), which a
 * sanitizer wraps in a handler of its own that would make system calls
 * inside the trap, and so that the region the dispatch allows is exactly
 * this.
 */
__asm__(
    "	.pushsection .text\n"
    "	.p2align 4\n"
    "fk_restorer:\n"
    PA_RESTORER_ASM
    "fk_restorer_end:\n"
    "	.popsection\n");
void	fk_restorer(void) PROCDESC_HIDDEN;
extern const char fk_restorer_end[] PROCDESC_HIDDEN;
#endif

static pthread_once_t fk_once = PTHREAD_ONCE_INIT;
static PROCDESC_TLS bool fk_inside;	/* This thread is in pdfork. */
static PROCDESC_TLS procdesc_fork_hook_t *fk_hook; /* The child's hook, */
static PROCDESC_TLS const struct procdesc_ck_req *fk_cr; /* and its arg. */
static PROCDESC_TLS int fk_back[2] = { -1, -1 }; /* libc's fork: ours, */
						/* and the child's end. */
#if PROCDESC_ARCH_TRAP
static _Atomic int fk_nosud = -1;	/* Dispatch: -1 unknown, 0 works. */
static struct procdesc_ksigaction fk_oldsys; /* (fork_mtx) The app's. */
static PROCDESC_TLS volatile char fk_selector;
static PROCDESC_TLS bool fk_active;	/* This thread is in the trap. */
/*
 * Where the trap's clone3 puts the pidfd: the caller's variable, on a
 * stack page that the parent writes after the fork anyway, rather than a
 * page of its own to fault again.
 */
static PROCDESC_TLS int *fk_pidfdp;
#endif
static pid_t (*fk_fork)(void);		/* libc's own fork(). */

#if PROCDESC_ARCH_TRAP
/*
 * The trap's functions are PROCDESC_NOSAN: they run inside the C library's
 * fork(), and for system calls that a sanitizer's run time makes itself.
 */

/* A SIGSYS that is not our dispatch: what the application asked for. */
static void PROCDESC_NOSAN
fk_chain(int sig, siginfo_t *si, void *uctx)
{

	if ((fk_oldsys.ks_flags & SA_SIGINFO) != 0 &&
	    fk_oldsys.ks_sigaction != NULL)
		fk_oldsys.ks_sigaction(sig, si, uctx);
	else if (fk_oldsys.ks_handler == SIG_DFL) {
		signal(SIGSYS, SIG_DFL);
		raise(SIGSYS);
	} else if (fk_oldsys.ks_handler != SIG_IGN)
		fk_oldsys.ks_handler(sig);
}

/* clone(2) as glibc's fork issues it, made clone3 with a pidfd. */
static long PROCDESC_NOSAN
fk_clone(const pa_reg_t *r)
{
	struct procdesc_clone_args ca = {
		.flags = ((uint64_t)r[PA_A0] & ~(uint64_t)CSIGNAL) |
		    CLONE_PIDFD | fk_cr->cr_cflags,
		.pidfd = (uint64_t)(uintptr_t)fk_pidfdp,
		.parent_tid = (uint64_t)r[PA_CLONE_PTID],
		.child_tid = (uint64_t)r[PA_CLONE_CTID],
		.stack = (uint64_t)r[PA_A1],
		.tls = (uint64_t)r[PA_CLONE_TLS],
		.exit_signal = 0,
	};

	return (sys_clone3(&ca));
}

#ifdef SYS_fork
/* fork(2), as musl's fork issues it where the architecture has one. */
static long PROCDESC_NOSAN
fk_forksys(void)
{
	struct procdesc_clone_args ca = {
		.flags = CLONE_PIDFD | fk_cr->cr_cflags,
		.pidfd = (uint64_t)(uintptr_t)fk_pidfdp,
		.exit_signal = 0,
	};

	return (sys_clone3(&ca));
}
#endif

/* clone3(2), should a later glibc's fork use it (64 bytes at least). */
static long PROCDESC_NOSAN
fk_clone3(const pa_reg_t *r)
{
	struct procdesc_clone_args ca;

	if ((size_t)r[PA_A1] < sizeof(ca)) {
		errno = EINVAL;
		return (-1);
	}
	ca = *(const struct procdesc_clone_args *)r[PA_A0];
	ca.flags |= CLONE_PIDFD | fk_cr->cr_cflags;
	ca.pidfd = (uint64_t)(uintptr_t)fk_pidfdp;
	ca.exit_signal = 0;
	return (sys_clone3(&ca));
}

/*
 * A trapped system call: the one that makes the child (glibc's clone,
 * musl's fork) becomes clone3 with a pidfd and no exit signal; any other
 * runs as it is.
 */
static long PROCDESC_NOSAN
fk_syscall(int nr, const pa_reg_t *r, bool *childp)
{
	long ret;

	switch (nr) {
	case SYS_clone:
		ret = fk_clone(r);
		break;
	case SYS_clone3:
		ret = fk_clone3(r);
		break;
#ifdef SYS_fork
	case SYS_fork:
		ret = fk_forksys();
		break;
#endif
	default:
		*childp = false;
		return (sys_syscall6(nr, r[PA_A0], r[PA_A1], r[PA_A2],
		    r[PA_A3], r[PA_A4], r[PA_A5]));
	}
	*childp = (ret == 0);
	return (ret);
}

static void PROCDESC_NOSAN
fk_sigsys(int sig, siginfo_t *si, void *uctx)
{
	pa_reg_t *r;
	long ret;
	bool child;
	int saved;

	fk_selector = SYSCALL_DISPATCH_FILTER_ALLOW;
	saved = errno;
	if (!fk_active || si->si_code != SYS_USER_DISPATCH) {
		fk_chain(sig, si, uctx);
		errno = saved;
		return;
	}
	r = PA_REGS(uctx);
	ret = fk_syscall(si->si_syscall, r, &child);
	r[PA_RET] = (ret == -1) ? -errno : ret;
	errno = saved;
	/* The kernel does not copy the dispatch into the child. */
	if (!child)
		fk_selector = SYSCALL_DISPATCH_FILTER_BLOCK;
	else
		fk_hook(fk_cr);		/* Before any atfork handler. */
}
#endif /* PROCDESC_ARCH_TRAP */

/*
 * The child of the application's own fork(), made while another thread
 * may have been inside pdfork: that thread's procdesc_fork_mtx and SIGSYS
 * action came along, the thread did not.  The prepare handler cannot take
 * procdesc_fork_mtx (a pdfork holds it while its fork takes libc's atfork
 * lock: the opposite order), so the child, alone now, remakes it.  The
 * application's SIGSYS action is in fk_oldsys whenever ours is installed.
 * Called by every fork's child handler (atfork.c); nothing to do in the
 * child of a pdfork, whose own thread unlocks what it locked.
 */
void
procdesc_fork_atfork_child(void)
{
	struct procdesc_ksigaction cur;

	if (fk_inside)
		return;
	procdesc_fork_lock_reset();
#if PROCDESC_ARCH_TRAP
	if (sys_rt_sigaction(SIGSYS, NULL, &cur) == 0 &&
	    cur.ks_sigaction == fk_sigsys)
		(void)sys_rt_sigaction(SIGSYS, &fk_oldsys, NULL);
#else
	(void)cur;
#endif
}

/*
 * libc's own fork(), not whatever the program links as fork: a program or
 * a preloaded shim that defines fork() on top of pdfork() would otherwise
 * make pdfork call itself.
 */
static void
fk_init(void)
{
	void *libc, *sym;

	fk_fork = fork;
	/*
	 * Not under a sanitizer, whose own fork() interceptor must run (it
	 * takes the run time's locks around the fork).
	 */
#if defined(__GLIBC__) && !defined(__SANITIZE_ADDRESS__) && \
    !defined(__SANITIZE_THREAD__)
	if ((libc = dlopen("libc.so.6", RTLD_LAZY | RTLD_NOLOAD)) != NULL &&
	    (sym = dlsym(libc, "fork")) != NULL)
		*(void **)&fk_fork = sym;
#elif !defined(__GLIBC__)
	/* musl: the next definition after ours (none in a static program). */
	(void)libc;
	if ((sym = dlsym(RTLD_NEXT, "fork")) != NULL)
		*(void **)&fk_fork = sym;
#else
	(void)libc;
	(void)sym;
#endif
}

#if PROCDESC_ARCH_TRAP
/* glibc's fork() with its clone trapped; ENOSYS if dispatch won't work. */
static int
fk_sud_fork(pid_t *pidp, int *pidfdp)
{
	struct procdesc_ksigaction sa, old;
	pid_t pid;
	int error;

	memset(&sa, 0, sizeof(sa));
	sa.ks_sigaction = fk_sigsys;
	sa.ks_flags = SA_SIGINFO | SA_RESTORER;
	sa.ks_restorer = fk_restorer;
	sa.ks_mask = ~(uint64_t)0;
	if (sys_rt_sigaction(SIGSYS, &sa, &old) == -1)
		return (errno);
	/*
	 * Kept where it is as long as it stays the same: a write would
	 * fault its page again after every pdfork's fork.
	 */
	if (memcmp(&old, &fk_oldsys, sizeof(old)) != 0)
		fk_oldsys = old;
	*pidfdp = -1;
	fk_pidfdp = pidfdp;
	fk_selector = SYSCALL_DISPATCH_FILTER_ALLOW;
	if (prctl(PR_SET_SYSCALL_USER_DISPATCH, PR_SYS_DISPATCH_ON,
	    (unsigned long)(uintptr_t)fk_restorer,
	    (unsigned long)((uintptr_t)fk_restorer_end -
	    (uintptr_t)fk_restorer), &fk_selector) == -1) {
		error = errno;
		sys_rt_sigaction(SIGSYS, &fk_oldsys, NULL);
		return (error == EINVAL || error == EPERM ? ENOSYS : error);
	}
	fk_active = true;
	fk_selector = SYSCALL_DISPATCH_FILTER_BLOCK;
	pid = fk_fork();
	fk_selector = SYSCALL_DISPATCH_FILTER_ALLOW;
	error = (pid == -1) ? errno : 0;
	if (pid != 0)
		prctl(PR_SET_SYSCALL_USER_DISPATCH, PR_SYS_DISPATCH_OFF,
		    0, 0, 0);
	fk_active = false;
	sys_rt_sigaction(SIGSYS, &fk_oldsys, NULL);
	*pidp = pid;		/* *pidfdp: -1 but where the clone wrote it. */
	return (error);
}
#endif

/* A raw clone3: a pidfd, exit signal 0, and flags. */
static int
fk_raw_clone(uint64_t flags, pid_t *pidp, int *pidfdp)
{
	struct procdesc_clone_args ca;
	long pid;

	memset(&ca, 0, sizeof(ca));
	ca.flags = CLONE_PIDFD | flags;
	ca.pidfd = (uint64_t)(uintptr_t)pidfdp;
	ca.exit_signal = 0;
	if ((pid = sys_clone3(&ca)) == -1)
		return (errno);
	*pidp = (pid_t)pid;
	return (0);
}

/*
 * The fallback: a raw clone3, with the fork handlers of our own state run
 * by hand (atfork.c), since no fork(3) runs them.
 */
static int
fk_raw_fork(procdesc_fork_hook_t *hook, const struct procdesc_ck_req *cr,
    pid_t *pidp, int *pidfdp)
{
	int error;

	procdesc_atfork_prepare();
	error = fk_raw_clone(cr->cr_cflags, pidp, pidfdp);
	if (error == 0 && *pidp == 0) {
		hook(cr);
		procdesc_atfork_child();
	} else
		procdesc_atfork_parent();
	return (error);
}

/*
 * The child of fk_libc_fork(), as the first of the fork handlers
 * (atfork.c; registered when the library is loaded, so before any of the
 * application's but those of a library initialised before ours): a
 * pidfd of ourselves to the parent, then the hook.  Opened by the
 * process it names, this pidfd cannot name another process, as one the
 * parent opened by pid could, had we been killed and reaped meanwhile.
 * The message is an errno value, with the pidfd if 0; a child that
 * cannot send it exits, having run nothing of the application's.
 */
void PROCDESC_NOSAN
procdesc_fork_child_first(void)
{
	union {
		struct cmsghdr	hdr;
		char		buf[CMSG_SPACE(sizeof(int))];
	} cm;
	struct msghdr mh;
	struct iovec iov;
	int error, pidfd;

	if (!fk_inside || fk_back[1] == -1)
		return;
	sys_close(fk_back[0]);
	error = (pidfd = sys_pidfd_open(sys_getpid(), 0)) == -1 ? errno : 0;
	memset(&mh, 0, sizeof(mh));
	iov.iov_base = &error;
	iov.iov_len = sizeof(error);
	mh.msg_iov = &iov;
	mh.msg_iovlen = 1;
	if (error == 0) {
		memset(&cm, 0, sizeof(cm));
		mh.msg_control = cm.buf;
		mh.msg_controllen = sizeof(cm.buf);
		cm.hdr.cmsg_level = SOL_SOCKET;
		cm.hdr.cmsg_type = SCM_RIGHTS;
		cm.hdr.cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(&cm.hdr), &pidfd, sizeof(int));
	}
	if (sys_sendmsg(fk_back[1], &mh, MSG_NOSIGNAL) == -1 || error != 0)
		sys_exit_group(127);
	sys_close(pidfd);
	sys_close(fk_back[1]);
	fk_back[0] = fk_back[1] = -1;
	fk_hook(fk_cr);
}

/*
 * The child's message on sock (procdesc_fork_child_first()): 0 and its
 * pidfd, or why it has none.  The wait also watches a pidfd opened by
 * pid, which names the child unless the child died first: a copy of the
 * child's end that another thread's fork(2) took meanwhile would hold
 * back the end of file of a dead child for as long as that copy lived.
 * That pidfd is closed before the message is received, so that the
 * child's has a slot even at RLIMIT_NOFILE.
 */
static int
fk_recv_pidfd(int sock, pid_t pid, int *pidfdp)
{
	union {
		struct cmsghdr	hdr;
		char		buf[CMSG_SPACE(sizeof(int))];
	} cm;
	struct pollfd pfd[2];
	struct msghdr mh;
	struct iovec iov;
	ssize_t n;
	int error;

	pfd[0].fd = sock;
	pfd[0].events = POLLIN;
	pfd[1].fd = sys_pidfd_open(pid, 0);
	pfd[1].events = POLLIN;
	while (poll(pfd, pfd[1].fd == -1 ? 1 : 2, -1) == -1 && errno == EINTR)
		;
	if (pfd[1].fd != -1)
		close(pfd[1].fd);
	memset(&mh, 0, sizeof(mh));
	memset(&cm, 0, sizeof(cm));
	iov.iov_base = &error;
	iov.iov_len = sizeof(error);
	mh.msg_iov = &iov;
	mh.msg_iovlen = 1;
	mh.msg_control = cm.buf;
	mh.msg_controllen = sizeof(cm.buf);
	if ((n = recvmsg(sock, &mh, MSG_DONTWAIT | MSG_CMSG_CLOEXEC)) !=
	    (ssize_t)sizeof(error))
		return (EAGAIN);	/* Killed before it could say. */
	if (error != 0)
		return (error);
	if ((mh.msg_flags & MSG_CTRUNC) != 0 || cm.hdr.cmsg_len !=
	    CMSG_LEN(sizeof(int)) || cm.hdr.cmsg_type != SCM_RIGHTS)
		return (EMFILE);
	memcpy(pidfdp, CMSG_DATA(&cm.hdr), sizeof(int));
	return (0);
}

/*
 * Where there is no trap, and the child needs no clone flag of the
 * close-kill mechanism (the kernel's path): the C library's own fork(),
 * as it is.  The child is a full fork() child (atfork handlers, malloc,
 * stdio and its tid made right) whose exit signal is SIGCHLD (NOTES 1.1,
 * 3.12); its pidfd comes from itself.  A child that could not send it, or
 * whose pidfd could not be received, is killed and reaped by its pid, and
 * the fork fails: our child's pid is nobody else's until we reap it, but
 * where SIGCHLD is ignored and the kernel reaped it at its death (then
 * a later process would need the pid space to wrap around meanwhile).
 */
static int
fk_libc_fork(pid_t *pidp, int *pidfdp)
{
	siginfo_t si;
	pid_t pid;
	int error, sock;

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, fk_back) ==
	    -1)
		return (errno);
	sock = fk_back[0];
	if ((pid = fk_fork()) == 0) {
		/* No handler of ours ran: we cannot be adopted. */
		if (fk_back[1] != -1)
			_exit(127);
		*pidp = 0;
		return (0);
	}
	error = (pid == -1) ? errno : 0;
	close(fk_back[1]);
	fk_back[0] = fk_back[1] = -1;
	if (error == 0 && (error = fk_recv_pidfd(sock, pid, pidfdp)) != 0) {
		(void)kill(pid, SIGKILL);
		while (sys_waitid(P_PID, pid, &si, WEXITED | __WALL, NULL) ==
		    -1 && errno == EINTR)
			;
	}
	close(sock);
	*pidp = pid;
	return (error);
}

/*
 * Whether pdfork's clone goes through the trap: lib/arch/ has one, and the
 * kernel lets us switch the dispatch (5.11, where the architecture uses
 * the generic entry code; no seccomp filter refusing it).  Asked once.
 */
bool
procdesc_fork_trap(void)
{
#if PROCDESC_ARCH_TRAP
	int v;

	if ((v = atomic_load(&fk_nosud)) == -1) {
		v = prctl(PR_SET_SYSCALL_USER_DISPATCH, PR_SYS_DISPATCH_OFF, 0,
		    0, 0) == 0 ? 0 : 1;
		atomic_store(&fk_nosud, v);
	}
	return (v == 0);
#else
	return (false);
#endif
}

/*
 * Create the child.  Parent: 0, *pidp the child, *pidfdp its pidfd
 * (close-on-exec).  Child: 0 and *pidp 0.  Signals other than SIGSYS stay
 * blocked throughout, so that no handler runs with the dispatch on.
 */
int
procdesc_fork_clone(procdesc_fork_hook_t *hook,
    const struct procdesc_ck_req *cr, pid_t *pidp, int *pidfdp)
{
	sigset_t all, old;
	int error;

	PROCDESC_ASSERT_UNLOCKED();	/* Lock order: fork_mtx, then mtx. */
	pthread_once(&fk_once, fk_init);
	fk_inside = true;
	sigfillset(&all);
	sigdelset(&all, SIGSYS);
	procdesc_fork_lock();
	pthread_sigmask(SIG_SETMASK, &all, &old);
	fk_hook = hook;
	fk_cr = cr;
	error = ENOSYS;
#if PROCDESC_ARCH_TRAP
	if (procdesc_fork_trap() &&
	    (error = fk_sud_fork(pidp, pidfdp)) == ENOSYS)
		atomic_store(&fk_nosud, 1);
#endif
	if (error == ENOSYS)
		error = cr->cr_cflags != 0 ? fk_raw_fork(hook, cr, pidp,
		    pidfdp) : fk_libc_fork(pidp, pidfdp);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	/* In the parent and in the child: this thread locked it. */
	procdesc_fork_unlock();
	fk_inside = false;
	return (error);
}

/*
 * RFSPAWN where pdrfork has no entry of its own (lib/arch/) and under TSan
 * (fork.h): a raw clone3 with CLONE_VFORK and without CLONE_VM.  The child
 * gets a copy of our memory, as after fork(2), and the kernel keeps this
 * thread in clone3 until the child execs or exits (vfork's wait, released
 * at the child's mm_release).  Nothing is locked meanwhile: other threads,
 * the reaper and other pdforks run on, where glibc's fork would hold
 * malloc's and stdio's locks and ours until the exec.  So the child may
 * call async-signal-safe functions only (NOTES §5), as FreeBSD's, which
 * shares our memory.  Its caught signals revert to the default, as at
 * exec; all signals stay blocked until then, so no handler of ours runs in
 * it.
 */
int
procdesc_fork_spawn(procdesc_fork_hook_t *hook,
    const struct procdesc_ck_req *cr, pid_t *pidp, int *pidfdp)
{
	struct sigaction sa;
	sigset_t all, old;
	int error, sig;

	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	error = fk_raw_clone(CLONE_VFORK | cr->cr_cflags, pidp, pidfdp);
	if (error == 0 && *pidp == 0) {
		hook(cr);
		for (sig = 1; sig < NSIG; sig++) {
			if (sigaction(sig, NULL, &sa) == 0 &&
			    sa.sa_handler != SIG_DFL &&
			    sa.sa_handler != SIG_IGN)
				signal(sig, SIG_DFL);
		}
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return (error);
}

#if PROCDESC_VFORK
/*
 * pdrfork itself, on an architecture with the entry (lib/arch/): RFSPAWN
 * there, and every other call to procdesc_pdrfork_c (procdesc.c).  The
 * child shares our memory and runs on our caller's stack, as after
 * vfork(2), so that a spawn costs the same from a process of any size.
 * The library's own frames would be gone when the parent resumes, since
 * the child returns through them and the caller's code reuses their
 * memory: so the entry is the caller's callee, and the parent keeps
 * nothing on the stack across the clone (NOTES 2.8).
 */
_Static_assert(offsetof(struct procdesc_vfork, vf_ret) == 0, "vf_ret");
_Static_assert(offsetof(struct procdesc_vfork, vf_reg) == 8, "vf_reg");
_Static_assert(offsetof(struct procdesc_vfork, vf_child) == 16, "vf_child");
_Static_assert(offsetof(struct procdesc_vfork, vf_ca) == 24, "vf_ca");
_Static_assert(sizeof(struct procdesc_clone_args) == 64, "clone_args");
_Static_assert(offsetof(struct procdesc_vfork, vf_sp) == 88, "vf_sp");
_Static_assert(RFSPAWN == 0x80000000U, "RFSPAWN");
__asm__(
    "	.pushsection .text\n"
    "	.p2align 4\n"
    "	.globl	pdrfork\n"
    "	.type	pdrfork, " PA_FUNCTION "\n"
    "pdrfork:\n"
    PA_VFORK_ASM
    "	.size	pdrfork, .-pdrfork\n"
    "	.popsection\n");

/*
 * In the vfork child, on its parent's stack below the caller's frame:
 * the hook, then every caught signal back to SIG_DFL, since a handler
 * would run on the parent's memory, then the caller's mask.  Through
 * rt_sigaction(2) itself: a sanitizer's table of the handlers is the
 * parent's memory too.
 */
static void PROCDESC_NOSAN
fk_vchild(const struct procdesc_vfork *vf)
{
	struct procdesc_ksigaction ka, dfl;
	int sig;

	vf->vf_hook(vf->vf_cr);
	dfl.ks_handler = SIG_DFL;
	dfl.ks_flags = 0;
	dfl.ks_restorer = NULL;
	dfl.ks_mask = 0;
	for (sig = 1; sig < NSIG; sig++) {
		if (sys_rt_sigaction(sig, NULL, &ka) == 0 &&
		    ka.ks_handler != SIG_DFL && ka.ks_handler != SIG_IGN)
			(void)sys_rt_sigaction(sig, &dfl, NULL);
	}
	(void)sys_rt_sigprocmask(SIG_SETMASK, &vf->vf_mask, NULL);
}

/*
 * Before the entry's clone: its arguments, and every signal blocked, the
 * C library's own among them, so that no handler runs in the child before
 * fk_vchild() has reset them.  Nothing is locked across the clone.
 */
void
procdesc_fork_vfork_prepare(struct procdesc_vfork *vf,
    procdesc_fork_hook_t *hook, const struct procdesc_ck_req *cr)
{
	uint64_t all;

	memset(vf, 0, sizeof(*vf));
	vf->vf_child = fk_vchild;
	vf->vf_hook = hook;
	vf->vf_cr = cr;
	vf->vf_pidfd = -1;
	vf->vf_ca.flags = CLONE_PIDFD | CLONE_VM | CLONE_VFORK | cr->cr_cflags;
	vf->vf_ca.pidfd = (uint64_t)(uintptr_t)&vf->vf_pidfd;
	vf->vf_ca.exit_signal = 0;
	all = ~(uint64_t)0;
	(void)sys_rt_sigprocmask(SIG_SETMASK, &all, &vf->vf_mask);
}

#if PROCDESC_ASAN
void	__asan_handle_vfork(void *);
#endif

/*
 * In the parent, once the child has exec'd or exited: the child's frames
 * left the address sanitizer's marks anywhere below the caller's stack
 * pointer, and they go (as in its own vfork()); the mask is the caller's
 * again.  0, *pidp and *pidfdp; or the clone's error.
 */
int
procdesc_fork_vfork_finish(struct procdesc_vfork *vf, long ret, pid_t *pidp,
    int *pidfdp)
{

#if PROCDESC_ASAN
	__asan_handle_vfork((void *)vf->vf_sp);
#endif
	(void)sys_rt_sigprocmask(SIG_SETMASK, &vf->vf_mask, NULL);
	if (ret < 0)
		return ((int)-ret);
	*pidp = (pid_t)ret;
	*pidfdp = vf->vf_pidfd;
	return (0);
}
#endif /* PROCDESC_VFORK */
