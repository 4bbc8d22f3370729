/*-
 * SPDX-License-Identifier: BSD-2-Clause
 *
 * Copyright (c) 2026 The libprocdesc authors.
 */

/*
 * A struct pg_msg and its descriptors over a SOCK_SEQPACKET socket, in
 * one sendmsg(2) or recvmsg(2) (wire.h says who uses it).
 */

#include <sys/socket.h>

#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "common.h"
#include "wire.h"

/*
 * Send m with nfds (0 to PG_WIRE_MAXFDS) descriptors on s, through EINTR,
 * with MSG_NOSIGNAL and flags: 0, or an errno value.
 */
int
procdesc_wire_send(int s, const struct pg_msg *m, const int *fds, int nfds,
    int flags)
{
	union {
		struct cmsghdr	hdr;
		char		buf[CMSG_SPACE(PG_WIRE_MAXFDS * sizeof(int))];
	} cm;
	struct msghdr mh;
	struct iovec iov;

	if (nfds < 0 || nfds > PG_WIRE_MAXFDS)
		return (EINVAL);
	memset(&mh, 0, sizeof(mh));
	iov.iov_base = (void *)(uintptr_t)m;
	iov.iov_len = sizeof(*m);
	mh.msg_iov = &iov;
	mh.msg_iovlen = 1;
	if (nfds > 0) {
		memset(&cm, 0, sizeof(cm));
		mh.msg_control = cm.buf;
		mh.msg_controllen = CMSG_SPACE((size_t)nfds * sizeof(int));
		cm.hdr.cmsg_level = SOL_SOCKET;
		cm.hdr.cmsg_type = SCM_RIGHTS;
		cm.hdr.cmsg_len = CMSG_LEN((size_t)nfds * sizeof(int));
		memcpy(CMSG_DATA(&cm.hdr), fds, (size_t)nfds * sizeof(int));
	}
	while (sendmsg(s, &mh, MSG_NOSIGNAL | flags) == -1)
		if (errno != EINTR)
			return (errno);
	return (0);
}

/*
 * Receive one message on s into *m (close-on-exec descriptors; flags as
 * recvmsg's): its length, or -1 and errno.  Up to maxfds descriptors go to
 * fds (*nfdsp of them); any more are closed.  *truncp says whether the
 * message or its descriptors were cut short, or more came than maxfds:
 * the caller then takes nothing of it.
 */
ssize_t
procdesc_wire_recv(int s, struct pg_msg *m, int *fds, int maxfds,
    int *nfdsp, bool *truncp, int flags)
{
	union {
		struct cmsghdr	hdr;
		char		buf[CMSG_SPACE(PG_WIRE_MAXFDS * sizeof(int))];
	} cm;
	struct cmsghdr *c;
	struct msghdr mh;
	struct iovec iov;
	size_t i, n;
	ssize_t len;
	int fd;

	memset(&mh, 0, sizeof(mh));
	memset(m, 0, sizeof(*m));
	iov.iov_base = m;
	iov.iov_len = sizeof(*m);
	mh.msg_iov = &iov;
	mh.msg_iovlen = 1;
	mh.msg_control = cm.buf;
	mh.msg_controllen = sizeof(cm.buf);
	*nfdsp = 0;
	*truncp = false;
	if ((len = recvmsg(s, &mh, MSG_CMSG_CLOEXEC | flags)) == -1)
		return (-1);
	for (c = CMSG_FIRSTHDR(&mh); c != NULL; c = CMSG_NXTHDR(&mh, c)) {
		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
			continue;
		n = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (i = 0; i < n; i++) {
			memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof(fd));
			if (*nfdsp < maxfds)
				fds[(*nfdsp)++] = fd;
			else {
				close(fd);
				*truncp = true;
			}
		}
	}
	if ((mh.msg_flags & (MSG_CTRUNC | MSG_TRUNC)) != 0)
		*truncp = true;
	return (len);
}
