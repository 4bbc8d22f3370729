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
 * Invariants: a new child's registration is queued to the guardian before
 * any code of the application runs in it and before pdfork returns (the
 * parent sends it after fork and the child waits for the parent's byte;
 * after RFSPAWN the child sends it, with raw system calls only: NOTES
 * 1.5); nothing in a creation waits for the guardian but pdopenpid, whose
 * answer comes on A; nothing that waits for the guardian holds
 * procdesc_mtx.
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

/* The parent's word to its new child: registered, run on. */
#define	GC_GO		'g'

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
 * Build the PG_GUARD for process pid, with its nfds descriptors (A, B and
 * a pidfd).  Used in the new child too: no memset, nothing a sanitizer
 * intercepts.
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

/* Close *fdp if open. */
static void
gc_close(int *fdp)
{

	if (*fdp != -1)
		close(*fdp);
	*fdp = -1;
}

/* A creation that made no child. */
static void
gc_abort(struct procdesc_ck_req *cr)
{

	gc_close(&cr->cr_fd);
	gc_close(&cr->cr_peer);
	gc_close(&cr->cr_spare);
	gc_close(&cr->cr_go[0]);
	gc_close(&cr->cr_go[1]);
	procdesc_lock();
	procdesc_guardian_release(cr->cr_watcher);
	procdesc_unlock();
}

/* A guardian with room for the descriptor to come. */
static int
gc_begin(struct procdesc_ck_req *cr, int pdflags, uint64_t id)
{

	cr->cr_fd = cr->cr_peer = cr->cr_spare = -1;
	cr->cr_go[0] = cr->cr_go[1] = -1;
	cr->cr_flags = (uint32_t)pdflags;
	cr->cr_id = id;
	return (procdesc_guardian_pick(&cr->cr_watcher, &cr->cr_ctl,
	    &cr->cr_new));
}

/*
 * The socketpair of the new descriptor: A named, close-on-exec unless
 * PD_CLOEXEC is absent, and B shut down for reading, so that nothing a
 * holder sends on A ever reaches anyone, from the first instant (the
 * guardian takes B later).  Closed again if anything fails.
 */
static int
gc_socketpair(struct procdesc_ck_req *cr)
{
	int sv[2], error;

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) == -1)
		return (errno);
	cr->cr_fd = sv[0];
	cr->cr_peer = sv[1];
	error = 0;
	if (shutdown(cr->cr_peer, SHUT_RD) == -1)
		error = errno;
	else if ((error = gc_name(cr)) == 0 &&
	    (cr->cr_flags & PD_CLOEXEC) == 0 && fcntl(cr->cr_fd, F_SETFD,
	    0) == -1)
		error = errno;
	if (error != 0) {
		gc_close(&cr->cr_fd);
		gc_close(&cr->cr_peer);
	}
	return (error);
}

/* Both: a guardian and the socketpair, or nothing. */
static int
gc_pair(struct procdesc_ck_req *cr, int pdflags, uint64_t id)
{
	int error;

	if ((error = gc_begin(cr, pdflags, id)) != 0)
		return (error);
	if ((error = gc_socketpair(cr)) != 0)
		gc_abort(cr);
	return (error);
}

/*
 * A new child's: a guardian, and what the child needs.  After fork, the
 * child waits on a pipe until we have made the pair and sent its
 * registration (gc_adopt()): the pair is made after the clone, so that
 * the child never holds a copy of A, which would keep A open after the
 * owner's last close until the child got round to closing it (a wait
 * for its pid would see it then: NOTES 1.11).  After RFSPAWN, which holds
 * us in the clone until the child has closed its copies and exec'd, the
 * pair comes first and the child registers itself; it gets a spare
 * descriptor to close, to make room for its pidfd, so that no child of a
 * process at its RLIMIT_NOFILE fails to register.
 */
