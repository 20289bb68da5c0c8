// analyze/output/assets/format.js - how mprof's pages (report.js,
// flamegraph.html, diff.js) write numbers and text: one definition of
// bytes, counts, durations, shares, changes, HTML escaping and elements, as
// window.mprofFormat.  The pages embed it (html.c, flame_data.c); it
// fetches nothing and holds no state.
var mprofFormat = (function () {
  'use strict';
  var UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  // 1234567 -> "1,234,567"
  function group(n) { return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ','); }
  function count(n) { return n == null ? '-' : group(n); }
  // a count and its noun, as trace/plural.h writes them: "1 block",
  // "2 blocks", "0 blocks" (one and many: both forms, "free was"/"frees were")
  function counted(n, one, many) { return count(n) + ' ' + (n === 1 ? one : many); }
  // bytes below 1 KiB exactly, else one decimal, as the text report writes
  // them ("7.0 KiB", "1.5 MiB")
  function bytes(n) {
    if (n == null) return '-';
    var u = 0, v = Math.abs(n);
    while (v >= 1024 && u < UNITS.length - 1) { v /= 1024; u++; }
    return u ? (n < 0 ? '-' : '') + v.toFixed(1) + ' ' + UNITS[u] : n + ' B';
  }
  function ns(n) {
    if (n == null) return '-';
    if (n >= 1e9) return (n / 1e9).toFixed(2) + ' s';
    if (n >= 1e6) return (n / 1e6).toFixed(2) + ' ms';
    if (n >= 1e3) return (n / 1e3).toFixed(1) + ' \u00b5s';
    return n + ' ns';
  }
  // a measured duration: as ns(), or "< 4 ms" when the clock's resolution
  // res (ns; null or 0: exact) is above it, since the clock cannot tell it
  // from 0 (the text report's output_fmt_time_ns)
  function measured(n, res) {
    if (n == null || !res || n >= res) return ns(n);
    var r = ns(res);
    if (r.indexOf('.') >= 0) r = r.replace(/0+ /, ' ').replace('. ', ' ');
    return '< ' + r;
  }
  function pct(part, whole) { return whole ? (100 * part / whole).toFixed(1) + '%' : '-'; }
  // a change from a to b: "+3,072" (counts) or "+3.00 KiB" (bytes), "0"
  function change(a, b, isBytes) {
    var d = b - a, s = d > 0 ? '+' : d < 0 ? '-' : '';
    return s + (isBytes ? bytes(Math.abs(d)) : group(Math.abs(d)));
  }
  // the relative change as the text diff writes it: "+12.5%", "-100.0%", "new" (a is 0)
  function relative(a, b) {
    if (!a) return b ? 'new' : '0.0%';
    var r = 100 * (b - a) / a;
    return (r >= 0 ? '+' : '') + r.toFixed(1) + '%';
  }
  function esc(s) {
    return String(s).replace(/[&<>"]/g, function (c) {
      return { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' }[c];
    });
  }
  // A DOM element: el('td', {class: 'num', onclick: f}, 'text', child, ...);
  // "on..." attributes become listeners, null children are left out.
  function el(tag, attrs) {
    var e = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) {
      var v = attrs[k];
      if (k === 'class') e.className = v;
      else if (k.indexOf('on') === 0) e.addEventListener(k.slice(2), v);
      else e.setAttribute(k, v);
    });
    for (var i = 2; i < arguments.length; i++) {
      var kid = arguments[i];
      if (kid != null) e.append(kid.nodeType ? kid : String(kid));
    }
    return e;
  }
  // The flame graph page (flamegraph.html, its placeholders left) with data
  // (flame_data.h's object) and title filled in, for an <iframe srcdoc>: how
  // the report and diff pages show one flame graph per metric from one blob.
  // format.js itself is the text of the element #mprof-format.
  function flamePage(template, data, title) {
    var json = JSON.stringify(data).replace(/[<>&\u2028\u2029]/g, function (c) {
      return '\\u' + ('000' + c.charCodeAt(0).toString(16)).slice(-4);
    });
    var format = document.getElementById('mprof-format').textContent;
    return template.replace(/@MPROF_(TITLE|FORMAT_JS|DATA)@/g, function (all, what) {
      return what === 'TITLE' ? esc(title) : what === 'DATA' ? json : format;
    });
  }
  // The call stacks of flame_data.h's blob FD, for the site tables of the
  // report and diff pages: a node's frames from the leaf up (path), a
  // frame's name and place (text, place), the hidden row under a site's
  // row that lists its stack, shown and hidden by clicks on that row
  // (stackRow), and the callers that tell apart rows of the same first
  // frame (callers).
  function flameStacks(FD) {
    var stride = 2 + FD.columns.length;
    function path(n) {
      var out = [];
      for (; n >= 0; n = FD.nodes[stride * n + 1]) out.push(FD.nodes[stride * n]);
      return out;
    }
    // A frame's name and place: loc with the source file's full path (the
    // module is a base name already), short with its base name, which a row
    // shows (a long absolute path left the site's name no room).
    function text(i) {
      var f = FD.frames[i];
      function where(file) {
        // line 0: unknown; -1: a diff's frame that stands for several lines
        var place = f[2] < 0 ? (file ? file + ', lines differ' : 'files differ')
          : file ? file + (f[2] ? ':' + f[2] : '') : '';
        return place ? place + (f[3] ? ' [' + f[3] + ']' : '') : (f[3] || '');
      }
      return { name: f[0], loc: where(f[1]), short: where(f[1] && f[1].replace(/^.*\//, '')),
        inlined: !!f[4] };
    }
    // A frame's place as a row shows it: text()'s short, marked when the
    // frame was inlined (as the text report marks it).
    function place(t) {
      return t.short + (t.inlined ? ' (inlined)' : '');
    }
    // The element of a frame's place: the short form, the full path on hover.
    function placeEl(tag, cls, t) {
      return el(tag, { class: cls, title: t.loc + (t.inlined ? ' (inlined)' : '') }, place(t));
    }
    // The row opens as a button does: by a click, or Enter or Space once
    // focused (Tab reaches it); aria-expanded says whether it is open, and
    // report.css draws a marker from it before the first cell (▸, ▾).
    function stackRow(row, node, colspan) {
      var list = el('ul', { class: 'stack' });
      path(node).forEach(function (i) {
        var t = text(i);
        list.append(el('li', {}, el('span', { class: 'fn' }, t.name), ' ',
          placeEl('span', 'loc', t)));
      });
      var hidden = el('tr', { style: 'display:none' }, el('td', {}), el('td', { colspan: colspan }, list));
      row.setAttribute('tabindex', '0');
      row.setAttribute('role', 'button');
      row.setAttribute('aria-expanded', 'false');
      function toggle() {
        var open = hidden.style.display === 'none';
        hidden.style.display = open ? '' : 'none';
        row.setAttribute('aria-expanded', String(open));
      }
      row.addEventListener('click', toggle);
      row.addEventListener('keydown', function (e) {
        if (e.key !== 'Enter' && e.key !== ' ') return;
        e.preventDefault();
        toggle();
      });
      return hidden;
    }
    // The callers that tell apart the rows of a table whose first frames
    // read the same: for each of nodes (a site's node, or -1), its caller
    // and the frames at each depth where its stack first differs from
    // another such row's, as text ("from_load", "mid \u2190 outer_a",
    // "a \u2190 \u2026 \u2190 d"), or '' when no other row reads the same.  Both
    // rows of a pair show the depth where they first differ, so no two
    // rows read alike unless their stacks do; a name is followed by its
    // place when another row has the same name there at another place.
    function callers(nodes) {
      var paths = nodes.map(function (n) { return n >= 0 ? path(n).map(text) : null; });
      var key = function (t) { return t ? t.name + '\n' + t.loc : ''; };
      return paths.map(function (p, r) {
        if (!p) return '';
        var depths = [];
        paths.forEach(function (o, j) {
          if (j === r || !o || key(o[0]) !== key(p[0])) return;
          var d = 1;
          while (d < p.length && d < o.length && key(p[d]) === key(o[d])) d++;
          if (depths.indexOf(d) < 0) depths.push(d);
        });
        if (!depths.length) return '';
        if (depths.indexOf(1) < 0) depths.push(1);
        depths.sort(function (a, b) { return a - b; });
        var out = [], last = 0;
        depths.forEach(function (d) {
          if (d > last + 1 && d > 1) out.push('\u2026');
          if (d >= p.length) { out.push('[stack ends]'); last = d; return; }
          var t = p[d], clash = paths.some(function (o, j) {
            return j !== r && o && o[d] && o[d].name === t.name && o[d].loc !== t.loc;
          });
          out.push(t.name + (clash && t.loc ? ' (' + t.loc + ')' : ''));
          last = d;
        });
        return out.join(' \u2190 ');
      });
    }
    return { stride: stride, path: path, text: text, place: place, placeEl: placeEl, stackRow: stackRow,
      callers: callers };
  }
  return { group: group, count: count, counted: counted, bytes: bytes, ns: ns, measured: measured, pct: pct, change: change,
    relative: relative, esc: esc, el: el, flamePage: flamePage, flameStacks: flameStacks };
})();
