/* SPDX-License-Identifier: MIT */
/*
 * flame.c - a flame graph, one self-contained SVG file, from folded stacks
 * ("root;...;leaf" and a count, as pctr profile --folded prints them).
 *
 * The stacks become a tree: a frame's children are the frames called from
 * it on some stack, each as wide as the samples under it.  The root,
 * "all", spans the whole width at the bottom; callees stack upwards.
 * Children are laid out in the order the sorted stacks first name them,
 * so the same input draws the same picture.  Each box carries a <title>
 * (its name, samples and share), which a browser shows on hover; names
 * are cut to the box's width.  Boxes under 0.1 pixel are left out, as
 * they would not show.  Nothing outside the file is referred to.
 *
 * As flamegraph.pl's, the graph is interactive in a browser (the script
 * below, in the file): a click on a box zooms to it, its callees spread
 * over the whole width and its callers kept as full-width bars below;
 * "Reset Zoom" (or Escape) goes back; "Search" (or Ctrl-F) asks for a
 * regular expression, colours the boxes whose names match, and says
 * which share of the samples lie under them (each sample once); clicked
 * again, it clears the search.  Each box carries what the script needs:
 * data-depth, data-name, data-samples.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flame.h"

#define WIDTH 1200.0
#define PAD 10.0
#define ROW 16
#define CHAR_W 7.2 /* a 12-pixel monospace character */
#define MIN_W 0.1

struct node {
	char *name;
	uint64_t n;
	struct node *child, *next, *last;
};

static struct node *
node_new(const char *name, size_t len)
{
	struct node *d = calloc(1, sizeof(*d));

	if (d && !(d->name = strndup(name, len))) {
		free(d);
		return NULL;
	}
	return d;
}

static struct node *
child_of(struct node *d, const char *name, size_t len)
{
	struct node *c;

	for (c = d->child; c; c = c->next)
		if (strlen(c->name) == len && !memcmp(c->name, name, len))
			return c;
	if (!(c = node_new(name, len)))
		return NULL;
	if (d->last)
		d->last->next = c;
	else
		d->child = c;
	d->last = c;
	return c;
}

size_t
flame_frame(char *buf, size_t len, const char *name)
{
	size_t n = 0;

	for (; *name && n + 1 < len; name++) {
		unsigned char c = (unsigned char)*name;

		buf[n++] = c == ';' || c == ' ' ? '_'
			   : c < 0x20 || c == 0x7f ? '?'
						   : (char)c;
	}
	if (len)
		buf[n] = '\0';
	return n;
}

static int
add_stack(struct node *root, const char *text, uint64_t n)
{
	struct node *d = root;

	root->n += n;
	for (const char *p = text; *p;) {
		size_t len = strcspn(p, ";");

		if (len && !(d = child_of(d, p, len)))
			return -ENOMEM;
		if (len)
			d->n += n;
		p += len + (p[len] == ';');
	}
	return 0;
}

static void
node_free(struct node *d)
{
	while (d) {
		struct node *next = d->next;

		node_free(d->child);
		free(d->name);
		free(d);
		d = next;
	}
}

static int
depth_of(const struct node *d)
{
	int most = 0;

	for (const struct node *c = d->child; c; c = c->next) {
		int k = depth_of(c);

		most = k > most ? k : most;
	}
	return 1 + most;
}

/* the length of the valid UTF-8 character at @s, 0 if none starts there */
static size_t
utf8_len(const unsigned char *s)
{
	size_t n = s[0] < 0x80		       ? 1
		   : s[0] >= 0xc2 && s[0] < 0xe0 ? 2
		   : s[0] >= 0xe0 && s[0] < 0xf0 ? 3
		   : s[0] >= 0xf0 && s[0] < 0xf5 ? 4
						 : 0;

	for (size_t i = 1; i < n; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	return n;
}

/*
 * The name as XML text: markup characters escaped, a control character or
 * a byte that is no UTF-8 character as '?'; at most @max characters.
 */
static void
xml_text(FILE *f, const char *name, size_t max)
{
	const unsigned char *s = (const unsigned char *)name;

	for (size_t k = 0; *s && k < max; k++) {
		size_t n = utf8_len(s);

		if (n == 0 || *s < 0x20) {
			fputc('?', f);
			s++;
			continue;
		}
		switch (*s) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&apos;", f); break;
		default: fwrite(s, 1, n, f);
		}
		s += n;
	}
}