static int
gc_prepare(struct procdesc_ck_req *cr, int pdflags, uint64_t id)
{
	int error;

	if (!cr->cr_spawn) {
		if ((error = gc_begin(cr, pdflags, id)) != 0)
			return (error);
		error = pipe2(cr->cr_go, O_CLOEXEC) == -1 ? errno : 0;
		cr->cr_parent = getpid();
	} else {
		if ((error = gc_pair(cr, pdflags, id)) != 0)
			return (error);
		error = (cr->cr_spare = fcntl(cr->cr_peer, F_DUPFD_CLOEXEC,
		    0)) == -1 ? errno : 0;
	}
	if (error != 0)
		gc_abort(cr);
	return (error);
}

/*
 * A registration, PG_GUARD with A, B and a pidfd of process pid, on the
 * guardian's control socket: pgflags (PG_CHILD for a new child) besides
 * PD_*, sendflags for sendmsg(2); 0 or an errno value.  Raw system calls
 * only, as in the new child.
 */
static int PROCDESC_NOSAN
gc_register(const struct procdesc_ck_req *cr, pid_t pid, int pidfd,
    uint32_t pgflags, int sendflags)
{
	struct gc_guard g;
	int fds[PG_GUARD_FDS];

	fds[0] = cr->cr_fd;
	fds[1] = cr->cr_peer;
	fds[2] = pidfd;
	gc_guard_msg(&g, cr->cr_id, pid, cr->cr_flags | pgflags, fds,
	    PG_GUARD_FDS);
	if (sys_sendmsg(cr->cr_ctl, &g.gg_mh, MSG_NOSIGNAL | sendflags) == -1)
		return (errno);
	return (0);
}

/*
 * gc_register() from the owner, never blocked for long: the guardian's
 * control socket holds a send buffer's worth of registrations (a few
 * hundred), which a burst of creations outruns while the guardian waits
 * for a CPU on a busy machine.  So wait for room, but not past
 * PG_REPLY_MS in all, after which a guardian that still takes nothing is
 * stalled (EAGAIN): one stopped must not hang its owner.
 */
static int
gc_register_owner(const struct procdesc_ck_req *cr, pid_t pid, int pidfd,
    uint32_t pgflags)
{
	struct pollfd pfd;
	int64_t end, left;
	int error;

	end = 0;
	while ((error = gc_register(cr, pid, pidfd, pgflags,
	    MSG_DONTWAIT)) == EAGAIN || error == EINTR) {
		if (end == 0)
			end = procdesc_now() + PG_REPLY_MS * PROCDESC_NS_PER_MS;
		if ((left = end - procdesc_now()) <= 0)
			break;
		pfd.fd = cr->cr_ctl;
		pfd.events = POLLOUT;
		if (poll(&pfd, 1, (int)(left / PROCDESC_NS_PER_MS) + 1) == 0)
			break;
	}
	return (error == EINTR ? EAGAIN : error);
}

/*
 * A fork child's wait for the parent's byte (gc_start()).  EOF says the
 * parent died before sending it.  But a fork(2) in another thread of the
 * parent meanwhile copies go's write end, and that copy would hold the EOF
 * back for as long as that process lives, with this child waiting: so the
 * parent's exit is watched too, through a pidfd that getppid() proves to
 * be the parent's (had the parent died first, we would have a new one).
 * Without that pidfd, or should ppoll(2) fail, the read alone.
 */
static void PROCDESC_NOSAN
gc_child_wait(const struct procdesc_ck_req *cr)
{
	struct pollfd pfd[2];
	char c;
	int n;

	pfd[0].fd = cr->cr_go[0];
	pfd[0].events = POLLIN;
	pfd[1].fd = sys_pidfd_open(cr->cr_parent, 0);
	pfd[1].events = POLLIN;
	if (pfd[1].fd != -1) {
		if (sys_getppid() != cr->cr_parent)
			sys_exit_group(PG_EXIT_ERRNO + EPIPE);
		while ((n = sys_ppoll(pfd, 2)) == -1 && errno == EINTR)
			;
		/* The parent gone and go held open elsewhere. */
		if (n > 0 && (pfd[0].revents & (POLLIN | POLLHUP)) == 0)
			sys_exit_group(PG_EXIT_ERRNO + EPIPE);
		sys_close(pfd[1].fd);
	}
	if (sys_read(cr->cr_go[0], &c, 1) != 1)
		sys_exit_group(PG_EXIT_ERRNO + EPIPE);
}

