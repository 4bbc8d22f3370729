/*-
 * SPDX-License-Identifier: BSD-2-Clause
 *
 * Copyright (c) 2026 The libprocdesc authors.
 */

/*
 * Samples, percentiles and the output: the table on stdout and its copy
 * (-t), every row in <dir>/bench.csv, and the goals with their verdicts,
 * repeated at the end.  Percentiles are nearest-rank.  A verdict is
 * always computed from a measured number, never assumed.
 */

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <err.h>

#include "bench.h"

#define	OUT_NGOALS	32

struct goalrec {
	char		g_text[256];
	enum verdict	g_verdict;
};

static FILE *out_txt;			/* Copy of stdout, or NULL. */
static FILE *out_csv;
static const char *out_d;
static int64_t out_t0;			/* When out_init ran. */
static char out_sect[96];
static struct goalrec out_goals[OUT_NGOALS];
static size_t out_ngoals;

void
samples_init(struct samples *s, size_t cap)
{

	s->s_cap = (cap == 0) ? 16 : cap;
	s->s_n = 0;
	s->s_sorted = false;
	if ((s->s_v = malloc(s->s_cap * sizeof(*s->s_v))) == NULL)
		err(1, "malloc");
}

void
samples_add(struct samples *s, double v)
{

	if (s->s_n == s->s_cap) {
		s->s_cap *= 2;
		if ((s->s_v = realloc(s->s_v, s->s_cap * sizeof(*s->s_v))) ==
		    NULL)
			err(1, "realloc");
	}
	s->s_v[s->s_n++] = v;
	s->s_sorted = false;
}

static int
cmp_double(const void *a, const void *b)
{
	double x, y;

	x = *(const double *)a;
	y = *(const double *)b;
	return ((x > y) - (x < y));
}

/* The p-quantile (0 < p <= 1), nearest rank; NAN without samples. */
double
samples_pct(struct samples *s, double p)
{
	size_t i;

	if (s->s_n == 0)
		return (NAN);
	if (!s->s_sorted) {
		qsort(s->s_v, s->s_n, sizeof(*s->s_v), cmp_double);
		s->s_sorted = true;
	}
	i = (size_t)ceil(p * (double)s->s_n);
	return (s->s_v[i == 0 ? 0 : i - 1]);
}

void
samples_free(struct samples *s)
{

	free(s->s_v);
	s->s_v = NULL;
	s->s_n = s->s_cap = 0;
}

/* The distribution as "us,fraction" lines, for a CDF plot. */
int
samples_write(struct samples *s, const char *name)
{
	char path[512];
	FILE *fp;
	size_t i;

	(void)samples_pct(s, 0.5);
	snprintf(path, sizeof(path), "%s/%s", out_d, name);
	if ((fp = fopen(path, "w")) == NULL) {
		warn("%s", path);
		return (errno);
	}
	fprintf(fp, "us,fraction\n");
	for (i = 0; i < s->s_n; i++)
		fprintf(fp, "%.3f,%.5f\n", s->s_v[i] / 1e3,
		    (double)(i + 1) / (double)s->s_n);
	fclose(fp);
	return (0);
}

int64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ((int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec);
}

void
out_init(const char *dir, const char *txt)
{
	char path[512];

	out_d = dir;
	out_t0 = now_ns();
	if (txt != NULL && (out_txt = fopen(txt, "w")) == NULL)
		err(1, "%s", txt);
	snprintf(path, sizeof(path), "%s/bench.csv", dir);
	if ((out_csv = fopen(path, "w")) == NULL)
		err(1, "%s", path);
	fprintf(out_csv, "section,name,n,median,p99,unit,baseline,"
	    "baseline_median,ratio,goal,verdict\n");
}

const char *
out_dir(void)
{

	return (out_d);
}

void
out_printf(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	if (out_txt != NULL) {
		va_start(ap, fmt);
		vfprintf(out_txt, fmt, ap);
		va_end(ap);
		fflush(out_txt);
	}
	fflush(stdout);
}

void
out_section(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(out_sect, sizeof(out_sect), fmt, ap);
	va_end(ap);
	out_printf("\n== %s ==  (at %.1f s)\n", out_sect,
	    (double)(now_ns() - out_t0) / 1e9);
	out_printf("  %-42s %6s %11s %11s %11s %7s  %s\n", "measurement", "n",
	    "median", "p99", "baseline", "ratio", "baseline name; goal");
}

