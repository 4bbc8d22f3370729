/*-
 * SPDX-License-Identifier: BSD-2-Clause
 *
 * Copyright (c) 2026 The libprocdesc authors.
 */

/*
 * procdesc-guardian: the helper process that kills a child of its owner
 * when the last copy of the child's descriptor is closed, wherever that copy
 * lives and whether or not the owner still exists.  Started by the library
 * (lib/helper.c) with its socket to the owner as descriptor 3.
 *
 * Per child, one thread blocks in F_OFD_SETLKW for the byte that the
 * child's descriptor holds locked.  OFD locks belong to the open file
 * description, so the thread gets the lock exactly when the last reference
 * to that description is gone: close, dup2 over it, exec of a close-on-exec
 * copy, death of any process holding a copy.  The thread then SIGKILLs the
 * child through its own pidfd (never a recycled pid) unless PD_DAEMON, and
 * tells the owner.  No thread runs, and nothing polls, while nothing closes.
 *
 * Invariants: the process exits when its owner's socket is closed and no
 * waiting thread is left (g_nwait == 0), news not yet sent is then
 * dropped (nobody reads it); g_* are guarded by g_mtx.
 */

#include <sys/socket.h>

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "sys/procdesc.h"
#include "procdesc_impl.h"
#include "syscall.h"

#define	G_SOCK		3
#define	G_STACK		(32 * 1024)

struct gwait {
	struct gwait		*gw_next;	/* (g_mtx) Mail queue. */
	int			 gw_fd;		/* Our pidfd of the child. */
	struct procdesc_msg	 gw_msg;
};

static pthread_mutex_t g_mtx = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t g_cv = PTHREAD_COND_INITIALIZER;
static pthread_cond_t g_mailcv = PTHREAD_COND_INITIALIZER;
static unsigned long g_nwait;		/* (g_mtx) Waiting threads. */
static struct gwait *g_mail;		/* (g_mtx) CLOSED news to send. */
static struct gwait **g_mailtail = &g_mail; /* (g_mtx) */

/*
 * The mailer: the one thread that sends news to the owner, who reads it
 * only now and then (at pdfork and reaps).  A waiter hands its news over
 * and exits at once, instead of keeping its stack blocked in send(2).
 */
static void *
g_mailer(void *arg)
{
	struct gwait *gw;

	(void)arg;
	for (;;) {
		pthread_mutex_lock(&g_mtx);
		while (g_mail == NULL)
			pthread_cond_wait(&g_mailcv, &g_mtx);
		gw = g_mail;
		if ((g_mail = gw->gw_next) == NULL)
			g_mailtail = &g_mail;
		pthread_mutex_unlock(&g_mtx);
		(void)send(G_SOCK, &gw->gw_msg, sizeof(gw->gw_msg),
		    MSG_NOSIGNAL);
		free(gw);
	}
	return (NULL);
}

static void
g_post(struct gwait *gw)
{

	gw->gw_next = NULL;
	*g_mailtail = gw;
	g_mailtail = &gw->gw_next;
	pthread_cond_signal(&g_mailcv);
}

static void *
g_wait(void *arg)
{
	struct gwait *gw;
	struct flock fl;
	int r;

	gw = arg;
	memset(&fl, 0, sizeof(fl));
	fl.l_type = F_WRLCK;
	fl.l_whence = SEEK_SET;
	fl.l_start = gw->gw_msg.pm_off;
	fl.l_len = 1;
	while ((r = fcntl(gw->gw_fd, F_OFD_SETLKW, &fl)) == -1 &&
	    errno == EINTR)
		;
	if (r == 0) {
		/* The last copy is gone. */
		if ((gw->gw_msg.pm_flags & PD_DAEMON) == 0)
			(void)sys_pidfd_send_signal(gw->gw_fd, SIGKILL);
		fl.l_type = F_UNLCK;
		(void)fcntl(gw->gw_fd, F_OFD_SETLK, &fl);
		gw->gw_msg.pm_op = PROCDESC_MSG_CLOSED;
	}
	close(gw->gw_fd);
	pthread_mutex_lock(&g_mtx);
	if (r == 0)
		g_post(gw);
	else
		free(gw);
	if (--g_nwait == 0)
		pthread_cond_signal(&g_cv);
	pthread_mutex_unlock(&g_mtx);
	return (NULL);
}

