/*-
 * SPDX-License-Identifier: BSD-2-Clause
 *
 * Copyright (c) 2026 The libprocdesc authors.
 */

/*
 * The guardian as the close-kill mechanism (closekill.h): the owner's side
 * of the protocol with procdesc-guardian (lib/guardian/protocol.h, NOTES
 * 1.8).  A process descriptor is one end, A, of a socketpair; the guardian
 * holds the other, B, and a pidfd of the process, kills the process when
 * the last copy of A is closed anywhere, hangs A up at the exit, and tells
 * the owner of the last close (PG_CLOSED) and any holder what its
 * descriptor is.
 *
 * Invariants: a new child registers itself with the guardian before any
 * code of the application runs in it (gc_child(), raw system calls only,
 * NOTES 1.5); the owner's answer from the guardian comes on A; nothing
 * that waits for the guardian holds procdesc_mtx.
 */

#include <sys/socket.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <string.h>
#include <unistd.h>

#include "sys/procdesc.h"
#include "closekill.h"
#include "desc.h"
#include "guardian.h"
#include "lock.h"
#include "syscall.h"
#include "guardian/protocol.h"

/* A PG_GUARD and its descriptors, ready for sendmsg(2). */
struct gc_guard {
	struct pg_msg	 gg_m;
	struct msghdr	 gg_mh;
	struct iovec	 gg_iov;
	union {
		struct cmsghdr	hdr;
		char		buf[CMSG_SPACE(PG_GUARD_FDS * sizeof(int))];
	} gg_cm;
};

/*
 * Build the PG_GUARD for process pid, with its nfds descriptors (A, B, a
 * pidfd, and for a new child its go pipe).  Used in the new child too:
 * no memset, nothing a sanitizer intercepts.
 */
static void PROCDESC_NOSAN
gc_guard_msg(struct gc_guard *g, uint64_t id, pid_t pid, uint32_t flags,
    const int *fds, int nfds)
{
	volatile unsigned char *p;
	int *cfds, i;
	size_t n;

	p = (volatile unsigned char *)g;
	for (n = 0; n < sizeof(*g); n++)
		p[n] = 0;
	g->gg_m.pm_op = PG_GUARD;
	g->gg_m.pm_id = id;
	g->gg_m.pm_pid = (int32_t)pid;
	g->gg_m.pm_flags = flags;
	g->gg_iov.iov_base = &g->gg_m;
	g->gg_iov.iov_len = sizeof(g->gg_m);
	g->gg_mh.msg_iov = &g->gg_iov;
	g->gg_mh.msg_iovlen = 1;
	g->gg_mh.msg_control = g->gg_cm.buf;
	g->gg_mh.msg_controllen = CMSG_SPACE((size_t)nfds * sizeof(int));
	g->gg_cm.hdr.cmsg_level = SOL_SOCKET;
	g->gg_cm.hdr.cmsg_type = SCM_RIGHTS;
	g->gg_cm.hdr.cmsg_len = CMSG_LEN((size_t)nfds * sizeof(int));
	cfds = (int *)(void *)CMSG_DATA(&g->gg_cm.hdr);
	for (i = 0; i < nfds; i++)
		cfds[i] = fds[i];
}

/*
 * Wait up to PG_REPLY_MS for one message on fd: 0; EAGAIN on a hang-up;
 * ETIMEDOUT.
 */
int
procdesc_guardian_recv(int fd, struct pg_msg *m)
{
	struct pollfd pfd;
	ssize_t n;
	int r;

	pfd.fd = fd;
	pfd.events = POLLIN;
	while ((r = poll(&pfd, 1, PG_REPLY_MS)) == -1 && errno == EINTR)
		;
	if (r == 0)
		return (ETIMEDOUT);
	while ((n = recv(fd, m, sizeof(*m), MSG_DONTWAIT)) == -1 &&
	    errno == EINTR)
		;
	return (n == (ssize_t)sizeof(*m) ? 0 : EAGAIN);
}

/* A guardian with room, and a socketpair for the new descriptor. */
static int
gc_prepare(struct procdesc_ck_req *cr, int pdflags, uint64_t id)
{
	int sv[2], error;

	if ((error = procdesc_guardian_pick(&cr->cr_watcher, &cr->cr_ctl,
	    &cr->cr_new)) != 0)
		return (error);
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) == -1) {
		error = errno;
		procdesc_lock();
		procdesc_guardian_release(cr->cr_watcher);
		procdesc_unlock();
		return (error);
	}
	cr->cr_fd = sv[0];
	cr->cr_peer = sv[1];
	cr->cr_flags = (uint32_t)pdflags;
	cr->cr_id = id;
	return (0);
}

/* The descriptor's name: its guardian's key and its id. */
static int
gc_name(const struct procdesc_ck_req *cr)
{
	uint64_t key;

	procdesc_lock();
	key = procdesc_guardian_key(cr->cr_watcher);
	procdesc_unlock();
	return (procdesc_desc_bind(cr->cr_fd, key, cr->cr_id));
}

