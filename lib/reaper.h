/*-
 * SPDX-License-Identifier: BSD-2-Clause
 *
 * Copyright (c) 2026 The libprocdesc authors.
 */

/*
 * The reaper thread (reaper.c): started on first use, told of each new
 * child and each new guardian (procdesc_mtx not held), and asked to relay
 * a question to a guardian (held).
 */

#ifndef _PROCDESC_REAPER_H_
#define	_PROCDESC_REAPER_H_

#include <sys/types.h>

#include <stdbool.h>
#include <stdint.h>

#include "common.h"

int	procdesc_reaper_start(void) PROCDESC_HIDDEN;
void	procdesc_reaper_watch_child(pid_t pid) PROCDESC_HIDDEN;
void	procdesc_reaper_watch_guardian(int slot) PROCDESC_HIDDEN;
bool	procdesc_reaper_ask(int slot, uint64_t id) PROCDESC_HIDDEN;
void	procdesc_reaper_atfork_child(void) PROCDESC_HIDDEN;

#endif /* !_PROCDESC_REAPER_H_ */
