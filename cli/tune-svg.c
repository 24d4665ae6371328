// SPDX-License-Identifier: GPL-2.0-only
/*
 * tune --svg: the cost heatmap over (T, Q), and evictions and cost over T (spaced by
 * value, each axis with its scale and unit), as one standalone SVG file.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../lib/lib.h"
#include "tune.h"

/* @s as SVG text: XML's special characters escaped */
static void put_xml(FILE *f, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		default: fputc(*s, f);
		}
	}
}

/* @s in at most @max characters, its start cut ("...tail") when longer */
static void put_fit(FILE *f, const char *s, size_t max)
{
	size_t n = strlen(s);

	if (n <= max || max < 4) {
		put_xml(f, s);
		return;
	}
	fputs("...", f);
	put_xml(f, s + n - (max - 3));
}

/* A round step for about 4 ticks up to @max */
static double tick_step(double max)
{
	double raw = max / 4, p = pow(10, floor(log10(raw > 0 ? raw : 1)));

	return raw <= p ? p : raw <= 2 * p ? 2 * p : raw <= 5 * p ? 5 * p : 10 * p;
}

int tune_write_svg(const struct tune_run *r, const char *path)
{
	FILE *f = fopen(path, "we");
	int nT = r->o->nT, nQ = r->o->nQ, cw = 56, ch = 22, x0 = 90, y0 = 84;
	int W = x0 + nQ * cw + 80, H0 = y0 + nT * ch + 30, PH = 220, H = H0 + PH + 110;
	/* the curves' plot: T spaced by value, evictions on the left axis, cost on the right */
	int px0 = x0, px1 = W - 80, py0 = H0 + 50, py1 = py0 + PH;
	double lo = -1, hi = 0, emax = 0, cmax = 0, estep, cstep;
	int tmin = r->o->T[0], tmax = r->o->T[nT - 1];
	size_t chars = (size_t)(W - 20) / 7;
	int pti = r->pti, pqi = r->pqi;	/* the point the text and JSON give */
	bool failed;

	if (!f)
		return error("tune: --svg: cannot write %s: %s", path, strerror(errno)), -1;
	for (int ti = 0; ti < nT; ti++)
		for (int qi = 0; qi < nQ; qi++) {
			double c = tune_cell(r, ti, qi)->cost_ns;

			if (lo < 0 || c < lo)
				lo = c;
			if (c > hi)
				hi = c;
		}
	fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
		"font-family=\"sans-serif\" font-size=\"11\">\n", W, H);
	fprintf(f, "<rect width=\"%d\" height=\"%d\" fill=\"white\"/>\n", W, H);
	fprintf(f, "<text x=\"10\" y=\"20\" font-size=\"14\">lazy(T, Q) cost in ms (darker is "
		"cheaper; red frame: the recommendation)</text>\n");
	fprintf(f, "<text x=\"10\" y=\"38\" font-size=\"11\">");
	put_fit(f, r->o->inputs[0], chars > 30 ? chars - 24 : chars);
	fprintf(f, ", platform ");
	put_xml(f, r->pf.name);
	fprintf(f, "; %s T=%d Q=%d (%s)</text>\n", r->adv.ti >= 0 ? "advised" : "cheapest",
		r->o->T[pti], r->o->Q[pqi], tuner_verdict_name(r->adv.verdict));
	fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">Q = MAX_TLB_FLUSH_TASK "
		"(entries per slot)</text>\n", x0 + nQ * cw / 2, y0 - 22);
	fprintf(f, "<text x=\"16\" y=\"%d\" text-anchor=\"middle\" transform=\"rotate(-90 16 %d)\">"
		"T = MAX_LOADED_MM (mms)</text>\n", y0 + nT * ch / 2, y0 + nT * ch / 2);
	for (int qi = 0; qi < nQ; qi++)
		fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">%d</text>\n",
			x0 + qi * cw + cw / 2, y0 - 6, r->o->Q[qi]);
	for (int ti = 0; ti < nT; ti++) {
		fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%d</text>\n", x0 - 6,
			y0 + ti * ch + 15, r->o->T[ti]);
		for (int qi = 0; qi < nQ; qi++) {
			double c = tune_cell(r, ti, qi)->cost_ns;
			double k = hi > lo ? (c - lo) / (hi - lo) : 0;
			int g = (int)(40 + 200 * sqrt(k));
			bool pick = ti == pti && qi == pqi;

			fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"rgb(%d,%d,255)\" "
				"stroke=\"%s\" stroke-width=\"%d\"/>\n", x0 + qi * cw, y0 + ti * ch, cw,
				ch, g, g, pick ? "red" : "white", pick ? 3 : 1);
			fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" fill=\"%s\">%.2f</text>\n",
				x0 + qi * cw + cw / 2, y0 + ti * ch + 15, k < 0.5 ? "white" : "black",
				c / 1e6);
		}
	}
	/* curves over T at the recommended Q */
	for (int ti = 0; ti < nT; ti++) {
		const struct tune_cell *g = tune_cell(r, ti, pqi);
		double cost = g->cost_ns / 1e6;

		if (g->c.evictions > emax)
			emax = g->c.evictions;
		if (cost > cmax)
			cmax = cost;
	}
	estep = tick_step(emax);
	cstep = tick_step(cmax);
	emax = estep * ceil(emax / estep > 0 ? emax / estep : 1);
	cmax = cstep * ceil(cmax / cstep > 0 ? cmax / cstep : 1);
	fprintf(f, "<text x=\"10\" y=\"%d\" font-size=\"14\">over T at Q=%d: evictions (red, left "
		"axis) and cost (blue, right axis)</text>\n", H0 + 24, r->o->Q[pqi]);
	fprintf(f, "<path d=\"M%d %d V%d H%d V%d\" fill=\"none\" stroke=\"black\"/>\n", px0, py0, py1,
		px1, py0);
	for (double v = 0; v <= emax + estep / 2; v += estep) {
		double y = py1 - v / emax * PH;

		fprintf(f, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"black\"/>"
			"<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\" fill=\"red\">%.0f</text>\n",
			px0 - 4, y, px0, y, px0 - 6, y + 4, v);
	}
	for (double v = 0; v <= cmax + cstep / 2; v += cstep) {
		double y = py1 - v / cmax * PH;

		fprintf(f, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"black\"/>"
			"<text x=\"%d\" y=\"%.1f\" fill=\"blue\">%g</text>\n",
			px1, y, px1 + 4, y, px1 + 6, y + 4, v);
	}
	fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" fill=\"red\" "
		"transform=\"rotate(-90 %d %d)\">evictions (count)</text>\n",
		px0 - 50, (py0 + py1) / 2, px0 - 50, (py0 + py1) / 2);
	fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" fill=\"blue\" "
		"transform=\"rotate(90 %d %d)\">cost (ms)</text>\n",
		px1 + 55, (py0 + py1) / 2, px1 + 55, (py0 + py1) / 2);
	for (int curve = 0; curve < 2; curve++) {
		fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" points=\"",
			curve ? "blue" : "red");
		for (int ti = 0; ti < nT; ti++) {
			const struct tune_cell *g = tune_cell(r, ti, pqi);
			double v, x = px0 + (tmax > tmin ? (double)(r->o->T[ti] - tmin) / (tmax - tmin) :
					     0) * (px1 - px0);

			v = curve ? g->cost_ns / 1e6 / cmax : g->c.evictions / emax;
			fprintf(f, "%.1f,%.1f ", x, py1 - v * PH);
		}
		fprintf(f, "\"/>\n");
	}
	/* T ticks by value: every grid T, labelled where they do not crowd */
	{
		double last = -1e9;

		for (int ti = 0; ti < nT; ti++) {
			double x = px0 + (tmax > tmin ? (double)(r->o->T[ti] - tmin) / (tmax - tmin) : 0) *
				   (px1 - px0);

			fprintf(f, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"black\"/>\n",
				x, py1, x, py1 + 4);
			if (x - last >= 18 || ti == nT - 1) {
				fprintf(f, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%d</text>\n",
					x, py1 + 16, r->o->T[ti]);
				last = x;
			}
		}
	}
	fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">T = MAX_LOADED_MM (mms per CPU "
		"table)</text>\n", (px0 + px1) / 2, py1 + 34);
	fprintf(f, "</svg>\n");
	failed = ferror(f);
	if (fclose(f) || failed)
		return error("tune: --svg: cannot write %s: %s", path,
			     strerror(errno ? errno : EIO)), -1;
	return 0;
}
