/*-
 * SPDX-License-Identifier: BSD-2-Clause
 *
 * Copyright (c) 2026 The libprocdesc authors.
 */

/*
 * FreeBSD's <spawn.h> for ported code: the system's header, plus
 * posix_spawnattr_setprocdescp_np(3) and posix_spawnattr_getprocdescp_np(3),
 * which ask posix_spawn(3) and posix_spawnp(3) for a process descriptor.
 *
 * glibc's spawn objects have no room for that request, and its list of
 * file actions is private, so the library keeps objects of its own.  This
 * header is an overlay in the style of libbsd-overlay: installed as
 * procdesc-overlay/spawn.h, found first through
 * "pkg-config --cflags libprocdesc-overlay" (-isystem), it includes the
 * system's <spawn.h> and then maps the two object types and every call
 * that takes one to the library's procdesc_ versions, so that unchanged
 * source compiles against them.  The POSIX_SPAWN_* flags are the system's.
 * Every file that shares a spawn object must be compiled with the overlay
 * (posix_spawnattr_setprocdescp_np(3), NOTES 1.7 and 2.12).
 *
 * _PROCDESC_SPAWN_NOMAP, defined before the first #include <spawn.h>,
 * declares the procdesc_ names without the mapping: for the library's own
 * source, which calls the system's functions as well.
 */

#ifndef _PROCDESC_OVERLAY_SPAWN_H_
#define	_PROCDESC_OVERLAY_SPAWN_H_

#include_next <spawn.h>

#include <sys/types.h>
#include <sched.h>
#include <signal.h>

/* The library's objects, opaque as FreeBSD's are. */
typedef struct __procdesc_spawnattr *__procdesc_spawnattr_t;
typedef struct __procdesc_spawn_file_actions *__procdesc_spawn_file_actions_t;

#ifdef __cplusplus
extern "C" {
#endif

int	procdesc_posix_spawn(pid_t *__restrict _pid,
	    const char *__restrict _path,
	    const __procdesc_spawn_file_actions_t *_file_actions,
	    const __procdesc_spawnattr_t *__restrict _attrp,
	    char *const _argv[], char *const _envp[]);
int	procdesc_posix_spawnp(pid_t *__restrict _pid,
	    const char *__restrict _file,
	    const __procdesc_spawn_file_actions_t *_file_actions,
	    const __procdesc_spawnattr_t *__restrict _attrp,
	    char *const _argv[], char *const _envp[]);

int	procdesc_posix_spawnattr_init(__procdesc_spawnattr_t *_attr);
int	procdesc_posix_spawnattr_destroy(__procdesc_spawnattr_t *_attr);
int	procdesc_posix_spawnattr_getflags(
	    const __procdesc_spawnattr_t *__restrict _attr,
	    short *__restrict _flags);
int	procdesc_posix_spawnattr_setflags(__procdesc_spawnattr_t *_attr,
	    short _flags);
int	procdesc_posix_spawnattr_getpgroup(
	    const __procdesc_spawnattr_t *__restrict _attr,
	    pid_t *__restrict _pgroup);
int	procdesc_posix_spawnattr_setpgroup(__procdesc_spawnattr_t *_attr,
	    pid_t _pgroup);
int	procdesc_posix_spawnattr_getschedparam(
	    const __procdesc_spawnattr_t *__restrict _attr,
	    struct sched_param *__restrict _param);
int	procdesc_posix_spawnattr_setschedparam(
	    __procdesc_spawnattr_t *__restrict _attr,
	    const struct sched_param *__restrict _param);
int	procdesc_posix_spawnattr_getschedpolicy(
	    const __procdesc_spawnattr_t *__restrict _attr,
	    int *__restrict _policy);
int	procdesc_posix_spawnattr_setschedpolicy(__procdesc_spawnattr_t *_attr,
	    int _policy);
int	procdesc_posix_spawnattr_getsigdefault(
	    const __procdesc_spawnattr_t *__restrict _attr,
	    sigset_t *__restrict _sigdefault);
int	procdesc_posix_spawnattr_setsigdefault(
	    __procdesc_spawnattr_t *__restrict _attr,
	    const sigset_t *__restrict _sigdefault);
int	procdesc_posix_spawnattr_getsigmask(
	    const __procdesc_spawnattr_t *__restrict _attr,
	    sigset_t *__restrict _sigmask);
int	procdesc_posix_spawnattr_setsigmask(
	    __procdesc_spawnattr_t *__restrict _attr,
	    const sigset_t *__restrict _sigmask);
int	procdesc_posix_spawnattr_getprocdescp_np(
	    const __procdesc_spawnattr_t *__restrict _attr,
	    int **__restrict _fdpp, int *__restrict _pdrflagsp);
int	procdesc_posix_spawnattr_setprocdescp_np(
	    const __procdesc_spawnattr_t *__restrict _attr,
	    int *__restrict _fdp, int _pdrflags);

int	procdesc_posix_spawn_file_actions_init(
	    __procdesc_spawn_file_actions_t *_fa);
int	procdesc_posix_spawn_file_actions_destroy(
	    __procdesc_spawn_file_actions_t *_fa);
int	procdesc_posix_spawn_file_actions_addopen(
	    __procdesc_spawn_file_actions_t *__restrict _fa, int _fd,
	    const char *__restrict _path, int _oflag, mode_t _mode);
int	procdesc_posix_spawn_file_actions_addclose(
	    __procdesc_spawn_file_actions_t *_fa, int _fd);
int	procdesc_posix_spawn_file_actions_adddup2(
	    __procdesc_spawn_file_actions_t *_fa, int _fd, int _newfd);
int	procdesc_posix_spawn_file_actions_addchdir_np(
	    __procdesc_spawn_file_actions_t *__restrict _fa,
	    const char *__restrict _path);
int	procdesc_posix_spawn_file_actions_addfchdir_np(
	    __procdesc_spawn_file_actions_t *_fa, int _fd);
int	procdesc_posix_spawn_file_actions_addclosefrom_np(
	    __procdesc_spawn_file_actions_t *_fa, int _from);
int	procdesc_posix_spawn_file_actions_addtcsetpgrp_np(
	    __procdesc_spawn_file_actions_t *_fa, int _tcfd);

#ifdef __cplusplus
}
#endif