/*
 * In the new child, before any code of the application (NOTES 1.5): hold
 * no copy of A or B (FreeBSD's child holds no descriptor of its own), and
 * run on once our registration is in the guardian's queue, from where
 * the guardian kills us at the last close of A, wherever and whenever it
 * happens (and if the guardian dies first, our owner's reaper does).
 * After fork, the pair is the parent's, made after the clone; it sends
 * the registration, and we wait for its byte on the go pipe: EOF means
 * the parent died first, and we _exit.  After RFSPAWN, we send it
 * ourselves and close our copies; a full queue holds us here.  A child
 * that cannot register exits with PG_EXIT_ERRNO + the errno value as its
 * status.  Raw system calls only, nothing a sanitizer intercepts (this
 * runs inside glibc's fork, in the dispatch trap).
 */
static void PROCDESC_NOSAN
gc_child(const struct procdesc_ck_req *cr)
{
	pid_t self;
	int error, pidfd;

	if (!cr->cr_spawn) {
		sys_close(cr->cr_go[1]);
		gc_child_wait(cr);
		sys_close(cr->cr_go[0]);
		return;
	}
	sys_close(cr->cr_spare);
	self = sys_getpid();
	if ((pidfd = sys_pidfd_open(self, 0)) == -1)
		sys_exit_group(PG_EXIT_ERRNO + (errno & PG_EXIT_MASK));
	if ((error = gc_register(cr, self, pidfd, PG_CHILD, 0)) != 0)
		sys_exit_group(PG_EXIT_ERRNO + (error & PG_EXIT_MASK));
	sys_close(pidfd);
	sys_close(cr->cr_fd);
	sys_close(cr->cr_peer);
}

/*
 * The parent's half of registering its new child: after fork, make the
 * pair (gc_prepare()) and send the registration, waiting only for room
 * in a full queue (gc_register_owner()); count the child in its
 * guardian.  Nothing waits for the guardian's answer.  The child runs
 * once gc_start() lets it.
 */
static int
gc_adopt(struct procdesc_ck_req *cr, pid_t pid, int pidfd,
    struct procdesc_proc *pp, uint64_t *cookiep)
{
	int error;

	error = 0;
	if (!cr->cr_spawn && (error = gc_socketpair(cr)) == 0)
		error = gc_register_owner(cr, pid, pidfd, PG_CHILD);
	/* Only the guardian holds B now, or will, from the message. */
	gc_close(&cr->cr_peer);
	gc_close(&cr->cr_spare);
	if (error == 0 && (error = procdesc_pidfd_proc(pidfd, pid, pp)) == 0)
		error = procdesc_desc_cookie(cr->cr_fd, cookiep);
	procdesc_lock();
	if (error == EAGAIN)
		procdesc_guardian_stalled(cr->cr_watcher);
	procdesc_guardian_commit(cr->cr_watcher, error, true);
	procdesc_unlock();
	return (error == EAGAIN || error == EPIPE ? EAGAIN : error);
}

/*
 * The child is registered and filed: let it run (after fork, its byte on
 * go; our copy of go's read end is closed only after it, so that the
 * write never raises SIGPIPE).
 */
static void
gc_start(struct procdesc_ck_req *cr)
{
	char c;

	if (cr->cr_go[1] != -1) {
		c = GC_GO;
		(void)write(cr->cr_go[1], &c, 1);
	}
	gc_close(&cr->cr_go[1]);
	gc_close(&cr->cr_go[0]);
}

/* A child that could not be adopted: kill and reap it, close its A. */
static int
gc_dispose(struct procdesc_ck_req *cr, int pidfd, int error)
{
	siginfo_t si;

	procdesc_pidfd_kill_reap(pidfd, &si);
	gc_close(&cr->cr_fd);
	gc_close(&cr->cr_go[1]);
	gc_close(&cr->cr_go[0]);
	return (error);
}

