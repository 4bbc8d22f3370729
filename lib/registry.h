/*-
 * SPDX-License-Identifier: BSD-2-Clause
 *
 * Copyright (c) 2026 The libprocdesc authors.
 */

/*
 * The registry (registry.c): this process's children's entries
 * (child.h), by pid and by descriptor id.  A plain table: no system call,
 * nothing called outward but hash.c; every function with procdesc_mtx
 * held.
 */

#ifndef _PROCDESC_REGISTRY_H_
#define	_PROCDESC_REGISTRY_H_

#include <sys/types.h>

#include <stdbool.h>
#include <stdint.h>

#include "common.h"

struct procdesc_child;

int	procdesc_registry_reserve(void) PROCDESC_HIDDEN;
void	procdesc_registry_insert(struct procdesc_child *ch) PROCDESC_HIDDEN;
void	procdesc_registry_remove(struct procdesc_child *ch) PROCDESC_HIDDEN;
bool	procdesc_registry_empty(void) PROCDESC_HIDDEN;
struct procdesc_child *procdesc_registry_pid(pid_t pid,
	    const struct procdesc_child *after) PROCDESC_HIDDEN;
struct procdesc_child *procdesc_registry_id(uint64_t id) PROCDESC_HIDDEN;
struct procdesc_child *procdesc_registry_cookie(uint64_t cookie)
    PROCDESC_HIDDEN;
void	procdesc_registry_foreach(void (*fn)(struct procdesc_child *, void *),
	    void *arg) PROCDESC_HIDDEN;
void	procdesc_registry_atfork_child(void) PROCDESC_HIDDEN;

#endif /* !_PROCDESC_REGISTRY_H_ */
