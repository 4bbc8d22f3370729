/*-
 * SPDX-License-Identifier: BSD-2-Clause
 *
 * Copyright (c) 2026 The libprocdesc authors.
 */

/*
 * pdiff3: "diff3 -E mine older yours" (or -e) in the way FreeBSD's diff3
 * runs its two diffs: each diff(1) is a child under a process descriptor
 * (PD_CLOEXEC), both outputs are read through pipes with poll(2) so that
 * neither child can block on a full pipe, the program then enters
 * capability mode and collects both children with pdwait(2).
 *
 * The merge follows GNU diff3: the diffs are older->mine and older->yours,
 * overlapping or adjacent hunks form one block, and the ed script is
 * printed from the last block to the first.  Only -e and -E exist here,
 * and every input must end in a newline.
 *
 * Exit status as diff3: 0 no conflict, 1 conflicts, 2 trouble.
 */

#include <sys/types.h>
#include <sys/procdesc.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <capsicum_helpers.h>
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define	MINE	0
#define	OLDER	1
#define	YOURS	2

/* A file's lines: line[i] is line i + 1, len[i] with its newline. */
struct text {
	const char	*name;
	char		*buf;
	size_t		 size;
	char		**line;
	size_t		*len;
	long		 nlines;
};

/* Lines from..to; to == from - 1 for none. */
struct range {
	long	from;
	long	to;
};

/* One hunk of a normal diff older -> other. */
struct hunk {
	struct range	old;
	struct range	new;
};

struct diff {
	struct hunk	*hunk;
	size_t		 n;
};

enum btype { B_ALL, B_MINE, B_OLDER, B_YOURS };

struct block {
	struct range	r[3];
	enum btype	type;
};

struct buf {
	char	*p;
	size_t	 len;
	size_t	 cap;
};

static bool	 eflag;		/* -e: conflicts without brackets. */

static void	 readtext(struct text *, const char *);
static void	 startdiff(const char *, const char *, int *, int *);
static void	 readboth(int, int, struct buf *, struct buf *);
static void	 waitdiff(int);
static void	 parsediff(struct buf *, struct diff *);
static size_t	 merge(struct diff *, struct text *, struct block **);
static bool	 edscript(struct block *, size_t, struct text *);
static void	 usage(void);

int
main(int argc, char *argv[])
{
	struct text t[3];
	struct buf out[2];
	struct diff d[2];
	struct block *b;
	size_t nb;
	int ch, pd[2], rfd[2];
	cap_rights_t rights;

	while ((ch = getopt(argc, argv, "eE")) != -1) {
		switch (ch) {
		case 'e':
			eflag = true;
			break;
		case 'E':
			eflag = false;
			break;
		default:
			usage();
		}
	}
	argc -= optind;
	argv += optind;
	if (argc != 3)
		usage();

	readtext(&t[MINE], argv[0]);
	readtext(&t[OLDER], argv[1]);
	readtext(&t[YOURS], argv[2]);

	startdiff(argv[1], argv[0], &pd[0], &rfd[0]);
	startdiff(argv[1], argv[2], &pd[1], &rfd[1]);

	cap_rights_init(&rights, CAP_READ, CAP_EVENT);
	if (caph_rights_limit(rfd[0], &rights) < 0 ||
	    caph_rights_limit(rfd[1], &rights) < 0)
		err(2, "unable to limit rights on pipes");
	cap_rights_init(&rights, CAP_PDWAIT);
	if (caph_rights_limit(pd[0], &rights) < 0 ||
	    caph_rights_limit(pd[1], &rights) < 0)
		err(2, "unable to limit rights on process descriptors");
	if (caph_limit_stdio() < 0)
		err(2, "unable to limit stdio");
	if (caph_enter() < 0)
		err(2, "unable to enter capability mode");

	memset(out, 0, sizeof(out));
	readboth(rfd[0], rfd[1], &out[0], &out[1]);
	waitdiff(pd[0]);
	waitdiff(pd[1]);

	parsediff(&out[0], &d[0]);
	parsediff(&out[1], &d[1]);
	nb = merge(d, t, &b);
	if (edscript(b, nb, t))
		exit(1);
	exit(0);
}