/* a warm colour of the name's own, the same in every graph */
static void
colour(FILE *f, const char *name)
{
	uint32_t h = 2166136261u;

	for (const char *c = name; *c; c++)
		h = (h ^ (unsigned char)*c) * 16777619u;
	fprintf(f, "rgb(%u,%u,%u)", 205 + h % 50, (h >> 8) % 230,
		(h >> 16) % 55);
}

struct draw {
	FILE *f;
	double scale; /* pixels per sample */
	uint64_t total;
	int height;
};

static void
draw(const struct draw *g, const struct node *d, double x, int depth)
{
	double w = (double)d->n * g->scale;
	double y = g->height - PAD - (depth + 1) * ROW;
	size_t fit = (size_t)((w - 6) / CHAR_W);

	if (w < MIN_W)
		return;
	fprintf(g->f, "<g class=\"frame\" data-depth=\"%d\" data-samples=\"%llu\" "
		      "data-name=\"", depth, (unsigned long long)d->n);
	xml_text(g->f, d->name, SIZE_MAX);
	fputs("\"><title>", g->f);
	xml_text(g->f, d->name, SIZE_MAX);
	fprintf(g->f, " (%llu samples, %.2f%%)</title>",
		(unsigned long long)d->n, 100.0 * (double)d->n / (double)g->total);
	fprintf(g->f, "<rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%d\" "
		      "rx=\"2\" fill=\"", x, y, w, ROW - 1);
	colour(g->f, d->name);
	fputs("\"/>", g->f);
	/* a label, empty where it does not fit: the script fills it in */
	fprintf(g->f, "<text x=\"%.2f\" y=\"%.1f\">", x + 3, y + ROW - 4);
	if (fit >= 3) {
		xml_text(g->f, d->name, strlen(d->name) > fit ? fit - 2 : fit);
		fputs(strlen(d->name) > fit ? ".." : "", g->f);
	}
	fputs("</text></g>\n", g->f);
	for (const struct node *c = d->child; c; c = c->next) {
		draw(g, c, x, depth + 1);
		x += (double)c->n * g->scale;
	}
}

/*
 * The browser's part: zoom, reset, search (the top of the file says
 * what).  A frame's first place is kept from its rect; zooming places
 * every frame again from that.
 */
