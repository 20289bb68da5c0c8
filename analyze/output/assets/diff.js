// analyze/output/assets/diff.js - the page of `mprof diff --format html`
// (diff/write_html.c): reads #mprof-diff (totals and sites) and #mprof-page
// and draws the totals with their change, the --fail-if verdict, the sites
// that grew and shrank in the chosen metric with their stacks, and the
// differential flame graph of that metric.  Runs offline: it fetches
// nothing.  Numbers are written by format.js (mprofFormat).
(function () {
  'use strict';
  const F = mprofFormat;
  const diff = JSON.parse(document.getElementById('mprof-diff').textContent);
  const page = JSON.parse(document.getElementById('mprof-page').textContent);
  const app = document.getElementById('app');
  const RANKED = ['peak', 'leaked', 'allocated', 'allocations', 'temporary'];
  const field = (name) => page.fields.find((f) => f.name === name);
  const TOP = 20;
  // the flame graph data: frames and the merged stacks (flame_data.h); a
  // site's stack is its node's path to the root
  const FD = page.flame.data, stacks = F.flameStacks(FD);
  // the sites (write_html.c): [status, node, a_id, b_id, a_sites, b_sites,
  // flags, A's value per field..., B's..., and when a trace is sampled each
  // change's 95% margin...] as objects like the JSON's
  const NF = page.fields.length - 1; // every field but rss
  const sites = diff.sites.map((x) => {
    const s = { status: x[0], node: x[1], a_id: x[2], b_id: x[3], a_sites: x[4], b_sites: x[5],
      unknown_stack: !!(x[6] & 1), inherited: !!(x[6] & 2), a: {}, b: {}, delta: {}, delta_ci95: {} };
    page.fields.slice(0, NF).forEach((f, i) => {
      s.a[f.key] = x[7 + i];
      s.b[f.key] = x[7 + NF + i];
      s.delta[f.key] = x[7 + NF + i] - x[7 + i];
      s.delta_ci95[f.key] = x.length > 7 + 2 * NF ? x[7 + 2 * NF + i] : null;
    });
    return s;
  });

  const el = F.el;
  // an exact figure, with its size in units beside it for bytes
  const exact = (f, v) => (v == null ? '-' : F.group(v) + (f.bytes && Math.abs(v) >= 1024 ? ` (${F.bytes(v)})` : ''));
  const signed = (v) => (v > 0 ? '+' : '') + F.group(v);
  const cls = (d) => (d > 0 ? 'grew' : d < 0 ? 'shrank' : '');

  // ---- header ----
  const progName = page.b.program || page.a.program || diff.b;
  app.append(el('h1', {}, `mprof diff: ${progName}`),
    el('div', { class: 'sub', id: 'traces' }, `A ${diff.a} (${page.a.kind}) → B ${diff.b} (${page.b.kind})`,
      ` · sites matched by ${diff.match}`));
  if (page.a.program && page.b.program && page.a.program !== page.b.program)
    app.append(el('div', { class: 'sub' }, `A ran ${page.a.program}; B ran ${page.b.program}`));

  // ---- the gate's verdict ----
  if (page.gate) {
    const g = page.gate, failed = g.held > 0, undecided = !failed && g.undecided > 0;
    const of = (n) => `${n} of ${g.conditions.length} condition${g.conditions.length === 1 ? '' : 's'}`;
    app.append(el('div', { class: `verdict ${failed || undecided ? 'fail' : 'pass'}`, id: 'gate' },
      el('b', {}, failed ? `--fail-if: ${of(g.held)} held (exit status 1)`
        : undecided ? `--fail-if: none held, ${of(g.undecided)} undecided: an upper bound cannot tell (exit status 2)`
          : `--fail-if: no condition held (exit status 0)`),
      el('div', { class: 'loc' }, g.conditions.map((c) => `--fail-if '${c}'`).join(' ')),
      g.text ? el('pre', {}, g.text) : null));
  }

  // ---- totals, as the text diff ----
  app.append(el('h2', {}, 'Totals'));
  const tbody = el('tbody', {});
  // a sampled trace's changes carry their 95% margin (totals.delta_ci95)
  const margins = page.a.sampled || page.b.sampled;
  const margin = (f, d, m = (diff.totals.delta_ci95 || {})[f.key]) => {
    if (!margins || m == null || d == null) return '';
    return `\u00b1${exact(f, m)}${Math.abs(d) <= m ? ': may be sampling noise' : ''}`;
  };
  for (const f of page.fields) {
    const a = diff.totals.a[f.key], b = diff.totals.b[f.key], d = diff.totals.delta[f.key];
    tbody.append(el('tr', { 'data-field': f.key, class: cls(d) },
      el('td', {}, (diff.rough || []).includes(f.key) ? `${f.label} (rough)`
        : (diff.at_most || []).includes(f.key) ? `${f.label} (at most)` : f.label),
      el('td', { class: 'num' }, exact(f, a)),
      el('td', { class: 'num' }, exact(f, b)),
      el('td', { class: 'num change' }, d == null ? '-' : signed(d)),
      el('td', { class: 'num' }, d == null ? '-' : F.relative(a, b)),
      margins ? el('td', { class: 'num margin' }, margin(f, d)) : null));
  }
  app.append(el('table', { id: 'totals' }, el('thead', {}, el('tr', {}, el('th', {}, ''),
    el('th', { class: 'num' }, 'A'), el('th', { class: 'num' }, 'B'), el('th', { class: 'num' }, 'B-A'),
    el('th', { class: 'num' }, 'change'),
    margins ? el('th', { class: 'num', title: 'sampling alone moves an estimate this much 1 time in 20' }, '95% margin') : null)), tbody));
  // a site a sampled side lacks is only not in its samples, as the text
  // diff says (mprof-diff(1)): never "new" or "vanished"
  const st = { changed: 0, added: 0, removed: 0 };
  for (const s of sites) st[s.status]++;
  const addedWord = page.a.sampled ? 'only in B (not in A\'s samples: A is sampled, so not known to be new)' : 'new (only in B)';
  const removedWord = page.b.sampled ? 'only in A (not in B\'s samples: B is sampled, so not known to have vanished)' : 'vanished (only in A)';
  app.append(el('p', { class: 'quality', id: 'site-counts' },
    `sites: ${st.changed} changed, ${st.added} ${addedWord}, ${st.removed} ${removedWord}; the others are the same.`));
  if (page.a.sampled || page.b.sampled)
    app.append(el('ul', { class: 'notes' }, el('li', {}, 'A sampled trace\'s figures are estimates (its kind above says so); peak (rough) and temporary have no unbiased estimate, and no --fail-if may test them.')));

  // ---- the metric switch: the sites' tables and the flame graph ----
  app.append(el('h2', {}, 'By metric'));
  const tabs = el('div', { class: 'tabs', id: 'diff-metrics' });
  const tables = el('div', {});
  const frame = el('iframe', { id: 'flame', title: 'differential flame graph', class: 'flame' });
  app.append(tabs, tables, el('h2', {}, 'Differential flame graph'),
    el('p', { class: 'quality' }, 'Widths from B (or A: the page\'s "Width" switch shows what vanished); red grew from A to B, blue shrank, the deeper the larger the change.'),
    frame);

  const siteTop = (s) => (s.node >= 0 ? stacks.text(FD.nodes[stacks.stride * s.node])
    : { name: s.inherited ? '[inherited at fork]' : '[no stack]', loc: '', short: '' });
  const badge = (s) => (s.status === 'added' ? el('span', { class: 'badge new' }, page.a.sampled ? 'not in A\'s samples' : 'new')
    : s.status === 'removed' ? el('span', { class: 'badge gone' }, page.b.sampled ? 'not in B\'s samples' : 'vanished') : null);

  // a field whose figures are upper bounds on a side (diff.a_at_most,
  // b_at_most): every value from 0 to the bound is possible, so a site's
  // change is a range, as the text diff shows it
  const boundA = (f) => (diff.a_at_most || []).includes(f.key);
  const boundB = (f) => (diff.b_at_most || []).includes(f.key);
  const bounded = (f) => boundA(f) || boundB(f);
  const range = (f, s) => ({ lo: (boundB(f) ? 0 : s.b[f.key]) - s.a[f.key], hi: s.b[f.key] - (boundA(f) ? 0 : s.a[f.key]) });
  const fmtRange = (r) => (r.lo === r.hi ? signed(r.lo) : `${signed(r.lo)}..${signed(r.hi)}`);

  function siteTable(f, rows, title) {
    const body = el('tbody', {});
    // a sampled trace's site changes carry their margin too, as in the text diff
    const withMargin = margins && sites.some((s) => s.delta_ci95[f.key] != null);
    const via = stacks.callers(rows.slice(0, TOP).map((s) => s.node));
    rows.slice(0, TOP).forEach((s, i) => {
      const top = siteTop(s), a = s.a[f.key], b = s.b[f.key];
      const tr = el('tr', { class: `site ${cls(b - a)}`, title: 'show the call stack' },
        el('td', { class: 'num' }, `#${i + 1}`),
        el('td', { class: 'num change' }, bounded(f) ? fmtRange(range(f, s)) : signed(s.delta[f.key])),
        withMargin ? el('td', { class: 'num margin' }, margin(f, s.delta[f.key], s.delta_ci95[f.key])) : null,
        el('td', { class: 'num' }, bounded(f) ? '-' : F.relative(a, b)),
        el('td', { class: 'num' }, exact(f, a)),
        el('td', { class: 'num' }, exact(f, b)),
        el('td', {}, el('div', { class: 'fn' }, top.name, ' ', badge(s)), stacks.placeEl('div', 'loc', top),
          via[i] ? el('div', { class: 'via' }, `called from ${via[i]}`) : null));
      body.append(tr, stacks.stackRow(tr, s.node, withMargin ? 6 : 5));
    });
    const box = el('div', { class: 'ranking' }, el('h3', {}, title));
    const up = title.startsWith('Grew') || title.startsWith('May have grown');
    if (!rows.length) box.append(el('p', { class: 'quality' }, bounded(f) ? `No site may have ${up ? 'grown' : 'shrunk'} in ${f.label}.` : `No site ${up ? 'grew' : 'shrank'} in ${f.label}.`));
    else box.append(el('table', {}, el('thead', {}, el('tr', {}, el('th', { class: 'num' }, 'rank'),
      el('th', { class: 'num' }, 'B-A'),
      withMargin ? el('th', { class: 'num', title: 'sampling alone moves an estimate this much 1 time in 20' }, '95% margin') : null,
      el('th', { class: 'num' }, 'change'), el('th', { class: 'num' }, 'A'),
      el('th', { class: 'num' }, 'B'), el('th', {}, 'site (allocating function first)'))), body));
    if (rows.length > TOP) box.append(el('p', { class: 'quality' }, `${rows.length - TOP} more; \`mprof diff --format json\` lists them all.`));
    return box;
  }

  function showMetric(name) {
    const f = field(name);
    for (const b of tabs.children) b.classList.toggle('on', b.dataset.metric === name);
    const sitesOf = (n) => `${n} site${n === 1 ? '' : 's'}`;
    if (bounded(f)) {
      // rank by the move the range guarantees, then by the most it allows
      // (diff_rank): B - A of two bounds is neither
      const move = (s, up) => { const r = range(f, s); return up ? { sure: r.lo, most: r.hi } : { sure: -r.hi, most: -r.lo }; };
      const rank = (up) => (x, y) => {
        const mx = move(x, up), my = move(y, up);
        return Math.max(my.sure, 0) - Math.max(mx.sure, 0) || my.most - mx.most || (x.a_id || 0) - (y.a_id || 0);
      };
      const grown = sites.filter((s) => move(s, true).most > 0).sort(rank(true));
      const shrunk = sites.filter((s) => move(s, false).most > 0).sort(rank(false));
      const sure = (rows, up) => rows.filter((s) => move(s, up).sure > 0).length;
      const whose = boundA(f) && boundB(f) ? "A's and B's are" : boundA(f) ? "A's are" : "B's are";
      const how = (verb) => `ranked by the ${verb} the bounds guarantee, then by the most they allow`;
      tables.replaceChildren(
        siteTable(f, grown, `May have grown in ${f.label} (at most: ${whose} upper bounds; ${sitesOf(grown.length)}, ${sure(grown, true)} for sure; ${how('growth')})`),
        siteTable(f, shrunk, `May have shrunk in ${f.label} (at most: ${whose} upper bounds; ${sitesOf(shrunk.length)}, ${sure(shrunk, false)} for sure; ${how('shrink')})`));
    } else {
      const byChange = (x, y) => Math.abs(y.delta[f.key]) - Math.abs(x.delta[f.key]) || (x.a_id || 0) - (y.a_id || 0);
      const grown = sites.filter((s) => s.delta[f.key] > 0).sort(byChange);
      const shrunk = sites.filter((s) => s.delta[f.key] < 0).sort(byChange);
      tables.replaceChildren(siteTable(f, grown, `Grew in ${f.label} (${sitesOf(grown.length)})`),
        siteTable(f, shrunk, `Shrank in ${f.label} (${sitesOf(shrunk.length)})`));
    }
    const data = Object.assign({}, FD, { metric: { name: f.name, label: f.label, bytes: f.bytes, qualifier: f.qualifier } });
    frame.dataset.metric = name;
    frame.srcdoc = F.flamePage(page.flame.template, data,
      `${f.label}${f.qualifier ? ` (${f.qualifier})` : ''} change: ${progName} - mprof diff flame graph`);
  }
  // the metrics the flame data has columns for: temporary is left out when a side is sampled
  const shown = [page.metric].concat(RANKED.filter((m) => m !== page.metric))
    .filter((m) => page.flame.data.columns.includes(m));
  for (const m of shown)
    tabs.append(el('button', { 'data-metric': m, onclick: () => showMetric(m) }, field(m).label));
  showMetric(page.metric);
  document.body.dataset.ready = '1';
})();