static void
readtext(struct text *t, const char *path)
{
	struct stat sb;
	size_t cap, i;
	ssize_t n;
	int fd;

	t->name = path;
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		err(2, "%s", path);
	if (fstat(fd, &sb) == -1)
		err(2, "%s", path);
	cap = sb.st_size > 0 ? (size_t)sb.st_size + 1 : 4096;
	if ((t->buf = malloc(cap)) == NULL)
		err(2, NULL);
	t->size = 0;
	for (;;) {
		if (t->size == cap) {
			cap *= 2;
			if ((t->buf = realloc(t->buf, cap)) == NULL)
				err(2, NULL);
		}
		n = read(fd, t->buf + t->size, cap - t->size);
		if (n == -1) {
			if (errno == EINTR)
				continue;
			err(2, "%s", path);
		}
		if (n == 0)
			break;
		t->size += (size_t)n;
	}
	close(fd);
	if (t->size > 0 && t->buf[t->size - 1] != '\n')
		errx(2, "%s: incomplete last line is not supported", path);

	t->nlines = 0;
	for (i = 0; i < t->size; i++)
		if (t->buf[i] == '\n')
			t->nlines++;
	if ((t->line = calloc((size_t)t->nlines + 1, sizeof(*t->line))) ==
	    NULL || (t->len = calloc((size_t)t->nlines + 1,
	    sizeof(*t->len))) == NULL)
		err(2, NULL);
	t->nlines = 0;
	t->line[0] = t->buf;
	for (i = 0; i < t->size; i++) {
		if (t->buf[i] != '\n')
			continue;
		t->len[t->nlines] = (size_t)(t->buf + i + 1 -
		    t->line[t->nlines]);
		t->nlines++;
		t->line[t->nlines] = t->buf + i + 1;
	}
}

/*
 * Starts "diff -- a b" with its standard output on a pipe; returns the
 * child's process descriptor and the read end.
 */
static void
startdiff(const char *a, const char *b, int *pdp, int *rfdp)
{
	int pfd[2];
	pid_t pid;

	if (pipe2(pfd, O_CLOEXEC) == -1)
		err(2, "pipe");
	if ((pid = pdfork(pdp, PD_CLOEXEC)) == -1)
		err(2, "pdfork");
	if (pid == 0) {
		if (dup2(pfd[1], STDOUT_FILENO) == -1)
			_exit(2);
		execlp("diff", "diff", "--", a, b, (char *)NULL);
		warn("could not execute diff");
		_exit(2);
	}
	close(pfd[1]);
	*rfdp = pfd[0];
}

static void
readbuf(int *fdp, struct buf *b, int *open)
{
	ssize_t n;

	if (b->cap - b->len < 4096) {
		b->cap = b->cap == 0 ? 65536 : b->cap * 2;
		if ((b->p = realloc(b->p, b->cap + 1)) == NULL)
			err(2, NULL);
	}
	n = read(*fdp, b->p + b->len, b->cap - b->len);
	if (n == -1) {
		if (errno == EINTR || errno == EAGAIN)
			return;
		err(2, "read");
	}
	if (n == 0) {
		close(*fdp);
		*fdp = -1;
		(*open)--;
		return;
	}
	b->len += (size_t)n;
}

/* Reads both pipes to their end, whichever has data first. */
static void
readboth(int fd0, int fd1, struct buf *b0, struct buf *b1)
{
	struct pollfd pfd[2];
	int open;

	pfd[0].fd = fd0;
	pfd[1].fd = fd1;
	pfd[0].events = pfd[1].events = POLLIN;
	open = 2;
	while (open > 0) {
		if (poll(pfd, 2, -1) == -1) {
			if (errno == EINTR)
				continue;
			err(2, "poll");
		}
		if (pfd[0].fd != -1 && pfd[0].revents != 0)
			readbuf(&pfd[0].fd, b0, &open);
		if (pfd[1].fd != -1 && pfd[1].revents != 0)
			readbuf(&pfd[1].fd, b1, &open);
	}
}

