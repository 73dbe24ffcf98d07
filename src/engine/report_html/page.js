// memlint report: the views that need a script (decisions over time, find,
// a record's page). Record text is untrusted: every piece of it goes into
// the page as text (textContent, text nodes); the one exception is a body,
// which memlint rendered from markdown with raw HTML shown as text and
// links kept only for http, https and mailto.
(function () {
  'use strict';
  var doc = document;
  var root = doc.documentElement;
  root.classList.add('js');
  // The data and the records' details are zlib-compressed JSON in base64
  // (a quarter of the bytes to read; base64 holds no `<` to end an
  // element); the browser's DecompressionStream reads them back.
  function inflate(b64) {
    var bin = atob(b64), bytes = new Uint8Array(bin.length);
    for (var k = 0; k < bin.length; k++) bytes[k] = bin.charCodeAt(k);
    var stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream('deflate'));
    return new Response(stream).text().then(JSON.parse);
  }
  inflate(doc.getElementById('data').textContent.trim()).then(start, function (e) {
    console.error('memlint report: the page data could not be read: ' + e);
  });

  function start(D) {
  // The data behind the page, for the curious (the console).
  window.memlint = { data: D };
  var N = D.p.length;
  D.st = D.st.map(function (n) { return D.sn[n]; });
  var KIND = D.kinds;
  var F_DRIFT = 1, F_ERR = 2, F_WARN = 4, F_DUP = 8, F_CUT = 16;
  var SVG = 'http://www.w3.org/2000/svg';

  function el(tag, cls, text) {
    var e = doc.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }
  function sv(tag, attrs) {
    var e = doc.createElementNS(SVG, tag);
    for (var k in attrs) e.setAttribute(k, attrs[k]);
    return e;
  }
  function link(i, text) {
    var a = el('a', null, text === undefined ? (D.t[i] || D.p[i]) : text);
    a.href = '#r/' + i;
    return a;
  }
  function badge(text, cls) { return el('span', 'badge ' + (cls || ''), text); }
  function day(s) {
    var m = /^(\d{4})-(\d{2})-(\d{2})/.exec(s || '');
    return m ? Date.UTC(+m[1], +m[2] - 1, +m[3]) / 864e5 : NaN;
  }
  function kindOf(i) { return KIND[D.k[i]]; }

  // ------------------------------------------------------------ lazy indexes
  var replacersOf = null, dupOf = null, slugIdx = null;
  function slugIndex() {
    if (!slugIdx) {
      slugIdx = new Map();
      for (var i = 0; i < N; i++) {
        var p = D.p[i], s = p.slice(p.lastIndexOf('/') + 1).replace(/\.md$/, '');
        slugIdx.set(kindOf(i) + ':' + s, i);
      }
    }
    return slugIdx;
  }
  function groupBy(list, key) {
    var m = new Map();
    for (var j = 0; j < list.length; j++) {
      var k = key(list[j]);
      if (!m.has(k)) m.set(k, []);
      m.get(k).push(list[j]);
    }
    return m;
  }
  function replacers(i) {
    if (!replacersOf) {
      replacersOf = new Map();
      for (var j = 0; j < N; j++) if (D.rb[j] >= 0) {
        if (!replacersOf.has(D.rb[j])) replacersOf.set(D.rb[j], []);
        replacersOf.get(D.rb[j]).push(j);
      }
    }
    return replacersOf.get(i) || [];
  }
  function srcText(s) { return Array.isArray(s) ? s[0] : s; }
  function duplicates(i) {
    if (!dupOf) {
      dupOf = new Map();
      D.dup.forEach(function (d) {
        [[d[0], d[1]], [d[1], d[0]]].forEach(function (ab) {
          if (!dupOf.has(ab[0])) dupOf.set(ab[0], []);
          dupOf.get(ab[0]).push([ab[1], d[2]]);
        });
      });
    }
    return dupOf.get(i) || [];
  }
  // A record's details — [body HTML, sources, findings, replaced_by as
  // written, cited by] — sit in compressed chunks of D.chunk records, read
  // once, when one of their records is opened.
  var chunks = {};
  function details(i) {
    var c = Math.floor(i / D.chunk);
    if (!chunks[c]) chunks[c] = inflate(doc.getElementById('b' + c).textContent.trim());
    return chunks[c].then(function (all) { return all[i - c * D.chunk]; });
  }
  // Follows replaced_by to the record in force (a cycle stops the walk).
  function headOf(i) {
    var seen = 0;
    while (D.rb[i] >= 0 && seen++ < 1000) i = D.rb[i];
    return i;
  }

  // ------------------------------------------------------------ a chain drawn
  // One row of the timeline: the decisions of one chain on the time axis,
  // an arc from each to the one that replaced it, the head highlighted.
  function chainSvg(members, scale, width, height) {
    var svg = sv('svg', { width: width, height: height, viewBox: '0 0 ' + width + ' ' + height, 'class': 'chain', role: 'img' });
    var head = headOf(members[0]);
    var title = sv('title', {});
    title.textContent = 'Chain of ' + members.length + ' decision' + (members.length === 1 ? '' : 's') + ' ending at ' + (D.t[head] || D.p[head]);
    svg.appendChild(title);
    var y = height - 14;
    var x = function (i) { var d = day(D.d[i]); return isNaN(d) ? 8 : scale(d); };
    members.forEach(function (m) {
      var t = D.rb[m];
      if (t < 0) return;
      var x1 = x(m), x2 = x(t), mid = (x1 + x2) / 2, lift = Math.min(height - 20, 10 + Math.abs(x2 - x1) / 6);
      svg.appendChild(sv('path', { d: 'M' + x1 + ' ' + y + ' Q' + mid + ' ' + (y - lift * 2) + ' ' + x2 + ' ' + y, 'class': 'edge', 'marker-end': 'url(#arrow)' }));
    });
    members.forEach(function (m) {
      var a = sv('a', { href: '#r/' + m, 'class': 'node' + (m === head && D.st[m] !== 'replaced' ? ' head' : '') });
      var tt = sv('title', {});
      tt.textContent = (D.d[m] || 'no date') + ' — ' + (D.t[m] || D.p[m]) + (D.rb[m] >= 0 ? ' (replaced by ' + (D.t[D.rb[m]] || D.p[D.rb[m]]) + ')' : '');
      a.appendChild(tt);
      a.appendChild(sv('circle', { cx: x(m), cy: y, r: m === head ? 7 : 5 }));
      svg.appendChild(a);
    });
    return svg;
  }
  function defs() {
    var svg = sv('svg', { width: 0, height: 0, 'aria-hidden': 'true', 'class': 'defs' });
    var marker = sv('marker', { id: 'arrow', viewBox: '0 0 10 10', refX: 9, refY: 5, markerWidth: 6, markerHeight: 6, orient: 'auto-start-reverse' });
    marker.appendChild(sv('path', { d: 'M0 0 L10 5 L0 10 z', 'class': 'arrowhead' }));
    var d = sv('defs', {});
    d.appendChild(marker);
    svg.appendChild(d);
    doc.body.appendChild(svg);
  }

  // ------------------------------------------------------------ virtual list
  // Only the rows in sight are in the DOM: 100k records scroll like 10.
  function VList(box, rowH, draw) {
    this.box = box; this.rowH = rowH; this.draw = draw; this.items = [];
    this.spacer = el('div', 'spacer');
    box.appendChild(this.spacer);
    this.active = -1;
    var self = this, queued = false;
    box.addEventListener('scroll', function () {
      if (queued) return;
      queued = true;
      requestAnimationFrame(function () { queued = false; self.paint(); });
    });
  }
  VList.prototype.set = function (items) {
    this.items = items;
    this.active = items.length ? 0 : -1;
    this.spacer.style.height = (items.length * this.rowH) + 'px';
    this.box.scrollTop = 0;
    this.paint();
  };
  VList.prototype.paint = function () {
    var top = this.box.scrollTop, h = this.box.clientHeight || 600;
    var first = Math.max(0, Math.floor(top / this.rowH) - 4);
    var last = Math.min(this.items.length, Math.ceil((top + h) / this.rowH) + 4);
    var frag = doc.createDocumentFragment();
    for (var k = first; k < last; k++) {
      var row = this.draw(this.items[k], k);
      row.style.top = (k * this.rowH) + 'px';
      row.style.height = this.rowH + 'px';
      if (k === this.active) row.classList.add('active');
      frag.appendChild(row);
    }
    this.spacer.replaceChildren(frag);
    if (this.active >= 0) this.box.setAttribute('aria-activedescendant', 'row-' + this.active);
    else this.box.removeAttribute('aria-activedescendant');
  };
  VList.prototype.move = function (to) {
    if (!this.items.length) return;
    this.active = Math.max(0, Math.min(this.items.length - 1, to));
    var y = this.active * this.rowH, b = this.box;
    if (y < b.scrollTop) b.scrollTop = y;
    else if (y + this.rowH > b.scrollTop + b.clientHeight) b.scrollTop = y + this.rowH - b.clientHeight;
    this.paint();
  };
  VList.prototype.keys = function (ev, open) {
    var page = Math.max(1, Math.floor(this.box.clientHeight / this.rowH) - 1);
    var moves = { ArrowDown: 1, ArrowUp: -1, PageDown: page, PageUp: -page };
    if (ev.key in moves) { this.move(this.active + moves[ev.key]); ev.preventDefault(); }
    else if (ev.key === 'Enter' && this.active >= 0) { open(this.items[this.active]); ev.preventDefault(); }
  };

  // ------------------------------------------------------------ find
  // The search text: every record's title, description, tags and path,
  // lowercased, in one string (records apart by NUL, which no record text
  // holds: memlint shows it as a symbol), and where each record starts.
  // One native indexOf over it per word finds the records that hold it.
  var find = null, hay = null, starts = null;
  function haystack() {
    if (!hay) {
      var parts = new Array(N);
      for (var i = 0; i < N; i++) {
        var tg = D.tg[i], tags = '';
        for (var k = 0; k < tg.length; k++) tags += ' ' + D.tn[tg[k]];
        parts[i] = D.t[i] + '\n' + D.ds[i] + '\n' + tags + '\n' + D.p[i];
      }
      hay = parts.join('\u0000').toLowerCase();
      starts = new Int32Array(N + 1);
      for (var r = 1, at = -1; r < N; r++) {
        at = hay.indexOf('\u0000', at + 1);
        starts[r] = at + 1;
      }
      starts[N] = hay.length + 1;
    }
    return hay;
  }
  // How many of `words` each record holds.
  function matches(words) {
    var H = haystack(), hits = new Uint8Array(N);
    words.forEach(function (w) {
      var from = 0, at;
      while ((at = H.indexOf(w, from)) >= 0) {
        var lo = 0, hi = N - 1;
        while (lo < hi) { var mid = (lo + hi + 1) >> 1; if (starts[mid] <= at) lo = mid; else hi = mid - 1; }
        hits[lo]++;
        from = starts[lo + 1];
      }
    });
    return hits;
  }
  function option(sel, value, text) {
    var o = el('option', null, text);
    o.value = value;
    sel.appendChild(o);
  }
  function labelled(text, control) {
    var l = el('label', null, text + ' ');
    l.appendChild(control);
    return l;
  }
  function buildFind() {
    var sec = doc.getElementById('find');
    var form = el('div', 'filters');
    form.setAttribute('role', 'search');
    var q = el('input'); q.type = 'search'; q.id = 'q'; q.placeholder = 'title, description, tag or path'; q.autocomplete = 'off';
    var fk = el('select'); fk.id = 'fk'; option(fk, '', 'any');
    var seenK = new Set(D.k);
    KIND.forEach(function (k, n) { if (seenK.has(n)) option(fk, k, k); });
    var fs = el('select'); fs.id = 'fs'; option(fs, '', 'any');
    Array.from(new Set(D.st)).filter(Boolean).sort().forEach(function (s) { option(fs, s, s); });
    var ft = el('input'); ft.id = 'ft'; ft.setAttribute('list', 'tag-names'); ft.placeholder = 'any'; ft.autocomplete = 'off';
    var dl = el('datalist'); dl.id = 'tag-names';
    D.tn.slice(0, 2000).forEach(function (t) { option(dl, t, t); });
    var fd = el('input'); fd.type = 'checkbox'; fd.id = 'fdr';
    var ff = el('input'); ff.type = 'checkbox'; ff.id = 'ffi';
    form.append(labelled('Search', q), labelled('Kind', fk), labelled('Status', fs), labelled('Tag', ft), dl);
    var c1 = el('label', 'check'); c1.append(fd, ' drifted');
    var c2 = el('label', 'check'); c2.append(ff, ' has findings');
    form.append(c1, c2);
    var count = el('p', 'count'); count.id = 'count'; count.setAttribute('aria-live', 'polite');
    var box = el('div', 'vlist'); box.id = 'list'; box.tabIndex = 0;
    box.setAttribute('role', 'listbox'); box.setAttribute('aria-label', 'Records found');
    var hint = el('p', 'hint', 'Type to search; ↑ ↓ choose a record, Enter opens it, / comes back to the search box.');
    sec.append(form, count, box, hint);
    var list = new VList(box, 60, findRow);
    var pending = false;
    function run() {
      pending = false;
      var words = q.value.toLowerCase().split(/\s+/).filter(Boolean);
      var kind = fk.value ? KIND.indexOf(fk.value) : -1, st = fs.value;
      var tag = ft.value.trim() ? D.tn.indexOf(ft.value.trim()) : -2;
      var needDrift = fd.checked, needFind = ff.checked;
      words = words.filter(function (w, k) { return words.indexOf(w) === k; }).slice(0, 255);
      var hits = words.length ? matches(words) : null, out = [];
      for (var i = 0; i < N; i++) {
        if (kind >= 0 && D.k[i] !== kind) continue;
        if (st && D.st[i] !== st) continue;
        if (tag !== -2 && D.tg[i].indexOf(tag) < 0) continue;
        if (needDrift && !(D.f[i] & F_DRIFT)) continue;
        if (needFind && !(D.f[i] & (F_ERR | F_WARN))) continue;
        if (hits && hits[i] !== words.length) continue;
        out.push(i);
      }
      count.textContent = out.length + (out.length === 1 ? ' record' : ' records') + (out.length === N ? '' : ' of ' + N);
      list.set(out);
    }
    function later() { if (!pending) { pending = true; requestAnimationFrame(run); } }
    [q, ft].forEach(function (x) { x.addEventListener('input', later); });
    [fk, fs, fd, ff].forEach(function (x) { x.addEventListener('change', later); });
    var open = function (i) { location.hash = '#r/' + i; };
    q.addEventListener('keydown', function (ev) { list.keys(ev, open); });
    box.addEventListener('keydown', function (ev) { list.keys(ev, open); });
    find = { q: q, ft: ft, fk: fk, fs: fs, fd: fd, ff: ff, run: run, list: list };
    run();
  }
  function findRow(i, k) {
    var a = link(i, '');
    a.className = 'row';
    a.id = 'row-' + k;
    a.setAttribute('role', 'option');
    a.tabIndex = -1;
    var top = el('span', 'r1');
    top.append(el('strong', 'title', D.t[i] || D.p[i]));
    var b = el('span', 'r2');
    b.append(badge(kindOf(i), 'kind'));
    if (D.st[i]) b.append(badge(D.st[i], 'st-' + D.st[i]));
    if (D.f[i] & F_DRIFT) b.append(badge('drifted', 'warn'));
    if (D.f[i] & F_ERR) b.append(badge('errors', 'bad'));
    else if (D.f[i] & F_WARN) b.append(badge('warnings', 'warn'));
    if (D.f[i] & F_DUP) b.append(badge('duplicate', 'warn'));
    if (D.d[i]) b.append(el('span', 'date', D.d[i]));
    b.append(el('span', 'path', D.p[i]));
    a.append(top, b);
    return a;
  }

  // ------------------------------------------------------------ timeline
  var timeline = null;
  function buildTimeline() {
    var sec = doc.getElementById('timeline');
    var dec = KIND.indexOf('decision'), groups = new Map(), lo = Infinity, hi = -Infinity, perMonth = new Map();
    for (var i = 0; i < N; i++) {
      if (D.k[i] !== dec) continue;
      var h = headOf(i);
      if (!groups.has(h)) groups.set(h, []);
      groups.get(h).push(i);
      var d = day(D.d[i]);
      if (!isNaN(d)) {
        lo = Math.min(lo, d); hi = Math.max(hi, d);
        var m = D.d[i].slice(0, 7);
        perMonth.set(m, (perMonth.get(m) || 0) + 1);
      }
    }
    var all = Array.from(groups.values());
    all.forEach(function (g) { g.sort(function (a, b) { return (D.d[a] < D.d[b]) ? -1 : (D.d[a] > D.d[b]) ? 1 : a - b; }); });
    var newest = function (g) { return D.d[g[g.length - 1]] || ''; };
    all.sort(function (a, b) { return b.length - a.length || (newest(a) < newest(b) ? 1 : newest(a) > newest(b) ? -1 : 0); });
    var chains = all.filter(function (g) { return g.length > 1; });
    var intro = el('p', 'lead');
    intro.textContent = groups.size === 0 ? 'No decisions yet.' :
      (all.reduce(function (n, g) { return n + g.length; }, 0)) + ' decisions; ' + chains.length +
      ' replacement chain' + (chains.length === 1 ? '' : 's') + '. Each row is one chain on the time axis: an arc runs from a decision to the one that replaced it, and the decision in force is the large filled dot.';
    var only = el('input'); only.type = 'checkbox'; only.id = 'only-chains'; only.checked = chains.length > 0;
    var lab = el('label', 'check'); lab.append(only, ' only chains (two or more decisions)');
    sec.append(intro, histogram(perMonth), lab);
    if (!groups.size) { timeline = {}; return; }
    if (!isFinite(lo)) { lo = 0; hi = 30; } else if (lo === hi) { lo -= 15; hi += 15; }
    var W = 640, pad = 12, scale = function (d) { return pad + (d - lo) / (hi - lo) * (W - 2 * pad); };
    sec.append(axis(lo, hi, scale, W));
    var box = el('div', 'vlist tl'); box.id = 'chains'; box.tabIndex = 0;
    box.setAttribute('role', 'listbox'); box.setAttribute('aria-label', 'Replacement chains, newest first');
    sec.append(box);
    var list = new VList(box, 72, function (g, k) {
      var row = el('div', 'trow');
      row.id = 'row-' + k;
      row.setAttribute('role', 'option');
      var head = headOf(g[0]);
      var label = el('div', 'tlabel');
      label.append(link(head), el('span', 'sub', g.length + ' decision' + (g.length === 1 ? '' : 's') + (D.d[head] ? ' · in force since ' + D.d[head] : '')));
      row.append(label, chainSvg(g, scale, W, 64));
      return row;
    });
    var show = function () { list.set(only.checked ? chains : all); };
    only.addEventListener('change', show);
    box.addEventListener('keydown', function (ev) { list.keys(ev, function (g) { location.hash = '#r/' + headOf(g[0]); }); });
    timeline = { list: list };
    show();
  }
  function axis(lo, hi, scale, W) {
    var svg = sv('svg', { width: W, height: 22, viewBox: '0 0 ' + W + ' 22', 'class': 'axis', 'aria-hidden': 'true' });
    var a = new Date(lo * 864e5), b = new Date(hi * 864e5);
    var months = (b.getUTCFullYear() - a.getUTCFullYear()) * 12 + b.getUTCMonth() - a.getUTCMonth() + 1;
    // Years when the range is long, months (every few) when it is short.
    var step = months > 24 ? 12 * Math.max(1, Math.ceil(months / 120)) : Math.max(1, Math.ceil(months / 10));
    var y = a.getUTCFullYear(), m = months > 24 ? 0 : a.getUTCMonth();
    for (var k = 0; k <= months + 12; k += step) {
      var t0 = Date.UTC(y, m + k, 1), x = scale(t0 / 864e5);
      // A label needs room to its right.
      if (x < 0 || x > W - 48) continue;
      var d = new Date(t0);
      svg.appendChild(sv('line', { x1: x, x2: x, y1: 14, y2: 22 }));
      var t = sv('text', { x: x + 3, y: 12 });
      t.textContent = months > 24 ? String(d.getUTCFullYear()) : d.toISOString().slice(0, 7);
      svg.appendChild(t);
    }
    var wrap = el('div', 'axisrow');
    wrap.append(el('div', 'tlabel'), svg);
    return wrap;
  }
  function histogram(perMonth) {
    var seen = Array.from(perMonth.keys()).sort(), months = [];
    // Every month from the first to the last, the empty ones too.
    if (seen.length) {
      var y = +seen[0].slice(0, 4), m = +seen[0].slice(5, 7) - 1, last = seen[seen.length - 1];
      for (var guard = 0; guard < 1200; guard++, m++) {
        var key = new Date(Date.UTC(y, m, 1)).toISOString().slice(0, 7);
        months.push(key);
        if (key >= last) break;
      }
    }
    var fig = el('figure', 'hist');
    if (!months.length) return fig;
    var max = Math.max.apply(null, Array.from(perMonth.values()));
    var W = Math.max(320, Math.min(960, months.length * 8)), H = 60, bw = W / months.length;
    var svg = sv('svg', { width: W, height: H, viewBox: '0 0 ' + W + ' ' + H, role: 'img' });
    var t = sv('title', {});
    t.textContent = 'Decisions per month, ' + months[0] + ' to ' + months[months.length - 1];
    svg.appendChild(t);
    months.forEach(function (m, k) {
      var n = perMonth.get(m) || 0, bh = n ? Math.max(1, n / max * (H - 4)) : 0;
      var r = sv('rect', { x: k * bw, y: H - bh, width: Math.max(1, bw - 1), height: bh });
      var tt = sv('title', {}); tt.textContent = m + ': ' + n;
      r.appendChild(tt);
      svg.appendChild(r);
    });
    var cap = el('figcaption', null, 'Decisions per month, ' + months[0] + ' to ' + months[months.length - 1] + ' (busiest month: ' + max + ')');
    fig.append(svg, cap);
    return fig;
  }

  // ------------------------------------------------------------ a record
  function section(parent, title, items, draw, empty) {
    parent.append(el('h3', null, title));
    if (!items.length) { parent.append(el('p', 'none', empty)); return; }
    var ul = el('ul', 'items');
    items.forEach(function (x) { var li = el('li'); draw(li, x); ul.append(li); });
    parent.append(ul);
  }
  function field(dl, name, value) {
    if (value === '' || value === null || value === undefined) return;
    dl.append(el('dt', null, name));
    var dd = el('dd');
    if (typeof value === 'string') dd.textContent = value; else dd.append(value);
    dl.append(dd);
  }
  function sourceItem(li, s) {
    var text = srcText(s), t = slugIndex().get(text);
    if (t !== undefined) li.append(link(t, text));
    else if (/^https?:\/\//i.test(text)) { var a = el('a', null, text); a.href = text; a.rel = 'noopener noreferrer'; li.append(a); }
    else li.append(el('code', null, text));
    if (Array.isArray(s)) li.append(' ', badge('drifted: the file changed since this record was written', 'warn'));
  }
  function history(parent, i) {
    section(parent, 'History', D.rh[i], function (li, c) {
      var cm = D.cm[c];
      li.append(el('code', null, cm[0].slice(0, 7)), ' ', el('span', 'date', cm[1].slice(0, 10)), ' ', el('span', null, cm[2]));
      cm[3].forEach(function (op) {
        var mine = op[1] + '.md' === D.p[i] || op[2] + '.md' === D.p[i];
        if (!mine) return;
        li.append(el('div', 'gc', 'Memlint-GC: ' + op[0] + ' ' + op[1] + (op[2] ? ' into ' + op[2] : '') + ' (' + op[3] + ')'));
      });
    }, 'No commit touched it (or the workspace is not in a git repository).');
  }
  var shown = -1;
  function showRecord(i) {
    var sec = doc.getElementById('record');
    sec.replaceChildren();
    delete sec.dataset.loaded;
    if (!(i >= 0 && i < N)) { sec.append(el('p', null, 'No such record.')); return; }
    var back = el('a', 'back', '← Find'); back.href = '#find';
    var h = el('h2', null, D.t[i] || D.p[i]); h.tabIndex = -1; h.id = 'record-title';
    var tags = el('span');
    D.tg[i].forEach(function (t) { var a = el('a', 'tag', D.tn[t]); a.href = '#find?tag=' + encodeURIComponent(D.tn[t]); tags.append(a, ' '); });
    var badges = el('p', 'badges');
    badges.append(badge(kindOf(i), 'kind'));
    if (D.st[i]) badges.append(badge(D.st[i], 'st-' + D.st[i]));
    if (D.f[i] & F_DRIFT) badges.append(badge('drifted', 'warn'));
    var dl = el('dl', 'fields');
    field(dl, 'path', D.p[i]);
    field(dl, 'date', D.d[i]);
    field(dl, 'description', D.ds[i]);
    if (D.tg[i].length) field(dl, 'tags', tags);
    if (D.rb[i] >= 0) field(dl, 'replaced by', link(D.rb[i]));
    sec.append(back, h, badges, dl);
    var mine = replacers(i);
    if (kindOf(i) === 'decision' && (D.rb[i] >= 0 || mine.length)) {
      var head = headOf(i), members = [];
      for (var j = 0; j < N; j++) if (D.k[j] === D.k[i] && headOf(j) === head) members.push(j);
      var lo = Infinity, hi = -Infinity;
      members.forEach(function (m) { var d = day(D.d[m]); if (!isNaN(d)) { lo = Math.min(lo, d); hi = Math.max(hi, d); } });
      if (!(lo < hi)) { lo = (isFinite(lo) ? lo : 0) - 15; hi = lo + 30; }
      sec.append(el('h3', null, 'Its chain'), chainSvg(members, function (d) { return 12 + (d - lo) / (hi - lo) * 616; }, 640, 64));
      // The same chain in words, oldest first.
      var ol = el('ol', 'chainlist');
      members.slice().sort(function (a, b) { return D.d[a] < D.d[b] ? -1 : D.d[a] > D.d[b] ? 1 : a - b; }).forEach(function (m) {
        var li = el('li');
        li.append(m === i ? el('strong', null, D.t[m] || D.p[m]) : link(m), ' ', el('span', 'date', D.d[m]));
        if (m === head && D.st[m] !== 'replaced') li.append(' ', badge('in force', 'st-active'));
        else if (D.rb[m] >= 0) li.append(el('span', 'date', ' → replaced by ' + (D.t[D.rb[m]] || D.p[D.rb[m]])));
        ol.append(li);
      });
      sec.append(ol);
    }
    var rest = el('div', 'rest', 'Loading…');
    sec.append(rest);
    shown = i;
    details(i).then(function (x) {
      if (shown !== i) return;
      rest.replaceChildren();
      if (D.rb[i] < 0 && x[3]) field(dl, 'replaced by', x[3] + ' (no such record)');
      rest.append(el('h3', null, 'Body'));
      var md = el('div', 'md body');
      md.innerHTML = x[0]; // rendered by memlint: inert (see the note at the top)
      rest.append(md);
      if (D.f[i] & F_CUT) rest.append(el('p', 'more', 'The body is cut here to keep the page quick; the full text is in ' + D.p[i] + '.'));
      section(rest, 'Replaces', mine, function (li, j) { li.append(link(j), ' ', el('span', 'date', D.d[j])); }, 'Replaces no record.');
      section(rest, 'Cited by', x[4], function (li, j) { li.append(link(j)); }, 'No record cites it.');
      section(rest, 'Sources', x[1], sourceItem, 'No sources.');
      section(rest, 'Findings', x[2], function (li, f) {
        li.append(badge(f[1] ? 'warning' : 'error', f[1] ? 'warn' : 'bad'), ' ', el('code', null, f[0]), ' line ' + f[2] + ': ', el('span', null, f[3]));
      }, 'No findings.');
      section(rest, 'Nearly the same as', duplicates(i), function (li, d) { li.append(link(d[0]), ' (' + d[1] + '% alike)'); }, 'No near-duplicate.');
      history(rest, i);
      sec.dataset.loaded = String(i);
    });
    h.focus();
  }

  // ------------------------------------------------------------ routing
  function route() {
    var hash = location.hash || '#overview', view = hash.slice(1).split(/[/?]/)[0];
    if (view === 'r') view = 'record';
    if (['overview', 'timeline', 'find', 'record'].indexOf(view) < 0) view = 'overview';
    Array.prototype.forEach.call(doc.querySelectorAll('main > .view'), function (s) { s.classList.toggle('on', s.id === view); });
    Array.prototype.forEach.call(doc.querySelectorAll('nav a[data-view]'), function (a) {
      if (a.dataset.view === view) a.setAttribute('aria-current', 'page'); else a.removeAttribute('aria-current');
    });
    if (view === 'find') {
      if (!find) buildFind();
      var tag = /[?&]tag=([^&]*)/.exec(hash);
      if (tag) { find.ft.value = decodeURIComponent(tag[1]); find.run(); }
      find.q.focus();
    } else if (view === 'timeline') {
      if (!timeline) buildTimeline();
    } else if (view === 'record') {
      showRecord(parseInt(hash.slice(3), 10));
    }
    if (view !== 'record') window.scrollTo(0, 0);
  }
  window.addEventListener('hashchange', route);
  doc.addEventListener('keydown', function (ev) {
    var t = ev.target && ev.target.tagName;
    if (ev.key === '/' && t !== 'INPUT' && t !== 'SELECT' && t !== 'TEXTAREA') {
      ev.preventDefault();
      if (location.hash === '#find' && find) find.q.focus(); else location.hash = '#find';
    }
  });
  defs();
  route();
  root.dataset.readyMs = String(Math.round(performance.now()));
  root.dataset.ready = '1';
  // The search text of every record, made while the reader looks at the
  // overview, so that the first search is as quick as the next.
  (window.requestIdleCallback || setTimeout)(function () { haystack(); });
  }
})();
