/* SPDX-License-Identifier: MIT */
/*
 * blob.c - a rank's regions as bytes that rank 0 reads back, whatever host
 * either runs on.  Little-endian throughout:
 *
 *   "PCTRMPI1"  u32 rank  u32 regions  f64 run_s  f64 mpi_s  host[64]
 *   per region: u32 name length, the name, u32 threads, f64 seconds,
 *               u64 pack length, the pack (pctr_stats_pack(), itself
 *               little-endian and versioned)
 *
 * Doubles travel as their IEEE-754 bit patterns.  The reader checks every
 * length against what is left: a short or foreign blob is refused, with
 * the reason, and never read past.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pctr_mpi.h"

#define MAGIC "PCTRMPI1"
#define HOST_LEN 64

struct out {
	unsigned char *p;
	size_t len, cap;
};

static int
put(struct out *o, const void *v, size_t n)
{
	if (o->len + n > o->cap) {
		size_t cap = o->cap ? o->cap * 2 : 4096;
		unsigned char *p;

		while (cap < o->len + n)
			cap *= 2;
		p = realloc(o->p, cap);
		if (!p)
			return -ENOMEM;
		o->p = p;
		o->cap = cap;
	}
	memcpy(o->p + o->len, v, n);
	o->len += n;
	return 0;
}

static int
put_u64(struct out *o, uint64_t v)
{
	unsigned char b[8];

	for (int i = 0; i < 8; i++)
		b[i] = (unsigned char)(v >> (8 * i));
	return put(o, b, 8);
}

static int
put_u32(struct out *o, uint32_t v)
{
	unsigned char b[4];

	for (int i = 0; i < 4; i++)
		b[i] = (unsigned char)(v >> (8 * i));
	return put(o, b, 4);
}

static int
put_f64(struct out *o, double d)
{
	uint64_t v;

	memcpy(&v, &d, sizeof(v));
	return put_u64(o, v);
}

static double
seconds_of(const struct pctr_stats *st)
{
	struct pctr_summary s = { .size = sizeof(s) };

	if (pctr_stats_get(st, PCTR_STATS_TIME, &s) < 0)
		return 0;
	return s.total / (double)pctr_tsc_hz();
}

/* room for @n more bytes at the end: where they start, or NULL */
static unsigned char *
reserve(struct out *o, size_t n)
{
	unsigned char *zero = calloc(1, n ? n : 1);
	size_t at = o->len;
	int err;

	if (!zero)
		return NULL;
	err = put(o, zero, n);
	free(zero);
	return err ? NULL : o->p + at;
}

static int
put_region(struct out *o, const struct pctr_regions *r, int i)
{
	const char *name = pctr_regions_name(r, i);
	const struct pctr_stats *st = pctr_regions_stats(r, i);
	ssize_t n = pctr_stats_pack(st, NULL, 0);
	unsigned char *at;
	int err;

	if (n < 0)
		return (int)n;
	if ((err = put_u32(o, (uint32_t)strlen(name))) ||
	    (err = put(o, name, strlen(name))) ||
	    (err = put_u32(o, (uint32_t)pctr_regions_threads(r, i))) ||
	    (err = put_f64(o, seconds_of(st))) ||
	    (err = put_u64(o, (uint64_t)n)))
		return err;
	at = reserve(o, (size_t)n);
	if (!at)
		return -ENOMEM;
	n = pctr_stats_pack(st, at, (size_t)n);
	return n < 0 ? (int)n : 0;
}

