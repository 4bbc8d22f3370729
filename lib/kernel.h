/*-
 * SPDX-License-Identifier: BSD-2-Clause
 *
 * Copyright (c) 2026 The libprocdesc authors.
 */

/* What the kernel must have (kernel.c): 0, or ENOSYS. */

#ifndef _PROCDESC_KERNEL_H_
#define	_PROCDESC_KERNEL_H_

#include "common.h"

int	procdesc_kernel_ok(void) PROCDESC_HIDDEN;

#endif /* !_PROCDESC_KERNEL_H_ */