/* diff exits 0 or 1; 2 means it has already said what went wrong. */
static void
waitdiff(int pd)
{
	int status;

	while (pdwait(pd, &status, WEXITED, NULL, NULL) == -1)
		if (errno != EINTR)
			err(2, "pdwait");
	close(pd);
	if (WIFSIGNALED(status))
		errx(2, "diff killed by signal %d", WTERMSIG(status));
	if (!WIFEXITED(status) || WEXITSTATUS(status) > 1)
		exit(2);
}

static long
number(char **pp)
{
	long n;

	if (**pp < '0' || **pp > '9')
		errx(2, "malformed diff output");
	n = strtol(*pp, pp, 10);
	return (n);
}

/* Parses "l[,l]{a,c,d}l[,l]" commands of a normal diff. */
static void
parsediff(struct buf *b, struct diff *d)
{
	struct hunk *h;
	struct range r1, r2;
	char *p, *end, *eol;
	size_t cap;
	char cmd;

	d->hunk = NULL;
	d->n = cap = 0;
	if (b->p == NULL)
		return;
	b->p[b->len] = '\0';
	end = b->p + b->len;
	for (p = b->p; p < end; p = eol + 1) {
		if ((eol = strchr(p, '\n')) == NULL)
			eol = end;
		if (*p == '<' || *p == '>' || *p == '-' || *p == '\\')
			continue;
		r1.from = r1.to = number(&p);
		if (*p == ',') {
			p++;
			r1.to = number(&p);
		}
		cmd = *p++;
		r2.from = r2.to = number(&p);
		if (*p == ',') {
			p++;
			r2.to = number(&p);
		}
		if (d->n == cap) {
			cap = cap == 0 ? 64 : cap * 2;
			if ((d->hunk = reallocarray(d->hunk, cap,
			    sizeof(*d->hunk))) == NULL)
				err(2, NULL);
		}
		h = &d->hunk[d->n++];
		switch (cmd) {
		case 'a':
			h->old.from = r1.from + 1;
			h->old.to = r1.from;
			h->new = r2;
			break;
		case 'd':
			h->old = r1;
			h->new.from = r2.from + 1;
			h->new.to = r2.from;
			break;
		case 'c':
			h->old = r1;
			h->new = r2;
			break;
		default:
			errx(2, "malformed diff output");
		}
	}
}

static bool
samelines(struct text *a, struct range ra, struct text *b, struct range rb)
{
	long i, n;

	n = ra.to - ra.from + 1;
	if (n != rb.to - rb.from + 1)
		return (false);
	for (i = 0; i < n; i++) {
		if (a->len[ra.from - 1 + i] != b->len[rb.from - 1 + i] ||
		    memcmp(a->line[ra.from - 1 + i], b->line[rb.from - 1 + i],
		    a->len[ra.from - 1 + i]) != 0)
			return (false);
	}
	return (true);
}

/*
 * Groups the hunks of both diffs into three-way blocks: a block starts at
 * the hunk that starts first in the older file and takes in every hunk of
 * the other diff that starts at most one line after its end, as GNU diff3
 * does.  A file without hunks in the block keeps the offset of the last.
 */
