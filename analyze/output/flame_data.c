/*
 * analyze/output/flame_data.c - the flame graph page's data and the page
 * around it (flame_data.h): shared by every writer of a flame graph, so
 * that the page reads one schema.  Owns nothing past a call.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/output/flame_data.h"
#include "analyze/output/frames.h"
#include "analyze/output/html_text.h"
#include "analyze/output/output.h"
#include "analyze/output/script_json.h"
#include "analyze/output/units.h"
#include "analyze/util/saturate.h"

/* The page (assets/flamegraph.html, embedded by assets/embed.sh). */
extern const char output_asset_flamegraph_html[];
/* The pages' number formats (assets/format.js). */
extern const char output_asset_format_js[];

const char *flame_data_program(const struct profile *p, char *out, size_t cap)
{
	return run_facts_name(&p->run, out, cap);
}

static void note(FILE *out, int *n, const char *text)
{
	fputs((*n)++ ? "," : "", out);
	output_json_string(out, text);
}

/* The notes of the text report's header that qualify the numbers, as a
 * JSON list of strings. */
static void flame_data_notes(FILE *out, const struct profile *p)
{
	const struct run_facts *run = &p->run;
	char text[1024];
	int n = 0;

	fputc('[', out);
	if (profile_ended_early(p)) {
		snprintf(text, sizeof(text), "ended early: %s; blocks still live then are not known "
			 "to be leaks", run->ended_early);
		note(out, &n, text);
	}
	if (run->data_lost[0]) {
		snprintf(text, sizeof(text), "data lost: %s: the figures are short of the program's",
			 run->data_lost);
		note(out, &n, text);
	}
	if (run->meta_lost[0]) {
		snprintf(text, sizeof(text), "stacks lost: %s: their allocations are shown "
			 "without a call stack or without symbols", run->meta_lost);
		note(out, &n, text);
	}
	if (run->foreign_malloc)
		note(out, &n, "the program's own malloc was not recorded");
	if (run->foreign_new)
		note(out, &n, "C++ operator new and delete calls served by another allocator were "
			  "not all recorded");
	if (run->recording_controlled) {
		char n1[32], n2[32];

		snprintf(text, sizeof(text), "recording paused part of the run: recorded %s of %s; "
			 "nothing is counted while paused",
			 output_fmt_ns(n1, sizeof(n1), run->recorded_ns),
			 output_fmt_ns(n2, sizeof(n2), run->recorded_ns + run->paused_ns));
		note(out, &n, text);
	}
	if (run->own_heap_runtime) {
		snprintf(text, sizeof(text), "%s manages a heap of its own%s%s%s; mprof sees only the "
			 "blocks it takes from malloc, not its objects", run->own_heap_runtime,
			 run->own_heap_unless ? " (unless " : "",
			 run->own_heap_unless ? run->own_heap_unless : "",
			 run->own_heap_unless ? ")" : "");
		note(out, &n, text);
	}
	if (run->rss_mostly_unseen)
		note(out, &n, "peak RSS is many times the heap peak: most of the memory is not malloc "
		     "blocks (a bundled allocator, mmap, a runtime's heap), which mprof does not see");
	if (output_pool_note(text, sizeof(text), p))
		note(out, &n, text);
	if (output_filter_note(text, sizeof(text), p))
		note(out, &n, text);
	fputc(']', out);
}

void flame_data_schema(FILE *out)
{
	fprintf(out, "\"schema\":\"mprof-flamegraph\",\"schema_version\":%d,",
		FLAME_DATA_SCHEMA_VERSION);
}

void flame_data_run(FILE *out, const struct profile *p)
{
	char composed[4096];
	const char *program = flame_data_program(p, composed, sizeof(composed));

	fputs("\"trace\":", out);
	output_json_string(out, p->info.path);
	fputs(",\"program\":", out);
	output_json_string(out, program);
	fputs(",\"exe\":", out);
	output_json_string(out, p->run.exe ? output_base_name(p->run.exe) : NULL);
	if (p->run.has_pid)
		fprintf(out, ",\"pid\":%" PRIu64, p->run.pid);
	else
		fputs(",\"pid\":null", out);
	fprintf(out, ",\"sampled\":%s,\"kind\":", p->info.sampled ? "true" : "false");
	output_json_string(out, output_report_kind(p));
	fputs(",\"notes\":", out);
	flame_data_notes(out, p);
}

void flame_data_metric(FILE *out, enum metric m, const char *qualifier)
{
	const struct metric_info *mi = metric_info(m);

	fputs("\"metric\":{\"name\":", out);
	output_json_string(out, mi->name);
	fputs(",\"label\":", out);
	output_json_string(out, mi->label);
	fprintf(out, ",\"bytes\":%s,\"qualifier\":", mi->bytes ? "true" : "false");
	output_json_string(out, qualifier);
	fputc('}', out);
}