static const char script[] =
	"<script type=\"text/ecmascript\"><![CDATA[\n"
	"'use strict';\n"
	"var W=%.1f,PAD=%.1f,CW=%.1f,frames=[],total=1,term=null;\n"
	"function el(id){return document.getElementById(id);}\n"
	"function label(f,w){var k=Math.floor((w-6)/CW),n=f.name;\n"
	" f.text.textContent=k<3?'':n.length>k?n.slice(0,k-2)+'..':n;}\n"
	"function place(f,x,w){f.rect.setAttribute('x',x.toFixed(2));\n"
	" f.rect.setAttribute('width',w.toFixed(2));\n"
	" f.text.setAttribute('x',(x+3).toFixed(2));label(f,w);\n"
	" f.g.style.display='';}\n"
	"function zoom(f){var s=(W-2*PAD)/f.w,e=1e-6;\n"
	" frames.forEach(function(o){\n"
	"  if(o.depth<f.depth&&o.x<=f.x+e&&o.x+o.w>=f.x+f.w-e)\n"
	"   place(o,PAD,W-2*PAD);\n"
	"  else if(o.depth>=f.depth&&o.x>=f.x-e&&o.x+o.w<=f.x+f.w+e)\n"
	"   place(o,PAD+(o.x-f.x)*s,o.w*s);\n"
	"  else o.g.style.display='none';});\n"
	" el('unzoom').style.display='';}\n"
	"function unzoom(){frames.forEach(function(o){place(o,o.x,o.w);});\n"
	" el('unzoom').style.display='none';}\n"
	"function matches(t){var re=null;try{re=new RegExp(t);}catch(x){}\n"
	" return function(n){return re?re.test(n):n.indexOf(t)>=0;};}\n"
	"function search(t){var m=matches(t),hit=[],sum=0,end=-1;\n"
	" frames.forEach(function(o){var y=m(o.name);\n"
	"  o.rect.setAttribute('fill',y?'rgb(230,0,230)':o.fill);\n"
	"  if(y)hit.push(o);});\n"
	" hit.sort(function(a,b){return a.x-b.x||a.depth-b.depth;});\n"
	" hit.forEach(function(o){if(o.x>=end-1e-6){sum+=o.n;end=o.x+o.w;}});\n"
	" el('matched').textContent='Matched: '+(100*sum/total).toFixed(2)+'%%';\n"
	" el('search').textContent='Reset Search';term=t;}\n"
	"function unsearch(){frames.forEach(function(o){\n"
	"  o.rect.setAttribute('fill',o.fill);});\n"
	" el('matched').textContent='';el('search').textContent='Search';\n"
	" term=null;}\n"
	"function ask(){if(term!==null)return unsearch();\n"
	" var t=prompt('Search for (a regular expression)','');\n"
	" if(t)search(t);}\n"
	"document.querySelectorAll('g.frame').forEach(function(g){\n"
	" var r=g.querySelector('rect'),f={g:g,rect:r,\n"
	"  text:g.querySelector('text'),x:parseFloat(r.getAttribute('x')),\n"
	"  w:parseFloat(r.getAttribute('width')),\n"
	"  depth:+g.getAttribute('data-depth'),\n"
	"  n:+g.getAttribute('data-samples'),\n"
	"  name:g.getAttribute('data-name'),fill:r.getAttribute('fill')};\n"
	" if(f.depth===0)total=f.n||1;\n"
	" frames.push(f);g.addEventListener('click',function(){zoom(f);});});\n"
	"el('unzoom').addEventListener('click',unzoom);\n"
	"el('search').addEventListener('click',ask);\n"
	"document.addEventListener('keydown',function(ev){\n"
	" if(ev.ctrlKey&&ev.key==='f'){ev.preventDefault();ask();}\n"
	" else if(ev.key==='Escape')unzoom();});\n"
	"]]></script>\n";

/* Reset Zoom (hidden until a zoom), Search, and the share matched */
static void
controls(FILE *f, int height)
{
	fprintf(f, "<text id=\"unzoom\" class=\"btn\" x=\"%.0f\" y=\"22\" "
		   "style=\"display:none\">Reset Zoom</text>\n"
		   "<text id=\"search\" class=\"btn\" x=\"%.0f\" y=\"22\" "
		   "text-anchor=\"end\">Search</text>\n"
		   "<text id=\"matched\" x=\"%.0f\" y=\"%d\" "
		   "text-anchor=\"end\"></text>\n",
		PAD, WIDTH - PAD, WIDTH - PAD, height - 4);
	fprintf(f, script, WIDTH, PAD, CHAR_W);
}

int
flame_svg(FILE *f, const struct flame_stack *st, size_t n, const char *title)
{
	struct node *root = node_new("all", 3);
	struct draw g = { f };
	int r = root ? 0 : -ENOMEM;

	for (size_t i = 0; i < n && r == 0; i++)
		r = add_stack(root, st[i].text, st[i].n);
	if (r == 0) {
		g.total = root->n ? root->n : 1;
		g.scale = (WIDTH - 2 * PAD) / (double)g.total;
		g.height = depth_of(root) * ROW + 2 * PAD + 24;
		fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
			   "<svg xmlns=\"http://www.w3.org/2000/svg\" "
			   "width=\"%.0f\" height=\"%d\" viewBox=\"0 0 %.0f %d\" "
			   "font-family=\"monospace\" font-size=\"12\">\n"
			   "<style>.frame:hover rect{stroke:#000;"
			   "stroke-width:1}text{pointer-events:none}"
			   ".frame{cursor:pointer}.btn{pointer-events:all;"
			   "cursor:pointer;fill:#00c}</style>\n"
			   "<rect width=\"100%%\" height=\"100%%\" fill=\"#fff\"/>\n"
			   "<text x=\"%.0f\" y=\"22\" text-anchor=\"middle\" "
			   "font-size=\"16\">",
			WIDTH, g.height, WIDTH, g.height, WIDTH / 2);
		xml_text(f, title, SIZE_MAX);
		fputs("</text>\n", f);
		draw(&g, root, PAD, 0);
		controls(f, g.height);
		fputs("</svg>\n", f);
	}
	node_free(root);
	return r;
}