/* This rank's regions now (a snapshot: pctr_regions_get()). */
int
pctr_mpi__encode(int rank, double run_s, double mpi_s, unsigned char **buf,
		 size_t *len)
{
	struct pctr_regions *r;
	struct out o = { 0 };
	char host[HOST_LEN] = { 0 };
	int err = pctr_regions_get(&r);

	if (err < 0)
		return err;
	gethostname(host, sizeof(host) - 1);
	if ((err = put(&o, MAGIC, 8)) || (err = put_u32(&o, (uint32_t)rank)) ||
	    (err = put_u32(&o, (uint32_t)pctr_regions_nr(r))) ||
	    (err = put_f64(&o, run_s)) || (err = put_f64(&o, mpi_s)) ||
	    (err = put(&o, host, sizeof(host))))
		goto out;
	for (int i = 0; i < pctr_regions_nr(r) && !err; i++)
		err = put_region(&o, r, i);
out:
	pctr_regions_free(r);
	if (err) {
		free(o.p);
		return err;
	}
	*buf = o.p;
	*len = o.len;
	return 0;
}

/* ---- reading it back --------------------------------------------------- */

struct in {
	const unsigned char *p;
	size_t left;
};

static int
take(struct in *in, void *v, size_t n)
{
	if (n > in->left)
		return -EINVAL;
	memcpy(v, in->p, n);
	in->p += n;
	in->left -= n;
	return 0;
}

static int
take_u64(struct in *in, uint64_t *v)
{
	unsigned char b[8];

	if (take(in, b, 8))
		return -EINVAL;
	*v = 0;
	for (int i = 7; i >= 0; i--)
		*v = *v << 8 | b[i];
	return 0;
}

static int
take_u32(struct in *in, uint32_t *v)
{
	uint64_t w = 0;
	unsigned char b[4];

	if (take(in, b, 4))
		return -EINVAL;
	for (int i = 3; i >= 0; i--)
		w = w << 8 | b[i];
	*v = (uint32_t)w;
	return 0;
}

static int
take_f64(struct in *in, double *d)
{
	uint64_t v;

	if (take_u64(in, &v))
		return -EINVAL;
	memcpy(d, &v, sizeof(*d));
	return 0;
}

static int
take_region(struct in *in, struct mpi_region *g)
{
	uint32_t n, threads;
	uint64_t plen;

	if (take_u32(in, &n) || n >= sizeof(g->name) || take(in, g->name, n))
		return -EINVAL;
	g->name[n] = '\0';
	if (take_u32(in, &threads) || take_f64(in, &g->seconds) ||
	    take_u64(in, &plen) || plen > in->left)
		return -EINVAL;
	g->threads = (int)threads;
	if (pctr_stats_unpack(&g->st, in->p, (size_t)plen) < 0)
		return -EINVAL;
	in->p += plen;
	in->left -= (size_t)plen;
	return 0;
}

static int
refuse(struct mpi_rank *r, const char *why)
{
	pctr_mpi__rank_free(r);
	r->nr = -1;
	snprintf(r->why, sizeof(r->why), "%s", why);
	return -EINVAL;
}

int
pctr_mpi__decode(const unsigned char *buf, size_t len, struct mpi_rank *r)
{
	struct in in = { buf, len };
	char magic[8];
	uint32_t rank, nr;

	memset(r, 0, sizeof(*r));
	if (take(&in, magic, 8) || memcmp(magic, MAGIC, 8))
		return refuse(r, "not a libpctr-mpi block");
	if (take_u32(&in, &rank) || take_u32(&in, &nr) ||
	    take_f64(&in, &r->run_s) || take_f64(&in, &r->mpi_s) ||
	    take(&in, r->host, HOST_LEN) || nr > 100000)
		return refuse(r, "block cut short");
	r->host[HOST_LEN - 1] = '\0';
	r->rank = (int)rank;
	r->reg = calloc(nr ? nr : 1, sizeof(*r->reg));
	if (!r->reg)
		return refuse(r, "out of memory");
	for (r->nr = 0; r->nr < (int)nr; r->nr++)
		if (take_region(&in, &r->reg[r->nr]) < 0)
			return refuse(r, "a region's statistics do not read");
	if (in.left)
		return refuse(r, "bytes after the last region");
	return 0;
}

void
pctr_mpi__rank_free(struct mpi_rank *r)
{
	for (int i = 0; r->reg && i < r->nr; i++)
		pctr_stats_free(r->reg[i].st);
	free(r->reg);
	r->reg = NULL;
	r->nr = 0;
}