/*
 * The end of a registration, whatever sent the PG_GUARD: the guardian's
 * answer on the descriptor (0 if the process is guarded; its errno value
 * if it refused, EMFILE when full; EAGAIN if it hung up; ETIMEDOUT if it
 * did not answer in time), the guardian's count, and the close-on-exec
 * flag PD_CLOEXEC asks for.  held: a pdfork child (see the commit).
 */
static int
gc_finish(const struct procdesc_ck_req *cr, int error, bool held)
{
	struct pg_msg m;

	PROCDESC_ASSERT_UNLOCKED();	/* The wait may last PG_REPLY_MS. */
	if (error == 0 && (cr->cr_flags & PD_CLOEXEC) == 0 &&
	    fcntl(cr->cr_fd, F_SETFD, 0) == -1)
		error = errno;
	if (error == 0 && (error = procdesc_guardian_recv(cr->cr_fd,
	    &m)) == 0)
		error = (m.pm_op == PG_ACK) ? m.pm_error : EAGAIN;
	procdesc_lock();
	procdesc_guardian_commit(cr->cr_watcher, error, held);
	procdesc_unlock();
	return (error == ETIMEDOUT ? EAGAIN : error);
}

/*
 * In the new child, before any code of the application: register with the
 * guardian (A, B, a pidfd of ourselves, and the write end of a pipe),
 * close our copies of A and B (FreeBSD's child holds no descriptor of its own),
 * and wait on the pipe until the guardian guards us: one byte.  EOF (it
 * refused, or died) or no answer within PG_REPLY_MS: _exit before the
 * application runs, with PG_EXIT_ERRNO + the errno value as the status;
 * the parent, told on A, reaps us and fails with that errno.  Raw system
 * calls only, nothing a sanitizer intercepts (this runs inside glibc's
 * fork, in the dispatch trap).
 */
static void PROCDESC_NOSAN
gc_child(const struct procdesc_ck_req *cr)
{
	static const struct timespec reply = {
		.tv_sec = PG_REPLY_MS / PROCDESC_MS_PER_S,
		.tv_nsec = PG_REPLY_MS % PROCDESC_MS_PER_S * PROCDESC_NS_PER_MS,
	};
	struct gc_guard g;
	int fds[PG_GUARD_FDS], go[2];
	pid_t self;
	char c;

	self = sys_getpid();
	if ((fds[2] = sys_pidfd_open(self, 0)) == -1 ||
	    sys_pipe2(go, O_CLOEXEC) == -1)
		sys_exit_group(PG_EXIT_ERRNO + (errno & PG_EXIT_MASK));
	fds[0] = cr->cr_fd;
	fds[1] = cr->cr_peer;
	fds[3] = go[1];
	gc_guard_msg(&g, cr->cr_id, self, cr->cr_flags | PG_CHILD, fds,
	    PG_GUARD_FDS);
	if (sys_sendmsg(cr->cr_ctl, &g.gg_mh, MSG_NOSIGNAL) == -1)
		sys_exit_group(PG_EXIT_ERRNO + (errno & PG_EXIT_MASK));
	sys_close(fds[2]);
	sys_close(go[1]);
	sys_close(cr->cr_fd);
	sys_close(cr->cr_peer);
	if (!sys_wait_readable(go[0], &reply) ||
	    sys_read(go[0], &c, 1) != 1 || c != PG_GO)
		sys_exit_group(PG_EXIT_ERRNO + EAGAIN);
	sys_close(go[0]);
}

/*
 * The parent's half of registering its new child, which registered itself
 * and runs as soon as the guardian guards it: name the descriptor, wait
 * for the guardian's answer.
 */
static int
gc_adopt(struct procdesc_ck_req *cr, pid_t pid, int pidfd,
    struct procdesc_proc *pp, uint64_t *cookiep)
{
	int error;

	/* Only the guardian holds B now; if it has not, A sees EOF. */
	close(cr->cr_peer);
	cr->cr_peer = -1;
	if ((error = gc_name(cr)) == 0 &&
	    (error = procdesc_pidfd_proc(pidfd, pid, pp)) == 0)
		error = procdesc_desc_cookie(cr->cr_fd, cookiep);
	return (gc_finish(cr, error, true));
}

/*
 * A child that could not be adopted: kill and reap it, then close its
 * descriptor.  If it failed to register itself, its exit status says why
 * (PG_EXIT_ERRNO): that errno value replaces error, which says only that
 * the guardian hung up.
 */
