/*
 * preload/diag.c - recorder diagnostics (see diag.h).
 *
 * Owns the header's diag_flags/diag_text updates and the EXT_DIAG encoding.
 * Must never write to a descriptor of the target and never allocate.
 */
#include <string.h>

#include "preload/diag.h"
#include "preload/meta.h"
#include "preload/ring.h"

#define DIAG_TEXT_MAX 480u
/* Flags of the codes that leave no text worth keeping in the header. */
#define DIAG_NO_TEXT_CODES ((1u << TRACE_DIAG_INFO) | (1u << TRACE_DIAG_RING_FULL_WAIT))

void diag_note(unsigned code, const char *text)
{
	struct session_proc_header *h = preload_proc.hdr;
	size_t len = strlen(text);

	if (!h)
		return;
	/* The launcher prints only the header's text: a note must not hide a
	 * warning (a foreign malloc, recording stopped) given before it (ring
	 * waits set their flag with no text). */
	if (code == TRACE_DIAG_INFO &&
	    (atomic_load_explicit(&h->diag_flags, memory_order_acquire) & ~DIAG_NO_TEXT_CODES)) {
		atomic_fetch_or_explicit(&h->diag_flags, 1u << code, memory_order_release);
		return;
	}
	if (len >= sizeof(h->diag_text))
		len = sizeof(h->diag_text) - 1;
	memcpy(h->diag_text, text, len);
	h->diag_text[len] = '\0';
	atomic_fetch_or_explicit(&h->diag_flags, 1u << code, memory_order_release);
}

int diag_report(unsigned code, const char *text)
{
	size_t len = strlen(text);
	struct preload_thread *m;
	uint8_t *rec, *p;

	diag_note(code, text);
	if (len > DIAG_TEXT_MAX)
		len = DIAG_TEXT_MAX;
	m = meta_begin();
	if (!m)
		return -1;
	rec = ring_reserve(m, (uint32_t)(RECORD_EXT_HEADER_BYTES + 2 * VARINT_MAX_BYTES + len));
	if (rec) {
		p = record_ext_begin(rec, TRACE_REC_EXT_DIAG);
		p = varint_put_u64(p, code);
		p = record_put_bytes(p, text, len);
		record_ext_end(rec, p);
		ring_commit(m, p);
	}
	meta_end(m);
	return rec ? 0 : -1;
}
