/*-
 * SPDX-License-Identifier: BSD-2-Clause
 *
 * Copyright (c) 2026 The libprocdesc authors.
 */

/*
 * The library's pthread_atfork handlers (atfork.c), which call each
 * file's own hook; fork.c runs them by hand around a raw clone, which runs
 * no handler of its own.
 */

#ifndef _PROCDESC_ATFORK_H_
#define	_PROCDESC_ATFORK_H_

#include "common.h"

void	procdesc_atfork_prepare(void) PROCDESC_HIDDEN;
void	procdesc_atfork_parent(void) PROCDESC_HIDDEN;
void	procdesc_atfork_child(void) PROCDESC_HIDDEN;

#endif /* !_PROCDESC_ATFORK_H_ */
