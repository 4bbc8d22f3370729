/*-
 * SPDX-License-Identifier: BSD-2-Clause
 *
 * Copyright (c) 2026 The libprocdesc authors.
 */

/*
 * libprocdesc-preload.so: the application's waits with FreeBSD's rules
 * (lib/appwait.c) for a program that was linked without -lprocdesc, such
 * as a host whose plugins pdfork: LD_PRELOAD it (NOTES 2.18).
 *
 * Such a program's references are versioned with the C library's
 * version (waitpid@GLIBC_2.2.5), which libprocdesc.so's definitions
 * (waitpid@LIBPROCDESC_1.2) never match, so preloading the library
 * itself changes nothing.  This object has no symbol versions at all,
 * and the dynamic linker binds a versioned reference to an unversioned
 * definition that it finds first.  Each call goes on to the library's
 * own, looked up by version in a constructor (dlvsym is not
 * async-signal-safe; a wait may be called from a SIGCHLD handler); until
 * then, the system calls.
 */

#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include <dlfcn.h>
#include <unistd.h>

#define	PL_PUBLIC	__attribute__((visibility("default")))

/*
 * The library's own, by version.  musl has no symbol versions (there,
 * LD_PRELOAD=libprocdesc.so works as it is, and so does this).
 */
#ifdef __GLIBC__
#define	PL_SYM(h, name)	dlvsym((h), (name), "LIBPROCDESC_1.2")
#else
#define	PL_SYM(h, name)	dlsym((h), (name))
#endif

static pid_t	(*pl_wait4)(pid_t, int *, int, struct rusage *);
static int	(*pl_waitid)(idtype_t, id_t, siginfo_t *, int);

/* Runs after the library's own constructors: it is our dependency. */
static void __attribute__((constructor))
pl_init(void)
{
	void *h;

	if ((h = dlopen("libprocdesc.so.0", RTLD_NOW | RTLD_NOLOAD)) == NULL)
		return;
	pl_wait4 = (pid_t (*)(pid_t, int *, int, struct rusage *))PL_SYM(h,
	    "wait4");
	pl_waitid = (int (*)(idtype_t, id_t, siginfo_t *, int))PL_SYM(h,
	    "waitid");
	(void)dlclose(h);
}

static pid_t
pl_call_wait4(pid_t pid, int *status, int options, struct rusage *rusage)
{

	if (pl_wait4 == NULL)
		return ((pid_t)syscall(SYS_wait4, pid, status, options,
		    rusage));
	return (pl_wait4(pid, status, options, rusage));
}

PL_PUBLIC pid_t
wait4(pid_t pid, int *status, int options, struct rusage *rusage)
{

	return (pl_call_wait4(pid, status, options, rusage));
}

PL_PUBLIC pid_t
waitpid(pid_t pid, int *status, int options)
{

	return (pl_call_wait4(pid, status, options, NULL));
}

PL_PUBLIC pid_t
wait(int *status)
{

	return (pl_call_wait4(-1, status, 0, NULL));
}

PL_PUBLIC pid_t
wait3(int *status, int options, struct rusage *rusage)
{

	return (pl_call_wait4(-1, status, options, rusage));
}

PL_PUBLIC int
waitid(idtype_t type, id_t id, siginfo_t *info, int options)
{

	if (pl_waitid == NULL)
		return ((int)syscall(SYS_waitid, type, id, info, options,
		    NULL));
	return (pl_waitid(type, id, info, options));
}