#ifndef _PROCDESC_SPAWN_NOMAP
#define	posix_spawnattr_t		__procdesc_spawnattr_t
#define	posix_spawn_file_actions_t	__procdesc_spawn_file_actions_t

#define	posix_spawn			procdesc_posix_spawn
#define	posix_spawnp			procdesc_posix_spawnp

#define	posix_spawnattr_init		procdesc_posix_spawnattr_init
#define	posix_spawnattr_destroy		procdesc_posix_spawnattr_destroy
#define	posix_spawnattr_getflags	procdesc_posix_spawnattr_getflags
#define	posix_spawnattr_setflags	procdesc_posix_spawnattr_setflags
#define	posix_spawnattr_getpgroup	procdesc_posix_spawnattr_getpgroup
#define	posix_spawnattr_setpgroup	procdesc_posix_spawnattr_setpgroup
#define	posix_spawnattr_getschedparam	procdesc_posix_spawnattr_getschedparam
#define	posix_spawnattr_setschedparam	procdesc_posix_spawnattr_setschedparam
#define	posix_spawnattr_getschedpolicy	procdesc_posix_spawnattr_getschedpolicy
#define	posix_spawnattr_setschedpolicy	procdesc_posix_spawnattr_setschedpolicy
#define	posix_spawnattr_getsigdefault	procdesc_posix_spawnattr_getsigdefault
#define	posix_spawnattr_setsigdefault	procdesc_posix_spawnattr_setsigdefault
#define	posix_spawnattr_getsigmask	procdesc_posix_spawnattr_getsigmask
#define	posix_spawnattr_setsigmask	procdesc_posix_spawnattr_setsigmask
#define	posix_spawnattr_getprocdescp_np	\
	procdesc_posix_spawnattr_getprocdescp_np
#define	posix_spawnattr_setprocdescp_np	\
	procdesc_posix_spawnattr_setprocdescp_np

#define	posix_spawn_file_actions_init	procdesc_posix_spawn_file_actions_init
#define	posix_spawn_file_actions_destroy \
	procdesc_posix_spawn_file_actions_destroy
#define	posix_spawn_file_actions_addopen \
	procdesc_posix_spawn_file_actions_addopen
#define	posix_spawn_file_actions_addclose \
	procdesc_posix_spawn_file_actions_addclose
#define	posix_spawn_file_actions_adddup2 \
	procdesc_posix_spawn_file_actions_adddup2
#define	posix_spawn_file_actions_addchdir_np \
	procdesc_posix_spawn_file_actions_addchdir_np
#define	posix_spawn_file_actions_addfchdir_np \
	procdesc_posix_spawn_file_actions_addfchdir_np
#define	posix_spawn_file_actions_addclosefrom_np \
	procdesc_posix_spawn_file_actions_addclosefrom_np
#define	posix_spawn_file_actions_addtcsetpgrp_np \
	procdesc_posix_spawn_file_actions_addtcsetpgrp_np
/* POSIX.1-2024's names, which FreeBSD also has. */
#define	posix_spawn_file_actions_addchdir \
	procdesc_posix_spawn_file_actions_addchdir_np
#define	posix_spawn_file_actions_addfchdir \
	procdesc_posix_spawn_file_actions_addfchdir_np
#endif /* !_PROCDESC_SPAWN_NOMAP */

#endif /* !_PROCDESC_OVERLAY_SPAWN_H_ */
