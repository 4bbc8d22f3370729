/*-
 * SPDX-License-Identifier: BSD-2-Clause
 *
 * Copyright (c) 2026 The libprocdesc authors.
 */

/*
 * FreeBSD's <sys/caprights.h>, which declares cap_rights_t, for ported
 * code that includes it alone: everything is in <sys/capsicum.h>.
 */

#ifndef _SYS_CAPRIGHTS_H_
#define	_SYS_CAPRIGHTS_H_

#include <sys/capsicum.h>

#endif /* !_SYS_CAPRIGHTS_H_ */