static size_t
merge(struct diff *d, struct text *t, struct block **bp)
{
	struct block *b, last;
	struct hunk *h;
	size_t first[2], end[2], i[2], n, cap;
	bool used[2];
	long hwm, lowc, highc;
	int base, hw, other, k, f;

	memset(&last, 0, sizeof(last));
	b = NULL;
	n = cap = 0;
	i[0] = i[1] = 0;
	while (i[0] < d[0].n || i[1] < d[1].n) {
		if (i[0] >= d[0].n)
			base = 1;
		else if (i[1] >= d[1].n)
			base = 0;
		else
			base = d[0].hunk[i[0]].old.from >
			    d[1].hunk[i[1]].old.from;
		used[0] = used[1] = false;
		hw = base;
		hwm = d[hw].hunk[i[hw]].old.to;
		first[hw] = i[hw];
		end[hw] = ++i[hw];
		used[hw] = true;
		other = hw ^ 1;
		while (i[other] < d[other].n &&
		    d[other].hunk[i[other]].old.from <= hwm + 1) {
			if (!used[other]) {
				used[other] = true;
				first[other] = i[other];
			}
			end[other] = ++i[other];
			if (hwm < d[other].hunk[end[other] - 1].old.to) {
				hw ^= 1;
				hwm = d[hw].hunk[end[hw] - 1].old.to;
			}
			other = hw ^ 1;
		}

		if (n == cap) {
			cap = cap == 0 ? 64 : cap * 2;
			if ((b = reallocarray(b, cap, sizeof(*b))) == NULL)
				err(2, NULL);
		}
		lowc = d[base].hunk[first[base]].old.from;
		highc = d[hw].hunk[end[hw] - 1].old.to;
		b[n].r[OLDER].from = lowc;
		b[n].r[OLDER].to = highc;
		for (k = 0; k < 2; k++) {
			f = k == 0 ? MINE : YOURS;
			if (used[k]) {
				h = &d[k].hunk[first[k]];
				b[n].r[f].from = lowc - h->old.from +
				    h->new.from;
				h = &d[k].hunk[end[k] - 1];
				b[n].r[f].to = highc - h->old.to + h->new.to;
			} else {
				b[n].r[f].from = lowc - last.r[OLDER].to +
				    last.r[f].to;
				b[n].r[f].to = highc - last.r[OLDER].to +
				    last.r[f].to;
			}
		}
		if (!used[0])
			b[n].type = B_YOURS;
		else if (!used[1])
			b[n].type = B_MINE;
		else if (samelines(&t[MINE], b[n].r[MINE], &t[YOURS],
		    b[n].r[YOURS]))
			b[n].type = B_OLDER;
		else
			b[n].type = B_ALL;
		last = b[n++];
	}
	*bp = b;
	return (n);
}

/* Prints lines, doubling a leading '.'; true if it did. */
static bool
dotlines(struct text *t, struct range r)
{
	bool leading;
	long i;

	leading = false;
	for (i = r.from; i <= r.to; i++) {
		if (t->line[i - 1][0] == '.') {
			leading = true;
			putchar('.');
		}
		fwrite(t->line[i - 1], 1, t->len[i - 1], stdout);
	}
	return (leading);
}

static void
undotlines(bool leading, long start, long num)
{

	printf(".\n");
	if (leading) {
		if (num == 1)
			printf("%lds/^\\.//\n", start);
		else
			printf("%ld,%lds/^\\.//\n", start, start + num - 1);
	}
}

#define	NLINES(b, f)	((b)->r[f].to - (b)->r[f].from + 1)

/*
 * The ed script that brings the changes older -> yours into mine, last
 * block first; with -E a conflict keeps mine's lines between markers.
 * Returns true if a conflict was bracketed.
 */
static bool
edscript(struct block *b, size_t n, struct text *t)
{
	struct block *p;
	bool conflicts, leading;
	long low0, high0;

	conflicts = false;
	while (n-- > 0) {
		p = &b[n];
		if (p->type == B_MINE || p->type == B_OLDER)
			continue;
		low0 = p->r[MINE].from;
		high0 = p->r[MINE].to;
		if (p->type == B_ALL && !eflag) {
			conflicts = true;
			printf("%lda\n", high0);
			printf("=======\n");
			leading = dotlines(&t[YOURS], p->r[YOURS]);
			printf(">>>>>>> %s\n", t[YOURS].name);
			undotlines(leading, high0 + 2, NLINES(p, OLDER) +
			    NLINES(p, YOURS) + 1);
			printf("%lda\n<<<<<<< %s\n", low0 - 1, t[MINE].name);
			undotlines(false, low0 + 1, NLINES(p, OLDER));
		} else if (NLINES(p, YOURS) == 0) {
			if (low0 == high0)
				printf("%ldd\n", low0);
			else
				printf("%ld,%ldd\n", low0, high0);
		} else {
			switch (high0 - low0) {
			case -1:
				printf("%lda\n", high0);
				break;
			case 0:
				printf("%ldc\n", high0);
				break;
			default:
				printf("%ld,%ldc\n", low0, high0);
				break;
			}
			leading = dotlines(&t[YOURS], p->r[YOURS]);
			undotlines(leading, low0, NLINES(p, YOURS));
		}
	}
	if (fflush(stdout) != 0 || ferror(stdout))
		err(2, "stdout");
	return (conflicts);
}

static void
usage(void)
{

	fprintf(stderr, "usage: pdiff3 [-e | -E] mine older yours\n");
	exit(2);
}
