// SPDX-License-Identifier: GPL-2.0-only
/*
 * tune --svg: the cost heatmap over (T, Q), and evictions and cost over T, as one
 * standalone SVG file.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>

#include "../lib/lib.h"
#include "tune.h"

void tune_write_svg(const struct tune_run *r, const char *path, const struct tuner_rec *rec)
{
	FILE *f = fopen(path, "w");
	int nT = r->o->nT, nQ = r->o->nQ, cw = 56, ch = 22, x0 = 70, y0 = 60;
	int W = x0 + nQ * cw + 40, H0 = y0 + nT * ch + 40, PH = 220, H = H0 + PH + 80;
	double lo = -1, hi = 0, emax = 1, cmax = 0;

	if (!f) {
		warning("--svg: cannot write %s", path);
		return;
	}
	for (int ti = 0; ti < nT; ti++)
		for (int qi = 0; qi < nQ; qi++) {
			double c = tune_cost_of(r, &r->pf, ti, qi);

			if (lo < 0 || c < lo)
				lo = c;
			if (c > hi)
				hi = c;
		}
	fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
		"font-family=\"sans-serif\" font-size=\"11\">\n", W, H);
	fprintf(f, "<text x=\"10\" y=\"20\" font-size=\"14\">lazy(T, Q) cost on %s, platform %s "
		"(ms; darker is cheaper)</text>\n", r->o->c.input, r->pf.name);
	for (int qi = 0; qi < nQ; qi++)
		fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">Q=%d</text>\n",
			x0 + qi * cw + cw / 2, y0 - 6, r->o->Q[qi]);
	for (int ti = 0; ti < nT; ti++) {
		fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">T=%d</text>\n", x0 - 6,
			y0 + ti * ch + 15, r->o->T[ti]);
		for (int qi = 0; qi < nQ; qi++) {
			double c = tune_cost_of(r, &r->pf, ti, qi);
			double k = hi > lo ? (c - lo) / (hi - lo) : 0;
			int g = (int)(40 + 200 * sqrt(k));
			bool pick = ti == rec->small_ti && qi == rec->small_qi;

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
		struct tuner_counts c;
		double cost = tune_cost_of(r, &r->pf, ti, rec->small_qi);

		tuner_grid_point(r->tu, ti, rec->small_qi, &c);
		if (c.evictions > emax)
			emax = c.evictions;
		if (cost > cmax)
			cmax = cost;
	}
	fprintf(f, "<text x=\"10\" y=\"%d\" font-size=\"14\">over T at Q=%d: evictions (red), "
		"cost (blue)</text>\n", H0 + 10, r->o->Q[rec->small_qi]);
	for (int curve = 0; curve < 2; curve++) {
		fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" points=\"",
			curve ? "blue" : "red");
		for (int ti = 0; ti < nT; ti++) {
			struct tuner_counts c;
			double v, x = x0 + (nT > 1 ? (double)ti / (nT - 1) : 0) * (W - x0 - 40);

			tuner_grid_point(r->tu, ti, rec->small_qi, &c);
			v = curve ? tune_cost_of(r, &r->pf, ti, rec->small_qi) / (cmax ? cmax : 1) :
				    c.evictions / emax;
			fprintf(f, "%.1f,%.1f ", x, H0 + 30 + PH - v * PH);
		}
		fprintf(f, "\"/>\n");
	}
	for (int ti = 0; ti < nT; ti++)
		fprintf(f, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%d</text>\n",
			x0 + (nT > 1 ? (double)ti / (nT - 1) : 0) * (W - x0 - 40), H0 + PH + 48,
			r->o->T[ti]);
	fprintf(f, "</svg>\n");
	if (fclose(f))
		warning("--svg: error writing %s", path);
}
