// analyze/output/assets/report.js - mprof's report page (html.c): reads the
// JSON blob in #mprof-data and draws the summary, the heap over time, the
// flame graph of each metric (from the blob in #mprof-flames) and the top
// sites.  Runs offline: it fetches nothing.  Numbers are written by
// format.js (mprofFormat).
(function () {
  'use strict';
  const data = JSON.parse(document.getElementById('mprof-data').textContent);
  const r = data.report, s = r.summary, q = s.quality;
  const app = document.getElementById('app');
  // peak, leaked, allocated, allocations, temporary; temporary is not available in a sampled trace
  const METRICS = data.metrics.slice(0, 5).filter((m) => m.available);
  const metricIndex = (name) => data.metrics.findIndex((m) => m.name === name);

  const { bytes, count, counted, ns, measured, pct, el } = mprofFormat; // format.js
  const metricValue = (m, v) => (m.bytes ? bytes(v) : count(v));
  // The sites' stacks are paths in the flame graph blob's tree (html.c):
  // a site's node, then its parents; a frame is [name, file, line, module,
  // inlined] (flame_data.h).
  const flames = JSON.parse(document.getElementById('mprof-flames').textContent);
  const FD = flames.data, stacks = mprofFormat.flameStacks(FD);
  const siteTop = (site) => {
    if (site[1] >= 0) return stacks.text(FD.nodes[stacks.stride * site[1]]);
    return { name: site[site.length - 1] & 2 ? '[inherited at fork]' : '[no stack]', loc: '', short: '' };
  };

  // ---- header, cards, notes ----
  const prog = s.program || {};
  const ended = s.ended_early;
  const win = r.window, filt = r.filter, atT = !!(win && win.at_ns != null); // --at, --from/--to, filters
  // the trace's kind exactly as the text report's header gives it (flame data's "kind")
  const kind = FD.kind, warn = kind !== 'exact: every allocation recorded';
  let status = '';
  if (prog.exit_signal != null) status = `killed by signal ${prog.exit_signal}`;
  else if (prog.exit_status != null) status = `exited with status ${prog.exit_status}` + (!prog.exit_unnoted ? ''
    : s.own_heap_runtime === 'Go' ? ' (by the Go runtime’s own exit system call)'
    : ' (the recorder saw no exit: an exit system call of the program’s own, or an exec it did not see whose ' +
      'program gave this status)');
  else if (prog.process_state === 'exec') status = prog.executed != null
    ? `executed ${prog.executed}, not recorded: ${prog.executed_why}` : 'exec';
  app.append(
    el('h1', {}, prog.name || prog.exe || r.trace.path),
    el('div', { class: 'sub' }, `trace ${r.trace.path}`, prog.pid != null ? ` · pid ${prog.pid}` : '',
      status ? ` · ${status}` : '', s.run_time_ns != null ? ` · ran ${ns(s.run_time_ns)}` : '',
      el('span', { class: warn ? 'kind warn' : 'kind' }, kind)));
  // a process that renamed itself (a forked worker's title), as the text report's 'started as:'
  if (prog.cmdline_at_start != null)
    app.append(el('div', { class: 'sub', id: 'started-as' }, `started as ${prog.cmdline_at_start} (renamed itself: ` +
      `the name above is the one ${prog.name_how === 'seen' ? 'mprof last saw while it ran' : prog.name_how === 'filter'
        ? 'it had at exit, but its process name the one it had when it installed a seccomp filter' : 'it had at exit'})`));
  const peakAt = s.peak.time_ns != null ? `at ${measured(s.peak.time_ns, s.time_resolution_ns)}` : `at event ${count(s.peak.seq)}`;
  const card = (k, v, d) => el('div', { class: 'card' }, el('div', { class: 'k' }, k), el('div', { class: 'v' }, v),
    el('div', { class: 'd' }, d || ''));
  // a sampled estimate's 95% margin relative to it, as the text report
  // writes it (" ±97%", " ±<1%"), and the samples it rests on, or with none
  // the bytes it stays under at 95% (the JSON's *_ci95 then)
  const margin = (est, ci) => (!s.sampled || ci == null || !est ? ''
    : 100 * ci / est < 1 ? ' ±<1%' : ` ±${(100 * ci / est).toFixed(0)}%`);
  const basis = (n, bound) => (!s.sampled ? '' : n ? `; ${counted(n, 'sample', 'samples')}, ± at 95%`
    : bound != null ? `; 0 samples: under ${bytes(bound)} at 95%` : '; 0 samples');
  const blocksOf = (n, ci) => `${count(n)}${margin(n, ci)} ${n === 1 ? 'block' : 'blocks'}`;
  app.append(el('div', { class: 'cards' },
    card('heap peak (t-gmax)', bytes(s.peak.bytes),
      `${s.sampled ? 'rough (sampled): ' : ''}${counted(s.peak.blocks, 'block', 'blocks')}, ${peakAt}`),
    card(atT ? `live at T (${ns(win.at_ns)})` : ended ? 'live at end'
      : prog.process_state === 'exec' ? 'leaked (live at exec)'
      : prog.exit_unnoted && s.own_heap_runtime !== 'Go' ? 'leaked (live at exit, or at an exec mprof did not see)' : 'leaked (live at exit)',
      bytes(s.leaked_bytes) + margin(s.leaked_bytes, s.leaked_bytes_ci95),
      `${q.leaked_blocks_maybe_freed ? 'at most: ' : ''}${blocksOf(s.leaked_blocks, s.leaked_blocks_ci95)}` +
      basis(s.leaked_samples, s.leaked_bytes_ci95)),
    card('allocations', count(s.allocations) + margin(s.allocations, s.allocations_ci95),
      `${bytes(s.allocated_bytes)}${margin(s.allocated_bytes, s.allocated_bytes_ci95)} requested` +
      basis(s.allocated_samples, s.allocated_bytes_ci95)),
    s.sampled ? card('temporary', '-', 'not estimated (sampled)')
      : card('temporary', count(s.temporary), `${s.recording && s.recording.temporary_at_most ? 'at most (recording was paused part of the run); ' : ''}${pct(s.temporary, s.allocations)} of allocations`),
    card('peak RSS', s.peak_rss_kib != null ? bytes(s.peak_rss_kib * 1024) : '-',
      s.peak_rss_sampled ? 'at least: sampled while it ran' : 'the process’s own'),
    s.sampled ? card('blocks freed', count(s.blocks_freed), `estimate; ${counted(s.frees_recorded, 'free call', 'free calls')} recorded`)
      : card('frees', count(s.frees), counted(s.reallocs, 'realloc', 'reallocs'))));
  const notes = [];
  if (s.recording) {
    const rec = s.recording;
    notes.push(`Recorded ${ns(rec.recorded_ns)} of ${ns(rec.recorded_ns + rec.paused_ns)} (paused ${ns(rec.paused_ns)}: ` +
      `${rec.paused_at_start ? 'started paused, ' : ''}${counted(rec.stops, 'stop', 'stops')}, ${counted(rec.starts, 'start', 'starts')}); ` +
      'nothing is counted while paused (the chart shades those stretches).');
  }
  if (atT) notes.push(`The heap at T = ${ns(win.at_ns)} into the recording (--at): the events before T; blocks live at T are not leaks.`);
  else if (win) notes.push(`Only the allocations made from ${ns(win.from_ns)} into the recording to ${win.to_ns != null ? ns(win.to_ns) : 'its end'}, and their frees (${counted(win.frees_outside, 'free of a block', 'frees of blocks')} allocated outside it left out).`);
  if (filt && filt.sites_left_out) notes.push(`Filtered: ${count(filt.sites_left_out)} of ${counted(filt.sites_before, 'site', 'sites')} left out (${counted(filt.allocations_left_out, 'allocation', 'allocations')}, ${bytes(filt.allocated_bytes_left_out)}); the totals are the whole program's.`);
  if (filt && filt.suppressions) notes.push(`Suppressed (${filt.suppressions}): ${bytes(filt.suppressed_leaked_bytes)} in ${counted(filt.suppressed_leaked_blocks, 'block', 'blocks')} at ${counted(filt.suppressed_sites, 'site', 'sites')}, known leaks left out of the leak total.`);
  if (ended) notes.push(`The recording ended early (${ended}): blocks still live then are not known to be leaks.`);
  if (q.leaked_blocks_maybe_freed) notes.push(`${counted(q.unrecorded_frees, 'free was', 'frees were')} not recorded: up to ${count(q.leaked_blocks_maybe_freed)} of the blocks counted live at the end may have been freed, so the leak and peak figures may be high.`);
  if (s.data_lost) notes.push(`Data lost: ${s.data_lost}. The counts are short of the program's.`);
  if (s.meta_lost) notes.push(`Stacks lost: ${s.meta_lost}. Their allocations are counted, shown without a call stack or without symbols.`);
  if (s.own_heap_runtime) notes.push(`${s.own_heap_runtime} manages a heap of its own; mprof sees only the blocks it takes from malloc.`);
  if (s.rss_mostly_unseen) notes.push('Peak RSS is over 4 times the heap peak: most of the memory is not malloc blocks (a bundled allocator, mmap, a runtime’s heap), which mprof does not see.');
  if (s.sampled) notes.push('Sampled trace: counts and bytes are estimates; peak and temporary figures have no unbiased estimate.');
  if (q.truncated) notes.push(`The trace is truncated at offset ${q.truncated_offset}: the program was probably killed; events up to there are reported.`);
  if (q.chunks_lost) notes.push(`${counted(q.chunks_lost, 'chunk', 'chunks')} lost (corrupt or not mprof's).`);
  if (q.conflicting_chunks) notes.push(`${counted(q.conflicting_chunks, 'META, END or SYMBOLS chunk unlike the first of its kind', 'META, END or SYMBOLS chunks unlike the first of their kind')} ignored.`);
  if (q.second_trace_offset != null) notes.push(`The file holds a second trace from offset ${q.second_trace_offset} (another file header); it was not read: these figures are of the first.`);
  if (s.inherited && s.inherited.note) notes.push(s.inherited.note);
  if (s.pool) notes.push(`Pool blocks (mprof.h): ${counted(s.pool.allocations, 'allocation', 'allocations')}, ${bytes(s.pool.allocated_bytes)} requested, inside malloc’d blocks that the totals count too: these bytes are counted twice.`);
  if (notes.length) app.append(el('ul', { class: 'notes' }, ...notes.map((n) => el('li', {}, n))));
  app.append(el('p', { class: 'quality' },
    `What the numbers rest on: ${counted(s.events, 'event', 'events')} in ${counted(q.chunks, 'chunk', 'chunks')}, ${count(q.chunks_lost)} lost; `,
    `${counted(q.sequence_gaps, 'sequence gap', 'sequence gaps')}; ${counted(s.unmatched_frees, 'unmatched free', 'unmatched frees')}; ` +
    (s.frees_of_unrecorded_blocks ? `${counted(s.frees_of_unrecorded_blocks, 'free of a block', 'frees of blocks')} allocated while recording was stopped or sampled or by a thread without a slot (expected: an exact run records every free); ` : ''),
    `${counted(q.stacks, 'call stack', 'call stacks')} (${count(q.truncated_stacks)} truncated, ${count(q.unknown_stacks)} without a stack); `,
    `${counted(q.frames, 'frame', 'frames')}, ${count(q.frames_without_debug_info)} without debug info, ${count(q.frames_without_symbols)} without symbols.`));

  // ---- heap over time ----
  const tl = data.timeline;
  app.append(el('h2', {}, 'Heap over time'));
  if (!tl || !tl.points || tl.points.length < 2) {
    app.append(el('p', { class: 'quality' }, 'This trace holds no timeline of the heap (it is too short, or older than mprof’s timeline).'));
  } else {
    app.append(el('div', { class: 'panel', id: 'chart' }, chart(tl)));
  }

  function chart(t) {
    const W = 1140, H = 260, L = 70, B = 28, T = 10;
    const pts = t.points; // [time_ns, heap_bytes, rss_bytes or null]
    // RSS: the launcher's samples, else each point's newest one
    const rss = t.rss && t.rss.length ? t.rss : pts.filter((p) => p[2] != null).map((p) => [p[0], p[2]]);
    // the program's markers, and the stretches while recording was stopped
    const marks = (data.report.timeline && data.report.timeline.markers) || [];
    const rec = s.recording, off = [];
    if (rec) {
      let from = rec.paused_at_start ? 0 : null;
      for (const c of rec.changes) {
        if (c.state === 'stopped' && from === null) from = c.time_ns;
        if (c.state === 'started' && from !== null) { off.push([from, c.time_ns]); from = null; }
      }
      if (from !== null) off.push([from, s.run_time_ns != null ? s.run_time_ns : from]);
    }
    const times = pts.map((p) => p[0]).concat(rss.map((r) => r[0]), marks.map((m) => m.time_ns),
      off.flat());
    const t0 = Math.min(...times), t1 = Math.max(...times) || 1;
    let ymax = 1;
    for (const p of pts) ymax = Math.max(ymax, p[1]);
    for (const r of rss) ymax = Math.max(ymax, r[1]);
    const x = (tn) => L + ((W - L - 10) * (tn - t0)) / Math.max(1, t1 - t0);
    const y = (v) => T + (H - T - B) * (1 - v / ymax);
    const ns_ = 'http://www.w3.org/2000/svg';
    const svg = document.createElementNS(ns_, 'svg');
    svg.setAttribute('viewBox', `0 0 ${W} ${H}`);
    svg.setAttribute('width', '100%');
    const add = (tag, attrs, text) => {
      const e = document.createElementNS(ns_, tag);
      for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
      if (text != null) e.textContent = text;
      svg.append(e);
      return e;
    };
    // round grid steps: 1, 2 or 5 times a power of ten, of KiB/MiB/GiB
    // for bytes (10 MiB, 20 MiB, ...) and of ns for time (1 s, 2 s, ...)
    const niceStep = (raw) => {
      const p = Math.pow(10, Math.floor(Math.log10(Math.max(raw, 1e-9))));
      return [1, 2, 5, 10].map((m) => m * p).find((v) => v >= raw);
    };
    const unit = Math.pow(1024, Math.max(0, Math.min(3, Math.floor(Math.log(ymax) / Math.log(1024)))));
    const ystep = unit * niceStep(ymax / unit / 4);
    for (let v = 0; v <= ymax; v += ystep) {
      add('line', { x1: L, x2: W - 10, y1: y(v), y2: y(v), stroke: '#e5e7eb' });
      add('text', { class: 'ylabel', x: L - 6, y: y(v) + 4, 'text-anchor': 'end' }, bytes(Math.round(v)));
    }
    // time labels at round times since the recording's start, which may lie
    // before the chart's first point (data-ns: the label's time, for tests)
    const tstep = niceStep(Math.max(1, t1 - t0) / 6);
    for (let v = Math.ceil(t0 / tstep) * tstep; v <= t1; v += tstep) {
      add('text', { class: 'xlabel', 'data-ns': Math.round(v), x: x(v), y: H - 8, 'text-anchor': 'middle' },
        ns(Math.round(v)));
    }
    // the heap holds each point's level until the next (a step); RSS is sampled
    const line = (xy, step, colour) => {
      // one point alone is a dot: a path of a move draws nothing
      if (xy.length === 1) { add('circle', { class: 'dot', cx: x(xy[0][0]), cy: y(xy[0][1]), r: 3, fill: colour }); return; }
      const d = xy.map(([tn, v], i) => (i === 0 ? `M${x(tn).toFixed(1)},${y(v).toFixed(1)}`
        : step ? `H${x(tn).toFixed(1)}V${y(v).toFixed(1)}` : `L${x(tn).toFixed(1)},${y(v).toFixed(1)}`)).join('');
      if (d) add('path', { d, fill: 'none', stroke: colour, 'stroke-width': 1.6 });
    };
    const rssColour = getComputedStyle(document.documentElement).getPropertyValue('--rss').trim() || '#9333ea';
    // RSS read once (a run shorter than the launcher's 100 ms period): its
    // level, dashed across the chart, since a lone dot was easy to miss and
    // one reading makes no line
    if (rss.length === 1) {
      add('path', { class: 'rss-once', d: `M${x(t0).toFixed(1)},${y(rss[0][1]).toFixed(1)}H${x(t1).toFixed(1)}`,
        fill: 'none', stroke: rssColour, 'stroke-width': 1.6, 'stroke-dasharray': '6 4' });
    } else {
      line(rss, false, rssColour);
    }
    line(pts.map((p) => [p[0], p[1]]), true,
      getComputedStyle(document.documentElement).getPropertyValue('--heap').trim() || '#2563eb');
    for (const [a, b] of off) {
      add('rect', { class: 'paused', x: x(a), y: T, width: Math.max(1, x(b) - x(a)), height: H - T - B, fill: '#9ca3af', 'fill-opacity': 0.18 });
    }
    // a label beside its line, on the side with room: right of it in the chart's left half, left of it in the right half
    const beside = (px, gap) => (px > (L + W) / 2 ? { x: px - gap, 'text-anchor': 'end' } : { x: px + gap });
    marks.forEach((m, i) => {
      add('line', { class: 'marker', x1: x(m.time_ns), x2: x(m.time_ns), y1: T, y2: H - B, stroke: '#047857', 'stroke-dasharray': '2 3' });
      add('text', { class: 'marker', ...beside(x(m.time_ns), 3), y: T + 26 + 12 * (i % 3), fill: '#047857' }, m.name);
    });
    if (t.peak) {
      add('line', { x1: x(t.peak[0]), x2: x(t.peak[0]), y1: T, y2: H - B, stroke: '#c2410c', 'stroke-dasharray': '4 3' });
      add('circle', { cx: x(t.peak[0]), cy: y(t.peak[1]), r: 4, fill: '#c2410c' });
      add('text', { class: 'peak', ...beside(x(t.peak[0]), 6), y: T + 12, fill: '#c2410c' }, `peak ${bytes(t.peak[1])}`);
    }
    const wrap = el('div', {});
    wrap.append(svg, el('div', { class: 'legend' }, el('span', {}, el('i', { style: 'background:var(--heap)' }), 'heap (live requested bytes)'),
      rss.length ? el('span', {}, el('i', { style: 'background:var(--rss)' }),
        rss.length === 1 ? `RSS (read once: ${bytes(rss[0][1])})` : 'RSS') : null,
      el('span', {}, el('i', { style: 'background:var(--accent)' }), 'peak (t-gmax)'),
      marks.length ? el('span', {}, el('i', { style: 'background:#047857' }), 'markers (mprof.h)') : null,
      off.length ? el('span', {}, el('i', { style: 'background:#d1d5db' }), 'recording stopped') : null));
    return wrap;
  }

  // ---- flamegraph: the flame graph page of the metric clicked, in a frame,
  // made from the one blob of all metrics (html.c) ----
  const flameTitles = { peak: 'Peak (live at t-gmax)', leaked: ended ? 'Live at end' : 'Leaked (live at exit)',
    allocated: 'Allocated bytes', allocations: 'Allocations', temporary: 'Temporary' };
  app.append(el('h2', {}, 'Flamegraph'));
  const flameTabs = el('div', { class: 'tabs', id: 'flame-metrics' });
  const frame = el('iframe', { id: 'flame', title: 'flamegraph', class: 'flame' });
  app.append(flameTabs, frame);
  const showFlame = (name) => {
    const m = data.metrics[metricIndex(name)], fd = flames.data;
    const col = 2 + fd.columns.indexOf(name), stride = 2 + fd.columns.length;
    let total = 0;
    for (let i = col; i < fd.nodes.length; i += stride) total += fd.nodes[i];
    for (const b of flameTabs.children) b.classList.toggle('on', b.dataset.metric === name);
    frame.dataset.metric = name;
    frame.srcdoc = mprofFormat.flamePage(flames.template,
      Object.assign({}, fd, { metric: { name: m.name, label: m.label, bytes: m.bytes, qualifier: m.qualifier }, total }),
      `${m.label}${m.qualifier ? ` (${m.qualifier})` : ''}: ${fd.program || fd.trace} - mprof flame graph`);
  };
  for (const m of METRICS) {
    if (flames.data.columns.includes(m.name)) flameTabs.append(el('button', { 'data-metric': m.name, onclick: () => showFlame(m.name) }, flameTitles[m.name]));
  }
  showFlame('peak');

  // ---- top sites ----
  const TOP = 20;
  app.append(el('h2', {}, 'Top allocation sites'));
  const tabs = el('div', { class: 'tabs', id: 'site-metrics' });
  const tableBox = el('div', {});
  app.append(tabs, tableBox);
  const titles = { peak: 'Peak (live at t-gmax)', leaked: atT ? 'Live at T' : ended ? 'Live at end' : 'Leaked (live at exit)',
    allocated: 'Allocated bytes', allocations: 'Allocations', temporary: 'Temporary' };
  const showTable = (m) => {
    for (const b of tabs.children) b.classList.toggle('on', b.dataset.metric === m.name);
    const k = 2 + metricIndex(m.name), total = s[m.key === 'peak_bytes' ? 'peak' : m.key];
    const whole = m.name === 'peak' ? s.peak.bytes : (m.name === 'leaked' ? s.leaked_bytes : total);
    const rows = data.sites.filter((x) => x[k] > 0).sort((a, b) => b[k] - a[k] || a[0] - b[0]);
    // the column beside the ranked one: a site's allocations, or, where the
    // tab ranks by them, its allocated bytes (not the same count twice)
    const side = data.metrics[metricIndex(m.name === 'allocations' ? 'allocated' : 'allocations')];
    const body = el('tbody', {});
    const shown = rows.slice(0, TOP), via = stacks.callers(shown.map((site) => site[1]));
    shown.forEach((site, i) => {
      const top = siteTop(site);
      const tr = el('tr', { class: 'site', title: 'show the call stack' },
        el('td', { class: 'num' }, `#${i + 1}`),
        el('td', { class: 'num' }, metricValue(m, site[k])),
        el('td', { class: 'num' }, pct(site[k], whole)),
        el('td', { class: 'num' }, metricValue(side, site[2 + metricIndex(side.name)])),
        el('td', {}, el('div', { class: 'fn' }, top.name), stacks.placeEl('div', 'loc', top),
          via[i] ? el('div', { class: 'via' }, `called from ${via[i]}`) : null));
      body.append(tr, stacks.stackRow(tr, site[1], 4));
    });
    tableBox.replaceChildren(rows.length
      ? el('table', {}, el('thead', {}, el('tr', {}, el('th', { class: 'num' }, 'rank'), el('th', { class: 'num' }, m.label),
        el('th', { class: 'num' }, 'share'), el('th', { class: 'num' }, side.label), el('th', {}, 'site (allocating function first)'))), body)
      : el('p', { class: 'quality' }, `No site has ${m.label}.`));
    if (rows.length > TOP) tableBox.append(el('p', { class: 'quality' }, `${counted(rows.length - TOP, 'more site', 'more sites')}; \`mprof report --format json\` lists them all.`));
  };
  for (const m of METRICS) {
    tabs.append(el('button', { 'data-metric': m.name, onclick: () => showTable(m) }, titles[m.name] || m.label));
  }
  showTable(METRICS[0]);
})();
