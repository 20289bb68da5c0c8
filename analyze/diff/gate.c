/*
 * analyze/diff/gate.c - the CI gate of `mprof diff` (--fail-if, diff.h):
 * conditions on the totals or on any one site, as a change from A to B
 * (a signed number, or a percentage of A) or as B's own value (an unsigned
 * number).  Units: K, M, G are 1024, 1024^2, 1024^3.
 *
 * A figure that is only an upper bound (diff_field_at_most) allows every
 * value from 0 to it: a condition holds when it holds for all of them, and
 * is left undecided when it holds for some, so the gate never passes or
 * fails on a count the trace does not have.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/diff/diff.h"
#include "analyze/output/frames.h"
#include "analyze/output/output.h"
#include "analyze/util/error.h"

/* Spaces and tabs may stand between the tokens of a condition, as a user
 * writes "leaked > 0"; never inside one (a field name, ">=", a number). */
static const char *skip_blanks(const char *p)
{
	while (*p == ' ' || *p == '\t')
		p++;
	return p;
}

static int condition_error(char *err, size_t err_bytes, const char *text, const char *why)
{
	snprintf(err, err_bytes, "'%s': %s", text, why);
	return -EINVAL;
}

/* c->text: the condition without its blanks ("site:leaked>+1K"), the form
 * every verdict prints. */
static int condition_spell(struct diff_condition *c, const char *name, size_t name_len,
			   const char *number, size_t number_len, char sign, char unit,
			   const char *text, char *err, size_t err_bytes)
{
	int n = snprintf(c->text, sizeof(c->text), "%s%.*s%s%s%.*s%.*s%.*s",
			 c->per_site ? "site:" : "", (int)name_len, name, c->greater ? ">" : "<",
			 c->or_equal ? "=" : "", sign ? 1 : 0, &sign, (int)number_len, number,
			 unit ? 1 : 0, &unit);

	if (n < 0 || (size_t)n >= sizeof(c->text)) {
		snprintf(err, err_bytes, "'%s': longer than %zu characters", text,
			 sizeof(c->text) - 1);
		return -EINVAL;
	}
	return 0;
}

int diff_condition_parse(struct diff_condition *c, const char *text, char *err, size_t err_bytes)
{
	const char *p = skip_blanks(text), *name_end, *number;
	char name[32], *end, sign = 0, unit = 0;
	size_t name_len;
	int f;

	memset(c, 0, sizeof(*c));
	if (strncmp(p, "site:", 5) == 0) {
		c->per_site = true;
		p = skip_blanks(p + 5);
	}
	name_len = strcspn(p, "<> \t");
	name_end = skip_blanks(p + name_len);
	if ((*name_end != '<' && *name_end != '>') || name_len == 0 || name_len >= sizeof(name)) {
		snprintf(err, err_bytes, "'%s': wants FIELD>NUMBER or FIELD<NUMBER "
			 "(e.g. peak>+5%%, leaked > 0, site:allocated>+1M)", text);
		return -EINVAL;
	}
	memcpy(name, p, name_len);
	name[name_len] = '\0';
	f = diff_field_parse(name);
	if (f < 0) {
		snprintf(err, err_bytes, "'%s': unknown field '%s' (%s, rss)", text, name,
			 metric_names());
		return -EINVAL;
	}
	if (f == DF_RSS && c->per_site)
		return condition_error(err, err_bytes, text, "peak RSS is the process's, not a site's");
	c->field = (enum diff_field)f;
	c->greater = *name_end == '>';
	p = name_end + 1;
	if (*p == '=') {
		c->or_equal = true;
		p++;
	}
	p = skip_blanks(p);
	if (*p == '+' || *p == '-') {
		c->relative_change = true;
		sign = *p;
		p = skip_blanks(p + 1);
	}
	if (*p < '0' || *p > '9')
		return condition_error(err, err_bytes, text,
				       "the condition wants a number after its comparison");
	number = p;
	c->number = strtod(p, &end);
	if (end == p || isnan(c->number) || isinf(c->number)) {
		snprintf(err, err_bytes, "'%s': '%s' is not a number", text, p);
		return -EINVAL;
	}
	if (sign == '-')
		c->number = -c->number;
	p = skip_blanks(end);
	if (*p && strchr("KMG%", *p))
		unit = *p++;
	switch (unit) {
	case 'K': c->number *= 1024.0; break;
	case 'M': c->number *= 1024.0 * 1024.0; break;
	case 'G': c->number *= 1024.0 * 1024.0 * 1024.0; break;
	case '%': c->percent = true; break;
	default: break;
	}
	p = skip_blanks(p);
	if (*p) {
		snprintf(err, err_bytes, "'%s': unknown unit '%s' (K, M, G or %%)", text, p);
		return -EINVAL;
	}
	if (c->percent && !c->relative_change)
		return condition_error(err, err_bytes, text, "a percentage is a change from A and "
				       "wants a sign (+5% or -5%)");
	return condition_spell(c, name, name_len, number, (size_t)(end - number), sign, unit, text,
			       err, err_bytes);
}