/*
 * A descriptor for a process we did not create: the owner hands the
 * guardian the process itself (PG_GUARD with A, B and a pidfd: the
 * process runs already), and waits up to PG_REPLY_MS for its PG_ACK on A
 * (0 if guarded; EPERM, EMFILE...; EAGAIN if it hung up or did not
 * answer).  The guardian records the exit from the pidfd.
 */
static int
gc_open(pid_t pid, int pidfd, int pdflags, struct procdesc_ck_req *cr,
    int *fdp)
{
	struct pg_msg m;
	int error;

	if ((error = gc_pair(cr, pdflags, procdesc_desc_new_id())) != 0)
		return (error);
	if ((error = gc_register_owner(cr, pid, pidfd, 0)) != 0)
		error = (error == EAGAIN) ? EAGAIN : ESRCH;
	close(cr->cr_peer);
	if (error == 0 && (error = procdesc_guardian_recv(cr->cr_fd,
	    &m)) == 0)
		error = (m.pm_op == PG_ACK) ? m.pm_error : EAGAIN;
	procdesc_lock();
	procdesc_guardian_commit(cr->cr_watcher, error, false);
	procdesc_unlock();
	if (error != 0) {
		close(cr->cr_fd);
		return (error == ETIMEDOUT ? EAGAIN : error);
	}
	*fdp = cr->cr_fd;
	return (0);
}

/* Send m on the reaper's copy of a guardian's socket, without waiting. */
static int
gc_send(int sock, const struct pg_msg *m)
{
	int error;

	while ((error = sys_sendto(sock, m, sizeof(*m), MSG_DONTWAIT |
	    MSG_NOSIGNAL) == (ssize_t)sizeof(*m) ? 0 : errno) == EINTR)
		;
	return (error);
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
	if ((error = gc_send(sock, &m)) != 0) {
		procdesc_guardian_stalled(w);
		error = (error == EAGAIN) ? EAGAIN : ESRCH;
	}
	return (error);
}

/*
 * Ask the guardian whether the last copy of descriptor id is gone
 * (PG_ASK), through sock, the reaper's copy of its socket; never waits
 * (mtx held): EAGAIN if the socket is full, which the asker takes as no
 * answer.
 */
static int
gc_ask(int sock, uint64_t id)
{
	struct pg_msg m;

	PROCDESC_ASSERT_LOCKED();
	memset(&m, 0, sizeof(m));
	m.pm_op = PG_ASK;
	m.pm_id = id;
	return (gc_send(sock, &m));
}

/*
 * The next message the guardian sent on sock, the reaper's copy of its
 * socket: 0 and the id of a descriptor whose last copy went (PG_CLOSED,
 * *closedp) or that PG_ASK asked about (PG_ANSWER); EAGAIN when there is
 * none; EPIPE once the guardian is gone.
 */
static int
gc_recv(int sock, uint64_t *idp, bool *closedp)
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
		if (n == (ssize_t)sizeof(m) && (m.pm_op == PG_CLOSED ||
		    m.pm_op == PG_ANSWER)) {
			*idp = m.pm_id;
			*closedp = m.pm_op == PG_CLOSED;
			return (0);
		}
	}
}

const struct procdesc_ck_ops procdesc_ck_guardian = {
	.ck_prepare = gc_prepare,
	.ck_child = gc_child,
	.ck_adopt = gc_adopt,
	.ck_start = gc_start,
	.ck_dispose = gc_dispose,
	.ck_abort = gc_abort,
	.ck_open = gc_open,
	.ck_status = gc_status,
	.ck_ask = gc_ask,
	.ck_recv = gc_recv,
	.ck_watcher_info = procdesc_guardian_info,
	.ck_drop = procdesc_guardian_drop,
	.ck_died = procdesc_guardian_died,
	.ck_gone = procdesc_guardian_gone,
	.ck_atfork_child = procdesc_guardian_atfork_child,
};
