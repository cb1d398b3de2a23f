// How the page draws what model.js made: operations with their attempts, the chart of
// requests per second, verdicts with links to the requests that prove them. Shared by the
// live page (live.js) and the saved run's page (report.js).
//
// Everything a client or a server chose (keys, paths, payload fields, operations, error
// details) is set as text (textContent, text nodes), never parsed as HTML: a key such as
// <img src=x onerror=alert(1)> shows as itself. Control bytes are shown as \xNN, so that a
// key's invisible bytes are seen.
(function (global) {
  'use strict';
  const Model = global.RetryproofModel;
  const HELD_MS = 50;  // an answer later than this after arrival shows as held

  // An element with attributes and children. `attrs` are set with setAttribute, except
  // `text` (textContent) and `className`; names beginning with "on" are refused, so that no
  // caller can attach script through data.
  function h(tag, attrs, children) {
    const element = document.createElement(tag);
    setAll(element, attrs);
    append(element, children);
    return element;
  }

  function setAll(element, attrs) {
    for (const [name, value] of Object.entries(attrs || {})) {
      if (value === null || value === undefined || value === false) continue;
      if (/^on/i.test(name)) throw new Error('h(): event attribute ' + name + ' refused; use addEventListener');
      if (name === 'text') element.textContent = String(value);
      else if (name === 'className') element.setAttribute('class', value);
      else element.setAttribute(name, value === true ? '' : String(value));
    }
  }

  function append(element, children) {
    for (const child of [].concat(children === undefined ? [] : children)) {
      if (child === null || child === undefined || child === false) continue;
      element.append(typeof child === 'string' || typeof child === 'number' ? document.createTextNode(String(child)) : child);
    }
  }

  // A client's bytes as text, control characters as \xNN.
  function visible(text) {
    if (text === null || text === undefined) return '';
    return String(text).replace(/[\u0000-\u001f\u007f]/g, (c) => '\\x' + c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0'));
  }

  // A key or an operation in a <code>, as text.
  function code(text, className) {
    return h('code', { className: className || 'bytes', text: visible(text) });
  }

  function ms(value) {
    if (value === null || value === undefined) return '';
    return value >= 10000 ? (value / 1000).toFixed(1) + ' s' : value + ' ms';
  }

  function percent(rate) {
    return rate === null || rate === undefined ? '–' : (rate * 100).toFixed(1) + ' %';
  }

  // `prefix` keeps ids apart when one page shows several journals (the saved run).
  function seqId(prefix, seq) {
    return (prefix || '') + 'seq-' + seq;
  }

  // One attempt: "#3 +1200 ms key K fault F → 503, held 2 ms job J".
  function attempt(entry, options) {
    const fault = Model.isFault(entry.fault) ? entry.fault : null;
    const category = Model.category(entry);
    const held = Model.hold(entry);
    const cited = options.cited && options.cited.has(entry.seq);
    return h('li', {
      id: seqId(options.prefix, entry.seq),
      className: 'attempt ' + category + (cited ? ' cited' : ''),
      'data-seq': entry.seq,
      'data-category': category,
      tabindex: '-1',
    }, [
      h('span', { className: 'seq', text: '#' + entry.seq }),
      h('span', { className: 'at', text: '+' + ms(entry.atMs) }),
      entry.kind === 'create' || entry.kind === 'lookup' ? null : h('span', { className: 'path', text: visible(entry.method + ' ' + entry.path) }),
      entry.key === null || entry.key === undefined ? h('span', { className: 'nokey', text: 'no key' }) : h('span', { className: 'key' }, ['key ', code(entry.key)]),
      fault ? h('span', { className: 'fault', text: 'fault ' + fault }) : null,
      h('span', { className: 'outcome', text: visible(entry.outcome) }),
      h('span', { className: 'got', text: '→ ' + Model.got(entry) }),
      // A wait the client would notice (a delay fault, a slowdown), not the server's own work.
      held !== null && held >= HELD_MS ? h('span', { className: 'hold', text: 'held ' + ms(held) }) : null,
      entry.upstreamStatus !== undefined && entry.upstreamStatus !== null ? h('span', { className: 'upstream', text: 'upstream ' + entry.upstreamStatus }) : null,
      entry.upstreamError ? h('span', { className: 'upstream', text: 'upstream ' + visible(entry.upstreamError) }) : null,
      entry.jobId ? h('span', { className: 'job' }, ['job ', code(entry.jobId)]) : null,
    ]);
  }

  // At most SHOWN_ATTEMPTS of an operation's attempts are drawn, the first and the last
  // halves: an operation a load test repeats thousands of times stays cheap to draw.
  const SHOWN_ATTEMPTS = 40;

  function attemptList(entries, options, empty) {
    if (entries.length === 0) return h('p', { className: 'none', text: empty });
    const half = SHOWN_ATTEMPTS / 2;
    const items = entries.length <= SHOWN_ATTEMPTS ? entries.map((entry) => attempt(entry, options))
      : entries.slice(0, half).map((entry) => attempt(entry, options))
        .concat([h('li', { className: 'omitted', text: '… ' + (entries.length - SHOWN_ATTEMPTS) + ' more attempts …' })])
        .concat(entries.slice(-half).map((entry) => attempt(entry, options)));
    return h('ol', { className: 'attempts' }, items);
  }

  // Operations as table rows: the operation, its creates in order, the lookups beside them,
  // the jobs it created. An operation with two or more jobs is marked, in words and colour.
  // options: {prefix, cited: Set of seqs, limit, caption}
  function operationsTable(operations, options) {
    const settings = options || {};
    const shown = settings.limit ? operations.slice(0, settings.limit) : operations;
    const rows = shown.map((op) => {
      const duplicate = op.jobs.length >= 2;
      const jobs = op.jobs.length === 0 ? h('span', { className: 'none', text: 'none' }) :
        h('ul', { className: 'jobs' }, op.jobs.map((job) => h('li', {}, [code(job)])));
      const others = op.others.length ? attemptList(op.others, settings, '') : null;
      return h('tr', {
        className: 'operation' + (duplicate ? ' duplicate' : '') + (op.succeeded ? ' succeeded' : ''),
        'data-operation': op.label,
        'data-jobs': op.jobs.length,
      }, [
        h('th', { scope: 'row' }, [
          h('span', { className: 'what', text: op.byOperation ? 'operation ' : 'key ' }), code(op.label),
          duplicate ? h('strong', { className: 'mark', text: op.jobs.length + ' jobs: a duplicated effect' }) : null,
          op.omitted ? h('span', { className: 'omitted', text: op.omitted + ' more requests not shown' }) : null,
        ]),
        h('td', { className: 'creates' }, [attemptList(op.creates, settings, 'no create'), others]),
        h('td', { className: 'lookups' }, [attemptList(op.lookups, settings, 'no lookup')]),
        h('td', { className: 'jobs' }, [jobs]),
      ]);
    });
    return h('table', { className: 'operations' }, [
      settings.caption ? h('caption', { text: settings.caption }) : null,
      h('thead', {}, [h('tr', {}, [
        h('th', { scope: 'col', text: 'Operation' }),
        h('th', { scope: 'col', text: 'Creates, in order' }),
        h('th', { scope: 'col', text: 'Lookups that reconcile it' }),
        h('th', { scope: 'col', text: 'Jobs created' }),
      ])]),
      h('tbody', {}, rows.length ? rows : [h('tr', {}, [h('td', { colspan: '4', className: 'none', text: 'no operations yet' })])]),
    ]);
  }

  // Requests per second, stacked by what happened to them: a bar of blocks per second, each
  // block's height set through the style object (which a Content-Security-Policy without
  // 'unsafe-inline' allows, where a style attribute would not be), with the numbers in a
  // table beside it (what a screen reader reads, and a test checks).
  function chart(buckets, title) {
    const max = Math.max(1, ...buckets.map((b) => b.total));
    const bars = buckets.map((bucket) => {
      const blocks = [];
      for (const c of Model.CATEGORIES) {
        const n = bucket.counts[c.id];
        if (!n) continue;
        const block = h('span', { className: 'block c-' + c.id, title: 'second ' + bucket.second + ': ' + n + ' ' + c.label });
        block.style.height = ((n / max) * 100).toFixed(2) + '%';
        blocks.push(block);
      }
      const data = { className: 'bucket', 'data-second': bucket.second, 'data-total': bucket.total };
      for (const c of Model.CATEGORIES) data['data-' + c.id] = bucket.counts[c.id];
      return h('div', data, blocks);
    });
    // A provider with a capacity journals each request's queue: its deepest per second, and
    // what it shed, under the bars.
    const queued = buckets.some((b) => b.queue !== null && b.queue !== undefined);
    const deepest = Math.max(1, ...buckets.map((b) => b.queue || 0));
    const legend = h('ul', { className: 'legend' }, Model.CATEGORIES.map((c) => h('li', { className: 'c-' + c.id, title: c.help }, [h('span', { className: 'swatch c-' + c.id, 'aria-hidden': 'true' }), c.label])));
    const extra = queued ? [['shed', (b) => b.shed || 0], ['deepest queue', (b) => (b.queue === null || b.queue === undefined ? '' : b.queue)]] : [];
    const table = h('table', { className: 'buckets' }, [
      h('thead', {}, [h('tr', {}, [h('th', { scope: 'col', text: 'second' })].concat(Model.CATEGORIES.map((c) => h('th', { scope: 'col', text: c.label }))).concat([h('th', { scope: 'col', text: 'all' })]).concat(extra.map(([name]) => h('th', { scope: 'col', text: name }))))]),
      h('tbody', {}, buckets.map((b) => h('tr', { 'data-second': b.second }, [h('th', { scope: 'row', text: String(b.second) })].concat(Model.CATEGORIES.map((c) => h('td', { 'data-category': c.id, text: String(b.counts[c.id]) }))).concat([h('td', { text: String(b.total) })]).concat(extra.map(([name, of]) => h('td', { 'data-category': name === 'shed' ? 'shed' : 'queue', text: String(of(b)) })))))),
    ]);
    return h('figure', { className: 'chart' }, [
      h('figcaption', { text: title + ' (the tallest bar: ' + max + ')' + (queued ? '; below, the provider\'s queue, deepest per second (the deepest: ' + deepest + ')' : '') }),
      h('div', { className: 'bars', role: 'img', 'aria-label': title }, bars),
      queued ? levelRow(buckets.map((b) => ({ second: b.second, value: b.queue || 0, title: 'second ' + b.second + ': queue ' + (b.queue || 0) + ' deep, ' + (b.shed || 0) + ' shed' })), 'queue', 'The provider\'s queue, deepest per second') : null,
      legend,
      h('details', { className: 'numbers' }, [h('summary', { text: 'The chart\'s numbers' }), table]),
    ]);
  }

  // One series as a row of bars, each by its share of the row's largest value: [{second,
  // value, title, marked}]; a marked bar (in a trigger) carries the class "marked".
  function levelRow(points, id, label) {
    const top = Math.max(1, ...points.map((p) => p.value));
    return h('div', { className: 'bars level', 'data-series': id, role: 'img', 'aria-label': label }, points.map((p) => {
      const bar = h('div', { className: 'bucket' + (p.marked ? ' marked' : ''), 'data-second': p.second, 'data-value': p.value });
      if (p.value > 0) {
        const block = h('span', { className: 'block c-' + id, title: p.title });
        block.style.height = ((p.value / top) * 100).toFixed(2) + '%';
        bar.append(block);
      }
      return bar;
    }));
  }

  // A traffic scenario's seconds (the JSON report's "traffic"): a row a series, the trigger's
  // seconds marked, and the time to recover as the report words it.
  const TRAFFIC_SERIES = [
    { id: 'offered', label: 'offered', help: 'operations that arrived' },
    { id: 'succeeded', label: 'goodput', help: 'operations that arrived and succeeded' },
    { id: 'creates', label: 'creates', help: 'create requests the provider saw' },
    { id: 'lookups', label: 'lookups', help: 'lookups the provider saw: reconciliation after an outcome the client could not see' },
    { id: 'shed', label: 'shed', help: 'requests refused past the provider\'s capacity' },
    { id: 'queueDepth', label: 'queue', help: 'the deepest queue a request met on arrival' },
  ];

  function trafficChart(traffic) {
    const seconds = Array.isArray(traffic.seconds) ? traffic.seconds : [];
    const trigger = traffic.trigger;
    const rows = TRAFFIC_SERIES.map((series) => {
      const points = seconds.map((s) => ({
        second: s.startMs / 1000, value: Number(s[series.id]) || 0, marked: Boolean(s.inTrigger),
        title: 'second ' + s.startMs / 1000 + ': ' + (Number(s[series.id]) || 0) + ' ' + series.label,
      }));
      const top = Math.max(0, ...points.map((p) => p.value));
      return h('div', { className: 'series', title: series.help }, [
        h('span', { className: 'series-name', text: series.label + ' (' + (series.id === 'queueDepth' ? 'deepest ' : 'peak ') + top + ')' }),
        levelRow(points, series.id, series.label + ' per second'),
      ]);
    });
    const table = h('table', { className: 'buckets traffic' }, [
      h('thead', {}, [h('tr', {}, [h('th', { scope: 'col', text: 'second' })].concat(TRAFFIC_SERIES.map((c) => h('th', { scope: 'col', text: c.label }))))]),
      h('tbody', {}, seconds.map((s) => h('tr', { 'data-second': s.startMs / 1000, className: s.inTrigger ? 'marked' : null }, [h('th', { scope: 'row', text: String(s.startMs / 1000) + (s.inTrigger ? '*' : '') })].concat(TRAFFIC_SERIES.map((c) => h('td', { 'data-series': c.id, text: String(Number(s[c.id]) || 0) })))))),
    ]);
    return h('figure', { className: 'chart traffic' }, [
      h('figcaption', { text: 'Traffic per second' + (trigger ? ', the trigger from ' + ms(trigger.fromMs) + ' to ' + ms(trigger.untilMs) + ' marked' : '') }),
      h('div', { className: 'series-rows' }, rows),
      traffic.recoveryText ? h('p', { className: 'recovery', 'data-recovery': visible(traffic.recovery), 'data-recovered-after-ms': traffic.recoveredAfterMs, text: visible(traffic.recoveryText) }) : null,
      h('details', { className: 'numbers' }, [h('summary', { text: 'The traffic\'s numbers (* in the trigger)' }), table]),
    ]);
  }

  function rates(totals) {
    return h('dl', { className: 'rates' }, [
      h('dt', { text: 'requests' }), h('dd', { 'data-rate': 'requests', text: String(totals.requests) }),
      h('dt', { text: 'operations', title: 'operations this page has read since it opened, each counted once' }),
      h('dd', { 'data-rate': 'operations', text: String(totals.operations) }),
      h('dt', { text: 'succeeded', title: 'operations whose client got a whole 2xx answer naming a job' }),
      h('dd', { 'data-rate': 'success', text: percent(totals.successRate) + ' (' + totals.succeeded + ')' }),
      h('dt', { text: 'duplicated', title: 'operations with two or more jobs' }),
      h('dd', { className: totals.duplicated ? 'bad' : '', 'data-rate': 'duplicate', text: percent(totals.duplicateRate) + ' (' + totals.duplicated + ')' }),
    ]);
  }

  // Verdicts as a list; each cited seq is a link that calls onEvidence(verdict, seqs, seq).
  function verdictList(verdicts, onEvidence) {
    return h('ul', { className: 'verdicts' }, verdicts.map((verdict) => {
      const seqs = Array.isArray(verdict.evidence) ? verdict.evidence : [];
      const links = seqs.map((seq) => {
        const link = h('a', { href: '#', className: 'evidence', 'data-seq': seq, text: 'seq ' + seq });
        link.addEventListener('click', (event) => {
          event.preventDefault();
          onEvidence(verdict, seqs, seq);
        });
        return link;
      });
      return h('li', { className: 'verdict ' + verdict.status, 'data-verdict': verdict.id, 'data-status': verdict.status }, [
        h('span', { className: 'status', text: verdict.status }),
        h('span', { className: 'id', text: visible(verdict.id) }),
        verdict.severity && verdict.status === 'fail' ? h('span', { className: 'severity', text: visible(verdict.severity) }) : null,
        h('span', { className: 'explanation', text: visible(verdict.explanation) }),
        links.length ? h('span', { className: 'proof' }, ['proved by '].concat(links.flatMap((link, i) => i ? [', ', link] : [link]))) : null,
      ]);
    }));
  }

  // Marks the attempts `seqs` cited, un-marks the others under `root`, and focuses `focus`.
  function cite(root, prefix, seqs, focus) {
    for (const marked of root.querySelectorAll('.attempt.cited')) marked.classList.remove('cited');
    for (const seq of seqs) {
      const element = document.getElementById(seqId(prefix, seq));
      if (element) element.classList.add('cited');
    }
    const target = document.getElementById(seqId(prefix, focus));
    if (target) {
      target.scrollIntoView({ block: 'center' });
      target.focus();
    }
    return target;
  }

  global.RetryproofView = {
    h: h,
    appendAll: append,
    visible: visible,
    code: code,
    ms: ms,
    percent: percent,
    seqId: seqId,
    attempt: attempt,
    attemptList: attemptList,
    operationsTable: operationsTable,
    chart: chart,
    trafficChart: trafficChart,
    rates: rates,
    verdictList: verdictList,
    cite: cite,
  };
})(typeof globalThis !== 'undefined' ? globalThis : this);