static int
gc_dispose(struct procdesc_ck_req *cr, int pidfd, int error)
{
	siginfo_t si;

	procdesc_pidfd_kill_reap(pidfd, &si);
	close(cr->cr_fd);
	if (error == EAGAIN && si.si_code == CLD_EXITED &&
	    si.si_status > PG_EXIT_ERRNO &&
	    si.si_status <= PG_EXIT_ERRNO + PG_EXIT_MASK)
		error = si.si_status - PG_EXIT_ERRNO;
	return (error);
}

/* A creation that made no child. */
static void
gc_abort(struct procdesc_ck_req *cr)
{

	close(cr->cr_fd);
	if (cr->cr_peer != -1)
		close(cr->cr_peer);
	procdesc_lock();
	procdesc_guardian_release(cr->cr_watcher);
	procdesc_unlock();
}

/*
 * A descriptor for a process we did not create: the owner hands the
 * guardian the process itself (PG_GUARD with A, B and a pidfd, no go
 * pipe: the process runs already); the guardian records its exit from the
 * pidfd.
 */
static int
gc_open(pid_t pid, int pidfd, int pdflags, struct procdesc_ck_req *cr,
    int *fdp)
{
	struct gc_guard g;
	int error, fds[PG_GUARD_FDS - 1];

	if ((error = gc_prepare(cr, pdflags, procdesc_desc_new_id())) != 0)
		return (error);
	if ((error = gc_name(cr)) == 0) {
		fds[0] = cr->cr_fd;
		fds[1] = cr->cr_peer;
		fds[2] = pidfd;
		gc_guard_msg(&g, cr->cr_id, pid, cr->cr_flags, fds,
		    PG_GUARD_FDS - 1);
		if (sys_sendmsg(cr->cr_ctl, &g.gg_mh, MSG_NOSIGNAL |
		    MSG_DONTWAIT) == -1)
			error = (errno == EAGAIN) ? EAGAIN : ESRCH;
	}
	close(cr->cr_peer);
	if ((error = gc_finish(cr, error, false)) != 0) {
		close(cr->cr_fd);
		return (error);
	}
	*fdp = cr->cr_fd;
	return (0);
}

/*
 * Tell guardian w the exit the owner saw (PG_STATUS), which it hands to
 * the descriptor's other holders, through sock, the reaper's copy of its
 * socket.  Never waits (mtx held): a guardian that cannot be told (gone,
 * or full: thousands of messages behind) takes no new child, and is
 * killed if it is stopped (procdesc_guardian_stalled()).
 */
static int
gc_status(int w, int sock, uint64_t id, pid_t pid, const siginfo_t *si,
    const struct rusage *ru)
{
	struct pg_msg m;
	int error;

	PROCDESC_ASSERT_LOCKED();
	memset(&m, 0, sizeof(m));
	m.pm_op = PG_STATUS;
	m.pm_id = id;
	m.pm_pid = pid;
	m.pm_code = si->si_code;
	m.pm_status = si->si_status;
	m.pm_ru = *ru;
	if (sock == -1)
		return (ESRCH);
	while ((error = sys_sendto(sock, &m, sizeof(m), MSG_DONTWAIT |
	    MSG_NOSIGNAL) == (ssize_t)sizeof(m) ? 0 : errno) == EINTR)
		;
	if (error != 0) {
		procdesc_guardian_stalled(w);
		error = (error == EAGAIN) ? EAGAIN : ESRCH;
	}
	return (error);
}

/*
 * The next message the guardian sent on sock, the reaper's copy of its
 * socket: 0 and the id of a descriptor whose last copy went (PG_CLOSED);
 * EAGAIN when there is none; EPIPE once the guardian is gone.
 */
static int
gc_recv(int sock, uint64_t *idp)
{
	struct msghdr mh;
	struct iovec iov;
	struct pg_msg m;
	ssize_t n;

	for (;;) {
		memset(&mh, 0, sizeof(mh));
		iov.iov_base = &m;
		iov.iov_len = sizeof(m);
		mh.msg_iov = &iov;
		mh.msg_iovlen = 1;
		if ((n = sys_recvmsg(sock, &mh, MSG_DONTWAIT)) == -1)
			return (errno == EAGAIN || errno == EINTR ? errno :
			    EPIPE);
		if (n == 0)
			return (EPIPE);
		if (n == (ssize_t)sizeof(m) && m.pm_op == PG_CLOSED) {
			*idp = m.pm_id;
			return (0);
		}
	}
}

const struct procdesc_ck_ops procdesc_ck_guardian = {
	.ck_prepare = gc_prepare,
	.ck_child = gc_child,
	.ck_adopt = gc_adopt,
	.ck_dispose = gc_dispose,
	.ck_abort = gc_abort,
	.ck_open = gc_open,
	.ck_status = gc_status,
	.ck_recv = gc_recv,
	.ck_watcher_info = procdesc_guardian_info,
	.ck_drop = procdesc_guardian_drop,
	.ck_died = procdesc_guardian_died,
	.ck_atfork_child = procdesc_guardian_atfork_child,
};
