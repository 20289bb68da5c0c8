/*
 * analyze/diff/gate.c - the CI gate of `mprof diff` (--fail-if, diff.h):
 * conditions on the totals or on any one site, as a change from A to B
 * (a signed number, or a percentage of A) or as B's own value (an unsigned
 * number).  Units: K, M, G are 1024, 1024^2, 1024^3.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/diff/diff.h"
#include "analyze/output/frames.h"

int diff_condition_parse(struct diff_condition *c, const char *text, char *err, size_t err_bytes)
{
	const char *p = text, *name_end;
	char name[32], *end;
	int f;

	memset(c, 0, sizeof(*c));
	c->text = text;
	if (strncmp(p, "site:", 5) == 0) {
		c->per_site = true;
		p += 5;
	}
	name_end = p + strcspn(p, "<>");
	if (!*name_end || name_end == p || (size_t)(name_end - p) >= sizeof(name)) {
		snprintf(err, err_bytes, "'%s': wants FIELD>NUMBER or FIELD<NUMBER "
			 "(e.g. peak>+5%%, leaked>0, site:allocated>+1M)", text);
		return -EINVAL;
	}
	memcpy(name, p, (size_t)(name_end - p));
	name[name_end - p] = '\0';
	f = diff_field_parse(name);
	if (f < 0) {
		snprintf(err, err_bytes, "'%s': unknown field '%s' (%s, rss)", text, name,
			 metric_names());
		return -EINVAL;
	}
	if (f == DF_RSS && c->per_site) {
		snprintf(err, err_bytes, "'%s': peak RSS is the process's, not a site's", text);
		return -EINVAL;
	}
	c->field = (enum diff_field)f;
	c->greater = *name_end == '>';
	p = name_end + 1;
	if (*p == '=') {
		c->or_equal = true;
		p++;
	}
	c->relative_change = *p == '+' || *p == '-';
	if (*p < '0' || *p > '9') {
		if (!c->relative_change || p[1] < '0' || p[1] > '9') {
			snprintf(err, err_bytes, "'%s': the condition wants a number after its "
				 "comparison", text);
			return -EINVAL;
		}
	}
	c->number = strtod(p, &end);
	if (end == p || isnan(c->number) || isinf(c->number)) {
		snprintf(err, err_bytes, "'%s': '%s' is not a number", text, p);
		return -EINVAL;
	}
	switch (*end) {
	case '\0': break;
	case 'K': c->number *= 1024.0; end++; break;
	case 'M': c->number *= 1024.0 * 1024.0; end++; break;
	case 'G': c->number *= 1024.0 * 1024.0 * 1024.0; end++; break;
	case '%': c->percent = true; end++; break;
	default: break;
	}
	if (*end) {
		snprintf(err, err_bytes, "'%s': unknown unit '%s' (K, M, G or %%)", text, end);
		return -EINVAL;
	}
	if (c->percent && !c->relative_change) {
		snprintf(err, err_bytes, "'%s': a percentage is a change from A and wants a sign "
			 "(+5%% or -5%%)", text);
		return -EINVAL;
	}
	return 0;
}

/* The number a condition compares: B's value, B - A, or (B - A) in percent
 * of A (infinite when A is 0 and B is not). */
static double condition_value(const struct diff_condition *c, uint64_t a, uint64_t b)
{
	double delta = (double)diff_change(a, b);

	if (!c->relative_change)
		return (double)b;
	if (!c->percent)
		return delta;
	if (a == 0)
		return b == 0 ? 0.0 : INFINITY;
	return 100.0 * delta / (double)a;
}

static bool condition_holds(const struct diff_condition *c, uint64_t a, uint64_t b)
{
	double v = condition_value(c, a, b);

	if (c->greater)
		return c->or_equal ? v >= c->number : v > c->number;
	return c->or_equal ? v <= c->number : v < c->number;
}

/* "peak bytes 1000 -> 1100 (+100, +10.0%)" */
static void print_change(FILE *out, enum diff_field f, uint64_t a, uint64_t b)
{
	int64_t ch = diff_change(a, b);

	fprintf(out, "%s %" PRIu64 " -> %" PRIu64 " (%s%" PRId64, diff_field_label(f), a, b,
		ch > 0 ? "+" : "", ch);
	if (a)
		fprintf(out, ", %+.1f%%", 100.0 * (double)ch / (double)a);
	else if (b)
		fputs(", new", out);
	fputc(')', out);
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

size_t diff_gate(FILE *out, const struct diff *d, const struct diff_condition *c, size_t n)
{
	size_t held = 0;
	char name[512];

	for (size_t k = 0; k < n; k++) {
		const struct diff_condition *ck = &c[k];
		enum diff_field f = ck->field;
		bool ka, kb;

		if (!ck->per_site) {
			bool known = f != DF_RSS || (d->has_rss_a && d->has_rss_b) ||
				     (!ck->relative_change && d->has_rss_b);

			if (!known || !condition_holds(ck, d->total_a[f], d->total_b[f]))
				continue;
			held++;
			fprintf(out, "mprof diff: condition held: %s: ", ck->text);
			diff_field_known(d, f, &ka, &kb);
			if (ka) /* else A's figure is no estimate: B's alone was read */
				print_change(out, f, d->total_a[f], d->total_b[f]);
			else
				fprintf(out, "%s in B %" PRIu64 " (A has no estimate)",
					diff_field_label(f), d->total_b[f]);
			fputc('\n', out);
			continue;
		}
		{
			size_t sites = 0;

			for (size_t i = 0; i < d->count; i++)
				sites += condition_holds(ck, d->entries[i].a.v[f], d->entries[i].b.v[f]);
			if (!sites)
				continue;
			held++;
			fprintf(out, "mprof diff: condition held: %s: %zu site%s\n", ck->text, sites,
				sites == 1 ? "" : "s");
			for (size_t i = 0; i < d->count; i++) {
				const struct diff_entry *e = &d->entries[i];
				const struct site_table *t;
				const struct site *s;

				if (!condition_holds(ck, e->a.v[f], e->b.v[f]))
					continue;
				s = diff_entry_site(d, e, &t);
				fputs("    ", out);
				print_change(out, f, e->a.v[f], e->b.v[f]);
				if (s->frame_count) {
					const struct site_frame *fr = &t->frames[site_frame_innermost(t, s)];

					fprintf(out, " at %s", output_frame_name(fr, name, sizeof(name)));
					if (fr->file)
						fprintf(out, " (%s:%" PRIu32 ")", output_base_name(fr->file),
							fr->line);
				} else {
					fprintf(out, " at %s", output_site_stackless_name(s));
				}
				fprintf(out, "%s\n", e->status == DS_ADDED ? " [new]"
						     : e->status == DS_REMOVED ? " [vanished]" : "");
			}
		}
	}
	return held;
}