/* One frame as ["name", "file", line, "module", inlined]. */
static void flame_data_frame(FILE *out, const struct flame_key *k)
{
	const struct site_table *t = k->table;
	const struct site_frame *f;
	char buf[512];
	bool module;

	fputc('[', out);
	if (k->frame >= t->frame_count) {
		output_json_string(out, k->frame == t->frame_count ? "[no stack]" : "[inherited at fork]");
		fputs(",null,0,null,0]", out);
		return;
	}
	f = k->shown ? k->shown : &t->frames[k->frame];
	module = f->module && strcmp(f->module, "?") != 0;
	output_json_string(out, output_frame_name(f, buf, sizeof(buf)));
	fputc(',', out);
	output_json_string(out, f->file);
	if (k->lines_differ)
		fputs(",-1,", out);
	else
		fprintf(out, ",%" PRIu32 ",", f->line);
	output_json_string(out, module ? output_base_name(f->module) : NULL);
	fprintf(out, ",%d]", f->inlined ? 1 : 0);
}

int flame_data_tree(FILE *out, const struct stack_tree *tree, const struct flame_key *keys,
		    size_t key_count, const char *const *columns)
{
	size_t frames = 0;
	uint32_t *remap = malloc(key_count * sizeof(*remap));   /* key -> frame index */
	uint32_t *pos = malloc(tree->count * sizeof(*pos));    /* node -> place in "nodes" */
	uint64_t total = 0;
	bool saturated = tree->saturated;

	if (!remap || !pos) {
		free(remap);
		free(pos);
		return -ENOMEM;
	}
	memset(remap, 0xff, key_count * sizeof(*remap));
	for (size_t i = 1; i < tree->count; i++) {
		uint32_t node = tree->order[i], key = tree->nodes[node].key;

		pos[node] = (uint32_t)(i - 1);
		if (remap[key] == UINT32_MAX)
			remap[key] = (uint32_t)frames++;
		total = sat_add(total, stack_tree_values(tree, node)[0], &saturated);
	}
	fputs("\"columns\":[", out);
	for (size_t c = 0; c < tree->value_count; c++) {
		fputs(c ? "," : "", out);
		output_json_string(out, columns[c]);
	}
	fprintf(out, "],\"total\":%" PRIu64 ",\"saturated\":%s,\n\"frames\":[", total,
		saturated ? "true" : "false");
	/* frames in the order of their first node */
	for (size_t i = 1, next = 0; i < tree->count; i++) {
		uint32_t key = tree->nodes[tree->order[i]].key;

		if (remap[key] != next)
			continue;
		if (next++)
			fputs(",\n", out);
		flame_data_frame(out, &keys[key]);
	}
	fputs("],\n\"nodes\":[", out);
	for (size_t i = 1; i < tree->count; i++) {
		uint32_t node = tree->order[i];
		const struct stack_tree_node *nd = &tree->nodes[node];
		const uint64_t *v = stack_tree_values(tree, node);

		if (i > 1)
			fputs(i % 8 == 1 ? ",\n" : ",", out);
		fprintf(out, "%" PRIu32 ",", remap[nd->key]);
		if (nd->parent == STACK_TREE_ROOT)
			fputs("-1", out);
		else
			fprintf(out, "%" PRIu32, pos[nd->parent]);
		for (size_t c = 0; c < tree->value_count; c++)
			fprintf(out, ",%" PRIu64, v[c]);
	}
	fputs("]", out);
	free(remap);
	free(pos);
	return 0;
}

int flame_page_write(FILE *out, const char *prefix, const char *program, const char *suffix,
		     int (*data)(FILE *js, void *ctx), void *ctx)
{
	static const char title[] = "@MPROF_TITLE@", blob[] = "@MPROF_DATA@";
	static const char format[] = "@MPROF_FORMAT_JS@";
	const char *at = output_asset_flamegraph_html, *mark;
	int rc = 0;

	while ((mark = strchr(at, '@'))) {
		fwrite(at, 1, (size_t)(mark - at), out);
		if (strncmp(mark, title, sizeof(title) - 1) == 0) {
			output_html_text(out, prefix);
			output_html_text_cut(out, program, FLAME_TITLE_MAX);
			output_html_text(out, suffix);
			at = mark + sizeof(title) - 1;
		} else if (strncmp(mark, format, sizeof(format) - 1) == 0) {
			fputs(output_asset_format_js, out);
			at = mark + sizeof(format) - 1;
		} else if (strncmp(mark, blob, sizeof(blob) - 1) == 0) {
			FILE *js = output_script_json_open(out);

			if (!js)
				return -ENOMEM;
			rc = data(js, ctx);
			fclose(js);
			if (rc < 0)
				return rc;
			at = mark + sizeof(blob) - 1;
		} else {
			fputc('@', out);
			at = mark + 1;
		}
	}
	fputs(at, out);
	return 0;
}