/* A value for the table: times in ns/us/ms/s, others with their unit. */
static void
fmt_val(char *buf, size_t len, double v, const char *unit)
{

	if (isnan(v))
		snprintf(buf, len, "-");
	else if (strcmp(unit, "ns") != 0) {
		if (v == (double)(long long)v && fabs(v) < 1e15)
			snprintf(buf, len, "%.0f%s%s", v, *unit != '\0' ?
			    " " : "", unit);
		else
			snprintf(buf, len, "%.2f%s%s", v, *unit != '\0' ?
			    " " : "", unit);
	} else if (v < 1e3)
		snprintf(buf, len, "%.0f ns", v);
	else if (v < 1e6)
		snprintf(buf, len, "%.1f us", v / 1e3);
	else if (v < 1e9)
		snprintf(buf, len, "%.2f ms", v / 1e6);
	else
		snprintf(buf, len, "%.2f s", v / 1e9);
}

static const char *
verdict_str(enum verdict v)
{

	switch (v) {
	case V_MET:
		return ("met");
	case V_MISSED:
		return ("MISSED");
	default:
		return ("");
	}
}

/* Print, record in the CSV, and keep the goal for the summary. */
void
out_row(const struct row *r)
{
	char n[24], med[24], p99[24], base[24], ratio[16], tail[192];
	double q;

	q = (r->r_base != NULL && r->r_bmed > 0) ? r->r_med / r->r_bmed : NAN;
	if (r->r_n > 0)
		snprintf(n, sizeof(n), "%zu", r->r_n);
	else
		snprintf(n, sizeof(n), "-");
	fmt_val(med, sizeof(med), r->r_med, r->r_unit);
	fmt_val(p99, sizeof(p99), r->r_p99, r->r_unit);
	fmt_val(base, sizeof(base), r->r_base != NULL ? r->r_bmed : NAN,
	    r->r_unit);
	if (isnan(q))
		snprintf(ratio, sizeof(ratio), "-");
	else
		snprintf(ratio, sizeof(ratio), "%.2fx", q);
	snprintf(tail, sizeof(tail), "%s%s%s%s%s",
	    r->r_base != NULL ? "vs " : "", r->r_base != NULL ? r->r_base : "",
	    r->r_base != NULL && r->r_goal != NULL ? "; " : "",
	    r->r_goal != NULL ? "goal " : "",
	    r->r_goal != NULL ? r->r_goal : "");
	out_printf("  %-42s %6s %11s %11s %11s %7s  %s%s%s\n", r->r_name, n,
	    med, p99, base, ratio, tail, r->r_goal != NULL ? ": " : "",
	    verdict_str(r->r_verdict));
	fprintf(out_csv, "\"%s\",\"%s\",%zu,%.6g,%.6g,%s,\"%s\",%.6g,%.4g,"
	    "\"%s\",%s\n", out_sect, r->r_name, r->r_n, r->r_med, r->r_p99,
	    r->r_unit, r->r_base != NULL ? r->r_base : "",
	    r->r_base != NULL ? r->r_bmed : NAN, q,
	    r->r_goal != NULL ? r->r_goal : "", verdict_str(r->r_verdict));
	fflush(out_csv);
	if (r->r_verdict != V_NONE && out_ngoals < OUT_NGOALS) {
		snprintf(out_goals[out_ngoals].g_text,
		    sizeof(out_goals[0].g_text), "%s / %s: %s (%s %s%s%s%s%s%s)",
		    out_sect, r->r_name, r->r_goal, r->r_n > 0 ? "median" :
		    "measured", med, isnan(r->r_p99) ? "" : ", ",
		    isnan(r->r_p99) ? "" : r->r_hi != NULL ? r->r_hi : "p99 ",
		    isnan(r->r_p99) ? "" : p99, isnan(q) ? "" : ", ratio ",
		    isnan(q) ? "" : ratio);
		out_goals[out_ngoals++].g_verdict = r->r_verdict;
	}
}

/*
 * A ratio measured once a round, the subject's median over the baseline's
 * in the same round: the median ratio, and its upper quartile, which must
 * meet the goal "<= limit" (limit NAN: no goal).  One round that went
 * badly cannot decide the verdict; three in four must.
 */