/* The number a condition compares: B's value, B - A, or (B - A) in percent
 * of A (infinite when A is 0 and B is not). */
static double condition_value(const struct diff_condition *c, uint64_t a, uint64_t b)
{
	double delta = diff_change_real(a, b);

	if (!c->relative_change)
		return (double)b;
	if (!c->percent)
		return delta;
	if (a == 0)
		return b == 0 ? 0.0 : INFINITY;
	return 100.0 * delta / (double)a;
}

static bool value_holds(const struct diff_condition *c, double v)
{
	if (c->greater)
		return c->or_equal ? v >= c->number : v > c->number;
	return c->or_equal ? v <= c->number : v < c->number;
}

static bool condition_holds(const struct diff_condition *c, uint64_t a, uint64_t b)
{
	return value_holds(c, condition_value(c, a, b));
}

/* One side's figure as the values it allows: one (lo == hi), or from 0 to
 * an upper bound (diff_field_at_most). */
struct gate_figure {
	uint64_t lo, hi;
};

static struct gate_figure gate_figure(uint64_t v, bool at_most)
{
	return (struct gate_figure){at_most ? 0 : v, v};
}

enum gate_verdict { GATE_NOT_HELD, GATE_HELD, GATE_UNDECIDED };

/* What c comes to for every A and B the figures allow.  The value it
 * compares grows with B and shrinks with A (condition_value), so it is
 * least at A's most and B's least, most at A's least and B's most; one
 * comparison holds for every value between iff it holds at both ends, and
 * for none iff at neither. */
static enum gate_verdict condition_verdict(const struct diff_condition *c, struct gate_figure a,
					   struct gate_figure b)
{
	bool at_least = condition_holds(c, a.hi, b.lo), at_most = condition_holds(c, a.lo, b.hi);

	if (at_least && at_most)
		return GATE_HELD;
	return at_least || at_most ? GATE_UNDECIDED : GATE_NOT_HELD;
}

static const char *at_most_text(struct gate_figure x)
{
	return x.lo != x.hi ? "at most " : "";
}

/* "+100", "-5", "0" */
static void print_signed(FILE *out, int64_t v)
{
	fprintf(out, "%s%" PRId64, v > 0 ? "+" : "", v);
}

/* "peak bytes 1000 -> 1100 (+100, +10.0%)"; where a figure is a bound
 * "temporary 100 -> at most 2 (from -100 to -98, -100.0% to -98.0%)", the
 * change in percent only when A's figure is exact and not 0. */