/* Start a waiting thread; retry while threads are short. */
static void
g_start(struct gwait *gw, pthread_attr_t *attr)
{
	struct timespec ms = { 0, 1000 * 1000 };
	pthread_t td;

	pthread_mutex_lock(&g_mtx);
	g_nwait++;
	pthread_mutex_unlock(&g_mtx);
	while (pthread_create(&td, attr, g_wait, gw) == EAGAIN)
		nanosleep(&ms, NULL);
}

/* One message from the owner: 1, 0 at EOF, -1 on error. */
static int
g_recv(struct gwait *gw)
{
	union {
		struct cmsghdr	hdr;
		char		buf[CMSG_SPACE(sizeof(int))];
	} cm;
	struct cmsghdr *c;
	struct msghdr mh;
	struct iovec iov;
	ssize_t n;

	memset(&mh, 0, sizeof(mh));
	iov.iov_base = &gw->gw_msg;
	iov.iov_len = sizeof(gw->gw_msg);
	mh.msg_iov = &iov;
	mh.msg_iovlen = 1;
	mh.msg_control = cm.buf;
	mh.msg_controllen = sizeof(cm.buf);
	while ((n = recvmsg(G_SOCK, &mh, MSG_CMSG_CLOEXEC)) == -1 &&
	    errno == EINTR)
		;
	if (n <= 0)
		return ((int)n);
	gw->gw_fd = -1;
	c = CMSG_FIRSTHDR(&mh);
	if (c != NULL && c->cmsg_level == SOL_SOCKET &&
	    c->cmsg_type == SCM_RIGHTS && c->cmsg_len == CMSG_LEN(sizeof(int)))
		memcpy(&gw->gw_fd, CMSG_DATA(c), sizeof(int));
	if (n != (ssize_t)sizeof(gw->gw_msg) ||
	    gw->gw_msg.pm_op != PROCDESC_MSG_GUARD || gw->gw_fd == -1) {
		if (gw->gw_fd != -1)
			close(gw->gw_fd);
		gw->gw_fd = -1;
	}
	return (1);
}

int
main(void)
{
	pthread_attr_t attr;
	pthread_t mailer;
	struct gwait *gw;
	sigset_t none;
	int type;
	socklen_t len;

	len = sizeof(type);
	if (getsockopt(G_SOCK, SOL_SOCKET, SO_TYPE, &type, &len) == -1 ||
	    type != SOCK_SEQPACKET) {
		static const char msg[] =
		    "procdesc-guardian: started by libprocdesc only\n";
		(void)write(2, msg, sizeof(msg) - 1);
		return (2);
	}
	signal(SIGPIPE, SIG_IGN);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, G_STACK);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	if (pthread_create(&mailer, &attr, g_mailer, NULL) != 0)
		return (1);
	for (;;) {
		if ((gw = malloc(sizeof(*gw))) == NULL) {
			struct timespec ms = { 0, 1000 * 1000 };

			nanosleep(&ms, NULL);
			continue;
		}
		if (g_recv(gw) <= 0) {
			free(gw);
			break;
		}
		if (gw->gw_fd == -1)
			free(gw);
		else
			g_start(gw, &attr);
	}
	/* The owner is gone: finish guarding what we have, then exit. */
	pthread_mutex_lock(&g_mtx);
	while (g_nwait > 0)
		pthread_cond_wait(&g_cv, &g_mtx);
	pthread_mutex_unlock(&g_mtx);
	return (0);
}