void
out_ratio(const char *name, struct samples *ratios, double limit)
{
	struct row r;
	char goal[32];

	memset(&r, 0, sizeof(r));
	r.r_name = name;
	r.r_n = ratios->s_n;
	r.r_med = samples_pct(ratios, 0.5);
	r.r_p99 = samples_pct(ratios, 0.75);
	r.r_hi = "Q3 ";
	r.r_unit = "x";
	r.r_verdict = V_NONE;
	if (!isnan(limit)) {
		snprintf(goal, sizeof(goal), "Q3 <= %gx", limit);
		r.r_goal = goal;
		r.r_verdict = out_goal(!isnan(r.r_p99) && r.r_p99 <= limit);
	}
	out_row(&r);
}

/*
 * The median of n samples of s from the from-th on, in the order taken:
 * one round of a run whose rows were taken in lockstep.  Before any
 * samples_pct() of s, which sorts it.
 */
double
round_median(const struct samples *s, size_t from, size_t n)
{
	struct samples t;
	double m;
	size_t i;

	samples_init(&t, n);
	for (i = from; i < from + n && i < s->s_n; i++)
		samples_add(&t, s->s_v[i]);
	m = samples_pct(&t, 0.5);
	samples_free(&t);
	return (m);
}

/* A row of time samples against the median of a baseline's. */
void
out_time(const char *name, struct samples *s, const char *bname,
    struct samples *b, const char *goal, enum verdict v)
{

	out_time_vs(name, s, bname, b != NULL ? samples_pct(b, 0.5) : NAN,
	    goal, v);
}

/*
 * A row of time samples against a baseline that is a single value (a
 * floor summed from several medians).
 */
void
out_time_vs(const char *name, struct samples *s, const char *bname,
    double bmed, const char *goal, enum verdict v)
{
	struct row r;

	memset(&r, 0, sizeof(r));
	r.r_name = name;
	r.r_n = s->s_n;
	r.r_med = samples_pct(s, 0.5);
	r.r_p99 = samples_pct(s, 0.99);
	r.r_unit = "ns";
	r.r_base = bname;
	r.r_bmed = bmed;
	r.r_goal = goal;
	r.r_verdict = v;
	out_row(&r);
}

/* A row of one value (no samples), against a baseline value or NAN. */
void
out_val(const char *name, double v, const char *unit, const char *base,
    double bv, const char *goal, enum verdict vd)
{
	struct row r;

	memset(&r, 0, sizeof(r));
	r.r_name = name;
	r.r_med = v;
	r.r_p99 = NAN;
	r.r_unit = unit;
	r.r_base = base;
	r.r_bmed = bv;
	r.r_goal = goal;
	r.r_verdict = vd;
	out_row(&r);
}

enum verdict
out_goal(bool met)
{

	return (met ? V_MET : V_MISSED);
}

void
out_summary(void)
{
	size_t i, met;

	met = 0;
	for (i = 0; i < out_ngoals; i++)
		if (out_goals[i].g_verdict == V_MET)
			met++;
	out_printf("\n== Goals: %zu met, %zu MISSED ==\n", met,
	    out_ngoals - met);
	for (i = 0; i < out_ngoals; i++)
		out_printf("  %-6s %s\n", verdict_str(out_goals[i].g_verdict),
		    out_goals[i].g_text);
}

/*
 * In a forked copy: forget the goals the parent judged before the fork,
 * so that out_goals_export() hands back only the copy's own.
 */
void
out_goals_clear(void)
{

	out_ngoals = 0;
}

/* Hand the goals judged in a forked copy to the parent over fd. */
void
out_goals_export(int fd)
{
	size_t len;

	len = out_ngoals * sizeof(out_goals[0]);
	if (write(fd, out_goals, len) != (ssize_t)len)
		warn("out_goals_export");
}

/* Append the goals a forked copy sent; returns at EOF. */
void
out_goals_import(int fd)
{
	struct goalrec g;
	ssize_t n;

	while ((n = read(fd, &g, sizeof(g))) == (ssize_t)sizeof(g) ||
	    (n == -1 && errno == EINTR)) {
		if (n > 0 && out_ngoals < OUT_NGOALS)
			out_goals[out_ngoals++] = g;
	}
}

void
out_close(void)
{

	if (out_txt != NULL)
		fclose(out_txt);
	fclose(out_csv);
}