static void print_change(FILE *out, enum diff_field f, struct gate_figure a, struct gate_figure b)
{
	int64_t lo = diff_change(a.hi, b.lo), hi = diff_change(a.lo, b.hi);

	fprintf(out, "%s %s%" PRIu64 " -> %s%" PRIu64 " (", diff_field_label(f), at_most_text(a),
		a.hi, at_most_text(b), b.hi);
	if (lo == hi) {
		print_signed(out, lo);
		if (a.hi)
			fprintf(out, ", %+.1f%%", 100.0 * (double)lo / (double)a.hi);
		else if (b.hi)
			fputs(", new", out);
		fputc(')', out);
		return;
	}
	fputs("from ", out);
	print_signed(out, lo);
	fputs(" to ", out);
	print_signed(out, hi);
	if (a.lo == a.hi && a.hi)
		fprintf(out, ", %+.1f%% to %+.1f%%", 100.0 * (double)lo / (double)a.hi,
			100.0 * (double)hi / (double)a.hi);
	fputc(')', out);
}

/* After a held condition on sampled estimates a (variance estimate var_a)
 * and b: "; sampled: the change's 95% margin ±M", the margin of what c
 * reads (B - A, or B's figure), and
 * where c does not hold at both ends of it, that sampling alone may have
 * made it hold.  The verdict itself is the estimate's. */
static void print_margin(FILE *out, const struct diff_condition *c, uint64_t a, uint64_t b,
			 double var_a, double var_b)
{
	uint64_t m = diff_change_ci95(c->relative_change ? var_a : 0.0, var_b);
	double v = condition_value(c, a, b), mv = (double)m;

	if (c->relative_change && c->percent)
		mv = a ? 100.0 * mv / (double)a : 0.0;
	fprintf(out, "; sampled: %s's 95%% margin \u00b1%" PRIu64,
		c->relative_change ? "the change" : "B", m);
	if (!value_holds(c, v - mv) || !value_holds(c, v + mv))
		fputs(", across which the condition does not hold throughout: sampling alone may "
		      "have made it hold", out);
}

int diff_gate_check(const struct diff *d, const struct diff_condition *c, size_t n, char *err,
		    size_t err_bytes)
{
	for (size_t k = 0; k < n; k++) {
		bool reads_a = c[k].relative_change, ka, kb;

		diff_field_known(d, c[k].field, &ka, &kb);
		if (kb && (ka || !reads_a) && !diff_field_rough(d, c[k].field))
			continue;
		if (kb && (ka || !reads_a))
			snprintf(err, err_bytes, "'%s': %s have no unbiased estimate in a sampled "
				 "trace (rough); gate on leaked, allocated or allocations", c[k].text,
				 diff_field_label(c[k].field));
		else if (c[k].field == DF_RSS)
			snprintf(err, err_bytes, "'%s': trace %s has no RSS samples", c[k].text,
				 kb ? "A" : "B");
		else
			snprintf(err, err_bytes, "'%s': temporary allocations have no estimate in "
				 "a sampled trace", c[k].text);
		return -EINVAL;
	}
	return 0;
}

static const char bound_reason[] =
	"the temporary allocations of a trace recorded in part are only an upper bound";

/* A condition on the totals: its verdict, and the line that says it. */
static enum gate_verdict gate_totals(FILE *out, const struct diff *d, const struct diff_condition *c)
{
	enum diff_field f = c->field;
	bool ka, kb, ma, mb;
	struct gate_figure a, b;
	enum gate_verdict v;

	if (f == DF_RSS && !(d->has_rss_b && (d->has_rss_a || !c->relative_change)))
		return GATE_NOT_HELD; /* diff_gate_check refuses it first */
	diff_field_known(d, f, &ka, &kb);
	diff_field_at_most(d, f, &ma, &mb);
	a = gate_figure(d->total_a[f], ma);
	b = gate_figure(d->total_b[f], mb);
	v = condition_verdict(c, a, b);
	if (v == GATE_NOT_HELD)
		return v;
	fprintf(out, "%s: diff: condition %s: %s: ", analyze_name(),
		v == GATE_HELD ? "held" : "undecided", c->text);
	if (ka) /* else A's figure is no estimate: B's alone was read */
		print_change(out, f, a, b);
	else
		fprintf(out, "%s in B %s%" PRIu64 " (A has no estimate)", diff_field_label(f),
			at_most_text(b), b.hi);
	if (diff_field_has_margin(d, f))
		print_margin(out, c, d->total_a[f], d->total_b[f], d->var_a[f], d->var_b[f]);
	if (v == GATE_UNDECIDED)
		fprintf(out, ": %s", bound_reason);
	fputc('\n', out);
	return v;
}

