/*-
 * SPDX-License-Identifier: BSD-2-Clause
 *
 * Copyright (c) 2026 The libprocdesc authors.
 */

/*
 * The waitpid(2) status word, composed with <sys/wait.h>'s own macros.
 * glibc defines W_EXITCODE, W_STOPCODE and WCOREFLAG with _DEFAULT_SOURCE;
 * musl 1.2 does not, and gets these fallbacks, Linux's layout.  No libc
 * names a continue's status publicly: it is the value WIFCONTINUED()
 * tests for.  Private to the library: never installed.
 */

#ifndef _PROCDESC_WAITSTATUS_H_
#define	_PROCDESC_WAITSTATUS_H_

#include <sys/wait.h>

#ifndef W_EXITCODE
#define	W_EXITCODE(ret, sig)	((ret) << 8 | (sig))
#endif
#ifndef W_STOPCODE
#define	W_STOPCODE(sig)		((sig) << 8 | 0x7f)
#endif
#ifndef WCOREFLAG
#define	WCOREFLAG		0x80
#endif

#define	PROCDESC_W_CONTINUED	0xffff
_Static_assert(WIFCONTINUED(PROCDESC_W_CONTINUED) &&
    !WIFEXITED(PROCDESC_W_CONTINUED) && !WIFSIGNALED(PROCDESC_W_CONTINUED) &&
    !WIFSTOPPED(PROCDESC_W_CONTINUED), "a continue's status");

#endif /* !_PROCDESC_WAITSTATUS_H_ */
