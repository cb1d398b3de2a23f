// The live page (GET /_test/ui): follows the journal a page at a time from the last seq it
// has (never the whole journal again), the plan in force and the verdicts, and draws them
// with view.js. The control token, when the server has one, is typed into the page, kept in
// this script's memory only, and sent in the Authorization header of each data call: never
// in a URL, never stored, never logged.
//
// Unknown is not none: while the page cannot read the server (no token, a wrong one, the
// server gone, an error), every section says "unknown: <why>" where its numbers would be,
// never "None", "0" or "no operations yet", which would be claims about traffic it did not see.
(function () {
  'use strict';
  const Model = globalThis.RetryproofModel;
  const View = globalThis.RetryproofView;
  const h = View.h;

  const PAGE = 1000;              // entries per journal request
  // At most this many journal requests a second: each is read and written under the
  // server's lock, so the page's cost to the data plane stays bounded whatever the load.
  const PAGES_PER_TICK = 3;
  // Further behind than this (traffic faster than the page reads), it jumps to the newest
  // entries, and says how many it skipped: live beats complete.
  const SKIP_BEHIND = 15 * PAGE;
  const TAIL = 20000;             // a longer journal is followed from its last TAIL entries
  const JUDGE_LIMIT = 100000;     // above it, verdicts (which read the whole journal) on demand only
  const TICK_MS = 1000;
  const PLAN_EVERY_MS = 2000;
  const VERDICTS_EVERY_MS = 5000;
  const SHOWN_OPERATIONS = 100;

  const state = {
    token: '',
    needToken: false,
    paused: false,
    started: false,
    after: 0,          // the last seq read
    skipped: 0,        // seqs not read, on a journal longer than TAIL at the start
    overtaken: 0,      // seqs not read since, to keep up with traffic faster than the page
    last: 0,           // the journal's last seq, as its last page said
    lastAtTick: 0,     // and as it was at the start of the tick before
    count: 0,          // the journal's entries, as its last page said
    planAt: 0,
    plan: null,
    verdictsAt: 0,
    verdictsCount: -1, // the journal's count when last judged
    verdicts: null,
    cited: new Set(),
    drawn: -1,
    error: '',
    unknown: null,     // {cause, words} while the server cannot be read; null once it can
  };

  // Why the page cannot read, by cause: the words shown where the numbers would be, and what
  // to do about it. ui-snapshot's relay answers 502 server_unreachable for a server gone.
  const UNKNOWN = {
    'token-missing': { words: 'unknown: the control token is missing', fix: 'enter it above' },
    'token-wrong': { words: 'unknown: wrong token', fix: 'the server refused the control token given; enter the right one above' },
    unreachable: { words: 'unknown: server unreachable', fix: 'the page tries again every second' },
    error: { words: 'unknown: the server could not answer', fix: 'the page tries again every second' },
  };
  let model = new Model.JournalModel();

  class ApiError extends Error {
    constructor(status, message, cause) {
      super(message);
      this.status = status;
      this.cause = cause;  // a key of UNKNOWN
    }
  }

  async function api(path, options) {
    const settings = options || {};
    const headers = {};
    if (state.token) headers.Authorization = 'Bearer ' + state.token;
    if (settings.body !== undefined) headers['Content-Type'] = 'application/json';
    let response;
    try {
      response = await fetch(path, {
        method: settings.method || 'GET',
        headers: headers,
        body: settings.body,
        cache: 'no-store',
        credentials: 'omit',
        redirect: 'error',
      });
    } catch (problem) {  // no answer at all: the server is gone, or the network between
      throw new ApiError(0, 'the server is unreachable (' + (problem.message || problem) + ')', 'unreachable');
    }
    const text = await response.text();
    let body = null;
    try {
      body = JSON.parse(text);
    } catch (ignored) {
      body = null;
    }
    const detail = (body && (body.detail || (body.error && body.error.message) || body.error)) || text;
    if (response.status === 401) {
      state.needToken = true;
      // The server says which (a relay such as ui-snapshot's may have sent a token the page
      // never held); from an older server, whether the page sent one.
      const wrong = /control token is wrong/.test(detail) || (!/control token is missing/.test(detail) && Boolean(state.token));
      throw wrong
        ? new ApiError(401, 'the server refused the control token: enter the right one (' + detail + ')', 'token-wrong')
        : new ApiError(401, 'this server needs its control token: enter it above (' + detail + ')', 'token-missing');
    }
    if (body && body.error === 'server_unreachable') throw new ApiError(response.status, detail, 'unreachable');
    if (!response.ok) throw new ApiError(response.status, 'the server answered ' + response.status + ': ' + detail, 'error');
    state.needToken = false;
    state.unknown = null;  // read: what follows is drawn from what the server said
    return body;
  }

  function lastSeqOf(page) {
    return page.count + (page.dropped || 0);
  }

  async function followJournal() {
    if (!state.started) {
      const probe = await api('/_test/journal?after=0&limit=1');
      const last = lastSeqOf(probe);
      state.after = last > TAIL ? last - TAIL : 0;
      state.skipped = state.after;
      state.last = last;
      state.lastAtTick = last;
      state.started = true;
    }
    // Losing ground: the journal grew by more than a tick reads, and the page is far behind.
    const growth = state.last - state.lastAtTick;
    state.lastAtTick = state.last;
    for (let i = 0; i < PAGES_PER_TICK; i += 1) {
      if (i === 0 && growth > PAGES_PER_TICK * PAGE && state.last - state.after > SKIP_BEHIND) {
        const to = state.last - PAGES_PER_TICK * PAGE;
        state.overtaken += to - state.after;
        state.after = to;
      }
      const page = await api('/_test/journal?after=' + state.after + '&limit=' + PAGE);
      state.count = page.count;
      state.last = lastSeqOf(page);
      if (lastSeqOf(page) < state.after) {  // the journal was reset: start again
        model = new Model.JournalModel();
        state.after = 0;
        state.skipped = 0;
        state.overtaken = 0;
        state.last = 0;
        state.lastAtTick = 0;
        state.cited = new Set();
        state.verdictsCount = -1;
        continue;
      }
      model.add(page.entries);
      if (page.entries.length) state.after = page.entries[page.entries.length - 1].seq;
      if (page.next === undefined) break;
    }
    // Held requests are journaled on arrival and answered later: read their span again.
    const held = model.heldSeqs();
    if (held.length) {
      const span = Math.min(PAGE, state.after - held[0] + 1);
      if (span > 0) model.add((await api('/_test/journal?after=' + (held[0] - 1) + '&limit=' + span)).entries);
    }
  }

  async function followPlan(now) {
    if (now - state.planAt < PLAN_EVERY_MS) return;
    state.planAt = now;
    state.plan = await api('/_test/faults');
    drawPlan();
  }

  async function judge(force) {
    const now = Date.now();
    if (!force) {
      if (state.count > JUDGE_LIMIT || now - state.verdictsAt < VERDICTS_EVERY_MS) return;
      if (state.count === state.verdictsCount) return;
    }
    state.verdictsAt = now;
    state.verdictsCount = state.count;
    const report = await api('/_test/verdicts?format=json');
    const scenario = report && report.scenarios && report.scenarios[0];
    state.verdicts = scenario ? scenario.verdicts : [];
    drawVerdicts();
  }

  async function tick() {
    try {
      if (!state.paused && !(state.needToken && !state.token)) {
        await followJournal();
        await followPlan(Date.now());
        await judge(false);
        state.error = '';
        state.unknown = null;
      }
    } catch (problem) {
      state.error = problem.message || String(problem);
      becomeUnknown(problem.cause || 'error');
    }
    draw();
    setTimeout(tick, TICK_MS);
  }

  // What was drawn from an earlier reading no longer stands: the plan and the verdicts are
  // asked for again, and everything drawn again, once the server can be read.
  function becomeUnknown(cause) {
    state.unknown = { cause: cause, words: UNKNOWN[cause].words, fix: UNKNOWN[cause].fix };
    state.plan = null;
    state.verdicts = null;
    state.planAt = 0;
    state.verdictsAt = 0;
    state.verdictsCount = -1;
  }

  function unknownNotice() {
    return h('p', { className: 'unknown', 'data-unknown': state.unknown.cause },
      [h('strong', { text: state.unknown.words }), ' — ' + state.unknown.fix + '.']);
  }

  // Every section that shows a number or a claim about the traffic says it is unknown.
  function drawUnknown() {
    for (const id of ['rates', 'duplicate-list', 'verdict-list', 'plan-view', 'operation-list'])
      document.getElementById(id).replaceChildren(unknownNotice());
    document.getElementById('chart').replaceChildren();  // its section's notice is the rates'
    document.getElementById('evidence').replaceChildren();
  }

  function setStatus() {
    const totals = model.totals();
    let text;
    if (state.unknown) text = 'Cannot read the server: ' + state.error + '.';
    else if (state.error) text = 'Error: ' + state.error;
    else if (state.paused) text = 'Paused at seq ' + state.after + '.';
    else text = 'Following the journal: seq ' + state.after + ', ' + totals.requests + ' requests read' +
      (state.skipped ? ' (the first ' + state.skipped + ' were not read: the page follows the last ' + TAIL + ')' : '') +
      (state.overtaken ? '; ' + state.overtaken + ' skipped to keep up (the page reads at most ' + PAGES_PER_TICK * PAGE + ' a second)' : '') + '.';
    const status = document.getElementById('status');
    if (status.textContent !== text) status.textContent = text;
    status.classList.toggle('bad', Boolean(state.error));
  }

  function draw() {
    setStatus();
    if (state.unknown) {
      if (state.drawn !== 'unknown:' + state.unknown.cause) drawUnknown();
      state.drawn = 'unknown:' + state.unknown.cause;
      return;
    }
    if (state.drawn === model.version) return;
    state.drawn = model.version;
    const totals = model.totals();
    if (state.plan) drawPlan();  // whether an outage is in force is read from the newest request
    document.getElementById('rates').replaceChildren(View.rates(totals));
    document.getElementById('chart').replaceChildren(View.chart(model.buckets(120), 'Requests per second by what happened to them, the last 120 seconds'));
    const duplicates = model.duplicated();
    document.getElementById('duplicate-list').replaceChildren(duplicates.length
      ? View.operationsTable(duplicates, { prefix: 'dup-', cited: state.cited })
      : h('p', { className: 'none', text: 'None: every operation has at most one job.' }));
    // Not while the keyboard is in the table: drawing it again would take the focus away.
    const list = document.getElementById('operation-list');
    if (!list.contains(document.activeElement)) {
      list.replaceChildren(View.operationsTable(model.operations(), {
        limit: SHOWN_OPERATIONS,
        cited: state.cited,
        caption: 'The ' + Math.min(SHOWN_OPERATIONS, model.ops.size) + ' most recently active of ' + totals.operations + ' operations',
      }));
    }
  }

  function drawPlan() {
    if (state.unknown) return;
    const plan = state.plan || {};
    const now = model.totals().lastAtMs;
    const rules = (plan.faults || []).map((rule) => typeof rule === 'string'
      ? h('li', {}, ['next new operation: ', View.code(rule)])
      : h('li', {}, [View.code(rule.fault), ' × ' + rule.times + ' left, for ',
        rule.key !== undefined ? h('span', {}, ['key ', View.code(rule.key)]) : View.code(JSON.stringify(rule.match))]));
    const chaos = plan.chaos ? h('p', {}, ['chaos, seed ' + plan.chaos.seed + ': ',
      View.code(Object.entries(plan.chaos.rates).map(([fault, rate]) => fault + ' ' + rate).join(', '))]) : null;
    const windows = Model.outageWindows(plan, now).map((w) => h('li', { className: w.active ? 'active' : '' }, [
      View.code(w.outage.fault), ' from ' + w.outage.from + ' for ' + w.outage['for'],
      w.outage.rate < 1 ? ', rate ' + w.outage.rate : '', w.outage.lookups === false ? ', lookups spared' : '',
      w.active ? h('strong', { text: ' — in force, ' + View.ms(w.leftMs) + ' left' }) : (w.untilMs !== null && now >= w.untilMs ? ' (over)' : ' (to come)'),
    ]));
    document.getElementById('plan-view').replaceChildren(
      rules.length ? h('ul', { className: 'rules' }, rules) : h('p', { className: 'none', text: 'No fault rules or script: new operations go through.' }),
      chaos || h('p', { className: 'none', text: 'No chaos.' }),
      windows.length ? h('ul', { className: 'outages' }, windows) : h('p', { className: 'none', text: 'No outage.' }),
      h('p', { className: 'hint', text: 'Times on the server\'s clock, as of its last request (+' + View.ms(now) + ').' }));
  }

  function drawVerdicts() {
    if (state.unknown) return;
    const verdicts = state.verdicts || [];
    const list = document.getElementById('verdict-list');
    if (list.contains(document.activeElement)) return;  // the next judgement draws them
    list.replaceChildren(verdicts.length
      ? View.verdictList(verdicts, showEvidence)
      : h('p', { className: 'none', text: 'No verdicts yet.' }));
  }

  // The requests a verdict cites: listed beside it (read from the journal when the page no
  // longer holds them), marked in the operations, and the first focused.
  async function showEvidence(verdict, seqs, seq) {
    state.cited = new Set(seqs);
    const entries = [];
    for (const cited of seqs) {
      let entry = model.entry(cited);
      if (!entry) {
        try {
          const page = await api('/_test/journal?after=' + (cited - 1) + '&limit=1');
          entry = page.entries[0] || null;
        } catch (problem) {
          entry = null;
        }
      }
      if (entry) entries.push(entry);
    }
    const panel = document.getElementById('evidence');
    panel.replaceChildren(
      h('h3', { text: 'The requests that prove ' + verdict.id }),
      View.attemptList(entries, { prefix: 'ev-', cited: state.cited }, 'These requests are no longer in the journal.'));
    state.drawn = -1;
    draw();
    const row = View.cite(document.getElementById('operation-list'), '', seqs, seq);
    if (!row) {
      const item = document.getElementById(View.seqId('ev-', seq));
      if (item) item.focus();
    }
  }

  async function postPlan(body) {
    const result = document.getElementById('plan-result');
    try {
      state.plan = await api('/_test/faults', { method: 'POST', body: body });
      result.textContent = 'Installed. The plan in force is shown above.';
      result.classList.remove('bad');
      drawPlan();
    } catch (problem) {
      result.textContent = 'Not installed: ' + problem.message;
      result.classList.add('bad');
    }
  }

  function wire() {
    document.getElementById('token-form').addEventListener('submit', (event) => {
      event.preventDefault();
      state.token = document.getElementById('token').value;
      state.needToken = false;
      state.error = '';  // state.unknown stays until a read with this token succeeds
      state.planAt = 0;
      state.verdictsCount = -1;
    });
    const pause = document.getElementById('pause');
    pause.addEventListener('click', () => {
      state.paused = !state.paused;
      pause.setAttribute('aria-pressed', String(state.paused));
      pause.textContent = state.paused ? 'Resume' : 'Pause';
      setStatus();
    });
    // Verdicts that came while the keyboard was among them are drawn once it leaves.
    document.getElementById('verdict-list').addEventListener('focusout', () => setTimeout(drawVerdicts, 0));
    document.getElementById('judge-now').addEventListener('click', () => {
      judge(true).catch((problem) => {
        state.error = problem.message;
        becomeUnknown(problem.cause || 'error');
        draw();
      });
    });
    document.getElementById('plan-form').addEventListener('submit', (event) => {
      event.preventDefault();
      postPlan(document.getElementById('plan-text').value);
    });
    document.getElementById('outage-form').addEventListener('submit', (event) => {
      event.preventDefault();
      const seconds = Number(document.getElementById('outage-seconds').value);
      const fault = document.getElementById('outage-fault').value;
      postPlan(JSON.stringify({ outage: { 'for': seconds + 's', fault: fault } }));
    });
  }

  wire();
  tick();
})();