/* "    leaked bytes 0 -> 2560 (+2560, new) at leak_new (prog.c:12) [new]" */
static void gate_site_line(FILE *out, const struct diff *d, const struct diff_condition *c,
			   const struct diff_entry *e, struct gate_figure a, struct gate_figure b)
{
	enum diff_field f = c->field;
	const struct site_table *t;
	const struct site *s = diff_entry_site(d, e, &t);
	char name[512], place[512];

	fputs("    ", out);
	print_change(out, f, a, b);
	if (s->frame_count) {
		struct diff_frame fr;

		diff_entry_frames(d, e, &fr, 1);
		fputs(" at ", out);
		output_text_fputs_safe(out, output_frame_name(&fr.f, name, sizeof(name)));
		if (output_frame_place(&fr.f, fr.lines_differ, place, sizeof(place))) {
			fputs(" (", out);
			output_text_fputs_safe(out, place);
			fputs(")", out);
		}
	} else {
		fputs(" at ", out);
		output_text_fputs_safe(out, output_site_stackless_name(s));
	}
	fputs(e->status == DS_ADDED ? " [new]" : e->status == DS_REMOVED ? " [vanished]" : "", out);
	if (diff_field_has_margin(d, f))
		print_margin(out, c, e->a.v[f], e->b.v[f], e->a.var[f], e->b.var[f]);
	fputc('\n', out);
}

/* A site: condition: held when it holds for a site whatever the bounds
 * allow, else undecided when it may hold for one; the line says which and
 * the sites' lines follow. */
static enum gate_verdict gate_sites(FILE *out, const struct diff *d, const struct diff_condition *c)
{
	enum diff_field f = c->field;
	size_t count[3] = {0, 0, 0};
	enum gate_verdict v;
	bool ma, mb;

	diff_field_at_most(d, f, &ma, &mb);
	for (size_t i = 0; i < d->count; i++)
		count[condition_verdict(c, gate_figure(d->entries[i].a.v[f], ma),
					gate_figure(d->entries[i].b.v[f], mb))]++;
	v = count[GATE_HELD] ? GATE_HELD : count[GATE_UNDECIDED] ? GATE_UNDECIDED : GATE_NOT_HELD;
	if (v == GATE_NOT_HELD)
		return v;
	if (v == GATE_HELD)
		fprintf(out, "%s: diff: condition held: %s: %zu site%s\n", analyze_name(),
			c->text, count[v], count[v] == 1 ? "" : "s");
	else
		fprintf(out, "%s: diff: condition undecided: %s: %zu site%s may hold it: %s\n",
			analyze_name(), c->text, count[v], count[v] == 1 ? "" : "s", bound_reason);
	for (size_t i = 0; i < d->count; i++) {
		const struct diff_entry *e = &d->entries[i];
		struct gate_figure a = gate_figure(e->a.v[f], ma), b = gate_figure(e->b.v[f], mb);

		if (condition_verdict(c, a, b) == v)
			gate_site_line(out, d, c, e, a, b);
	}
	return v;
}

size_t diff_gate(FILE *out, const struct diff *d, const struct diff_condition *c, size_t n,
		 size_t *undecided)
{
	size_t held = 0;

	*undecided = 0;
	for (size_t k = 0; k < n; k++) {
		enum gate_verdict v = c[k].per_site ? gate_sites(out, d, &c[k])
						    : gate_totals(out, d, &c[k]);

		held += v == GATE_HELD;
		*undecided += v == GATE_UNDECIDED;
	}
	return held;
}
