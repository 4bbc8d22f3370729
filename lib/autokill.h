/*-
 * SPDX-License-Identifier: BSD-2-Clause
 *
 * Copyright (c) 2026 The libprocdesc authors.
 */

/*
 * The kernel's close-kill (lib/autokill.c): the choice of path for a new
 * child, and the calls on a descriptor of the kernel's path.  Each returns
 * 0 or an errno value.
 */

#ifndef _PROCDESC_AUTOKILL_H_
#define	_PROCDESC_AUTOKILL_H_

#include <sys/types.h>

#include <signal.h>
#include <stdint.h>

#include "common.h"

int	procdesc_ak_choose(int pdflags, uint64_t *cflagsp) PROCDESC_HIDDEN;
int	procdesc_ak_ident(int fd) PROCDESC_HIDDEN;
int	procdesc_ak_getpid(int fd, pid_t *pidp) PROCDESC_HIDDEN;
int	procdesc_ak_kill(int fd, int signum) PROCDESC_HIDDEN;
int	procdesc_ak_wait(int fd, int options, siginfo_t *si) PROCDESC_HIDDEN;
int	procdesc_ak_dupfd(int fd, int remotefd, int *newfdp) PROCDESC_HIDDEN;

#endif /* !_PROCDESC_AUTOKILL_H_ */
