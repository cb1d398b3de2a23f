// What the page shows, made from journal entries (GET /_test/journal's, or a saved run's):
// operations with their attempts, the lookups that reconcile them and the jobs they created;
// requests per second by what happened to them; the success and duplicate rates. No DOM:
// the live page (live.js) and the saved run's page (report.js) both feed it entries.
// A classic script, not a module: the saved run inlines it in one file, where modules
// cannot import each other.
(function (global) {
  'use strict';

  // What happened to a request, as the chart counts it; in the order the chart stacks them.
  const CATEGORIES = [
    { id: 'created', label: 'created', help: 'a new job, its answer delivered or not' },
    { id: 'replayed', label: 'replayed', help: 'a known key answered with its job' },
    { id: 'refused', label: 'refused', help: 'a changed payload, a key in flight, a bad request, over capacity' },
    { id: 'failed', label: 'failed by a fault', help: 'an error answer: a fault, an outage, an upstream error' },
    { id: 'lost', label: 'lost by the connection', help: 'dropped, reset or truncated: no whole answer' },
    { id: 'other', label: 'lookups and other', help: 'reconciliation lookups, other paths' },
    { id: 'held', label: 'held', help: 'not answered yet' },
  ];

  const REFUSALS = new Set(['rejected', 'conflict', 'missing_key', 'invalid', 'capacity_exhausted', 'refused']);

  function isFault(fault) {
    return typeof fault === 'string' && fault !== '' && fault !== 'none';
  }

  function category(entry) {
    if (entry.answeredAtMs === null || entry.answeredAtMs === undefined) return 'held';
    if (entry.delivery && entry.delivery !== 'respond') return 'lost';
    if (REFUSALS.has(entry.outcome)) return 'refused';
    if (entry.outcome === 'outage' || entry.outcome === 'lookup_failed') return 'failed';
    if (typeof entry.status === 'number' && entry.status >= 500) return 'failed';
    if (isFault(entry.fault) && typeof entry.status === 'number' && entry.status >= 400) return 'failed';
    if (entry.outcome === 'replay') return 'replayed';
    if (entry.outcome === 'new' && entry.jobId) return 'created';
    return 'other';
  }

  // What the client got, in a word or a status: "201", "drop", "reset", "truncate (201)",
  // "held"; with the Retry-After it carried.
  function got(entry) {
    if (entry.answeredAtMs === null || entry.answeredAtMs === undefined) return 'held';
    let text;
    if (entry.delivery === 'drop' || entry.delivery === 'reset') text = entry.delivery;
    else if (entry.delivery === 'truncate') text = 'truncate' + (entry.status ? ' (' + entry.status + ')' : '');
    else text = entry.status === null || entry.status === undefined ? 'no response' : String(entry.status);
    if (typeof entry.retryAfter === 'number') text += ', Retry-After ' + entry.retryAfter + ' s';
    return text;
  }

  // How long the answer took after arrival (the hold of a delay fault shows here), or null.
  function hold(entry) {
    if (typeof entry.answeredAtMs !== 'number' || typeof entry.atMs !== 'number') return null;
    return entry.answeredAtMs - entry.atMs;
  }

  function succeeded(entry) {
    return entry.delivery === 'respond' && entry.delivered !== false && typeof entry.status === 'number' &&
      entry.status >= 200 && entry.status < 300 && Boolean(entry.jobId);
  }

  class JournalModel {
    // maxOperations: how many operations keep their attempts (the most recent, and every one
    // with two effects); the counts and the chart cover every entry ever added.
    // maxRemembered: how many operations evicted past that are still known by id (about 200
    // bytes each, with a UUID key: no attempts), so that one seen again is the same
    // operation, counted once; one seen again after more evictions than that counts anew.
    constructor(options) {
      const settings = options || {};
      this.maxOperations = settings.maxOperations || 5000;
      this.maxAttempts = settings.maxAttempts || 500;
      this.maxRemembered = settings.maxRemembered || 100000;
      this.clear();
    }

    clear() {
      this.ops = new Map();          // id -> operation, oldest first (Map keeps insertion order)
      this.keyToOp = new Map();      // idempotency key -> operation id, for lookups
      this.entries = new Map();      // seq -> entry, for operations kept
      this.held = new Map();         // seq -> the category counted for an unanswered entry
      this.bucketMap = new Map();    // second -> {category: count}
      // second -> {shed, queue}: requests a provider with a capacity shed, and the deepest
      // queue a request met on arrival (entries' queue.depth), for the chart's queue row.
      this.queueMap = new Map();
      // Evicted operations: id -> [succeeded, attempts, job id or null, ...keys its lookups
      // find it by], oldest first; and those keys -> id.
      this.remembered = new Map();
      this.rememberedKeys = new Map();
      this.counts = { requests: 0, operations: 0, succeeded: 0, duplicated: 0, evicted: 0 };
      this.lastSeq = 0;
      this.lastAtMs = 0;
      this.version = 0;              // changes whenever something was added
    }

    operationId(entry) {
      if (entry.operation !== null && entry.operation !== undefined) return 'op:' + entry.operation;
      if (entry.key !== null && entry.key !== undefined) {
        return this.keyToOp.get(entry.key) || this.rememberedKeys.get(entry.key) || 'key:' + entry.key;
      }
      return null;
    }

    count(entry, delta) {
      const second = Math.floor((entry.atMs || 0) / 1000);
      let bucket = this.bucketMap.get(second);
      if (!bucket) {
        bucket = {};
        this.bucketMap.set(second, bucket);
      }
      const name = category(entry);
      bucket[name] = (bucket[name] || 0) + delta;
      return name;
    }

    // Once per request, when first seen: its queue depth is journaled at arrival, and a shed
    // request is answered at once (never held).
    countQueue(entry) {
      const second = Math.floor((entry.atMs || 0) / 1000);
      const depth = entry.queue && typeof entry.queue.depth === 'number' ? entry.queue.depth : null;
      if (depth === null && entry.outcome !== 'shed') return;
      let seen = this.queueMap.get(second);
      if (!seen) {
        seen = { shed: 0, queue: null };
        this.queueMap.set(second, seen);
      }
      if (entry.outcome === 'shed') seen.shed += 1;
      if (depth !== null) seen.queue = Math.max(seen.queue === null ? 0 : seen.queue, depth);
    }

    // Adds entries in seq order; an entry seen before that was held (a held request now
    // answered) replaces the one held.
    add(entries) {
      for (const entry of entries) this.addOne(entry);
      this.version += 1;
    }

    addOne(entry) {
      const known = this.entries.get(entry.seq);
      if (this.held.has(entry.seq)) {
        // Counted while held: move it to what happened to it.
        const second = Math.floor((entry.atMs || 0) / 1000);
        const bucket = this.bucketMap.get(second);
        if (bucket) bucket.held = (bucket.held || 1) - 1;
        this.held.delete(entry.seq);
        this.count(entry, 1);
        if (category(entry) === 'held') this.held.set(entry.seq, true);
        if (known) this.replaceAttempt(known, entry);
        return;
      }
      // Seen before (a page read again for its held entries): counted once, kept as it was.
      if (known || entry.seq <= this.lastSeq) return;
      this.counts.requests += 1;
      if (this.count(entry, 1) === 'held') this.held.set(entry.seq, true);
      this.countQueue(entry);
      this.lastSeq = Math.max(this.lastSeq, entry.seq);
      this.lastAtMs = Math.max(this.lastAtMs, entry.atMs || 0);
      const id = this.operationId(entry);
      if (id === null) return;  // a request with no key and no operation: counted, not grouped
      let op = this.ops.get(id);
      if (!op) {
        op = {
          id: id,
          label: id.startsWith('op:') ? id.slice(3) : id.slice(4),
          byOperation: id.startsWith('op:'),
          keys: new Set(),
          creates: [],
          lookups: [],
          others: [],
          jobs: [],                 // ids of the jobs its creates made, in order
          lookedUp: [],             // ids its lookups found
          omitted: 0,               // attempts past maxAttempts or evicted, counted only
          succeeded: false,
          firstSeq: entry.seq,
          lastSeq: entry.seq,
          firstAtMs: entry.atMs,
        };
        this.ops.set(id, op);
        if (this.remembered.has(id)) this.revive(op);
        else this.counts.operations += 1;
        this.evict();
      } else {
        // Most recently active last: eviction takes the ones idle longest.
        this.ops.delete(id);
        this.ops.set(id, op);
      }
      if (entry.key !== null && entry.key !== undefined) {
        op.keys.add(entry.key);
        if (entry.kind === 'create' && !this.keyToOp.has(entry.key)) this.keyToOp.set(entry.key, id);
      }
      op.lastSeq = Math.max(op.lastSeq, entry.seq);
      const list = entry.kind === 'create' ? op.creates : entry.kind === 'lookup' ? op.lookups : op.others;
      if (op.creates.length + op.lookups.length + op.others.length >= this.maxAttempts) {
        op.omitted += 1;
      } else {
        list.push(entry);
        this.entries.set(entry.seq, entry);
      }
      this.learn(op, entry);
    }

    replaceAttempt(known, entry) {
      const op = this.ops.get(this.operationId(known));
      this.entries.set(entry.seq, entry);
      if (!op) return;
      for (const list of [op.creates, op.lookups, op.others]) {
        const index = list.indexOf(known);
        if (index >= 0) list[index] = entry;
      }
      this.learn(op, entry);
    }

    learn(op, entry) {
      if (entry.jobId && entry.kind === 'create' && entry.outcome === 'new' && !op.jobs.includes(entry.jobId)) {
        op.jobs.push(entry.jobId);
        if (op.jobs.length === 2) this.counts.duplicated += 1;
      }
      if (entry.jobId && entry.kind === 'lookup' && !op.lookedUp.includes(entry.jobId)) op.lookedUp.push(entry.jobId);
      if (!op.succeeded && succeeded(entry)) {
        op.succeeded = true;
        this.counts.succeeded += 1;
      }
    }

    // An evicted operation seen again: the same one, counted once, its job and success kept
    // (a second job now makes it a duplicate), its earlier attempts counted as omitted.
    revive(op) {
      const [succeeded, attempts, job, ...keys] = this.remembered.get(op.id);
      this.remembered.delete(op.id);
      op.succeeded = succeeded === 1;
      op.omitted = attempts;
      if (job !== null) op.jobs.push(job);
      for (const key of keys) {
        op.keys.add(key);
        this.keyToOp.set(key, op.id);
        this.rememberedKeys.delete(key);
      }
      this.counts.evicted -= 1;
    }

    remember(victim, keys) {
      const attempts = victim.creates.length + victim.lookups.length + victim.others.length + victim.omitted;
      this.remembered.set(victim.id, [victim.succeeded ? 1 : 0, attempts, victim.jobs[0] || null, ...keys]);
      for (const key of keys) this.rememberedKeys.set(key, victim.id);
      while (this.remembered.size > this.maxRemembered) {
        const [oldest, summary] = this.remembered.entries().next().value;
        this.remembered.delete(oldest);
        for (const key of summary.slice(3)) {
          if (this.rememberedKeys.get(key) === oldest) this.rememberedKeys.delete(key);
        }
      }
    }

    evict() {
      while (this.ops.size > this.maxOperations) {
        let victim = null;
        for (const op of this.ops.values()) {
          if (op.jobs.length < 2) {
            victim = op;
            break;
          }
        }
        if (!victim) return;  // every one kept has two effects: they all stay
        this.ops.delete(victim.id);
        for (const list of [victim.creates, victim.lookups, victim.others]) {
          for (const entry of list) {
            this.entries.delete(entry.seq);
          }
        }
        const keys = [];
        for (const key of victim.keys) {
          if (this.keyToOp.get(key) === victim.id) {
            this.keyToOp.delete(key);
            keys.push(key);
          }
        }
        this.remember(victim, keys);
        this.counts.evicted += 1;
      }
    }

    // Operations, most recently active first.
    operations() {
      return Array.from(this.ops.values()).reverse();
    }

    duplicated() {
      return this.operations().filter((op) => op.jobs.length >= 2);
    }

    entry(seq) {
      return this.entries.get(seq) || null;
    }

    heldSeqs() {
      return Array.from(this.held.keys()).sort((a, b) => a - b);
    }

    // [{second, counts: {category: n}, total, shed, queue}], one per second from the first to
    // the last (seconds without requests included, as zeros), at most the last `limit`. `shed`
    // counts requests refused past a capacity (inside `failed`); `queue` is the deepest queue a
    // request met on arrival, null when no request that second met a capacity's queue.
    buckets(limit) {
      if (this.bucketMap.size === 0) return [];
      const seconds = Array.from(this.bucketMap.keys());
      const last = Math.max.apply(null, seconds);
      let first = Math.min.apply(null, seconds);
      if (limit && last - first + 1 > limit) first = last - limit + 1;
      const result = [];
      for (let second = first; second <= last; second += 1) {
        const counts = {};
        let total = 0;
        const bucket = this.bucketMap.get(second) || {};
        for (const c of CATEGORIES) {
          counts[c.id] = Math.max(0, bucket[c.id] || 0);
          total += counts[c.id];
        }
        const queued = this.queueMap.get(second) || { shed: 0, queue: null };
        result.push({ second: second, counts: counts, total: total, shed: queued.shed, queue: queued.queue });
      }
      return result;
    }

    totals() {
      const ops = this.counts.operations;
      return {
        requests: this.counts.requests,
        operations: ops,
        succeeded: this.counts.succeeded,
        duplicated: this.counts.duplicated,
        successRate: ops === 0 ? null : this.counts.succeeded / ops,
        duplicateRate: ops === 0 ? null : this.counts.duplicated / ops,
        evicted: this.counts.evicted,
        lastSeq: this.lastSeq,
        lastAtMs: this.lastAtMs,
      };
    }
  }

  // The outage windows of a plan (GET /_test/faults), with whether `nowMs` (the provider's
  // clock, as the journal's atMs) falls in each.
  function parseDuration(text) {
    const match = /^(\d+(?:\.\d+)?)(ms|s|m|h)$/.exec(String(text));
    if (!match) return null;
    const scale = { ms: 1, s: 1000, m: 60000, h: 3600000 }[match[2]];
    return Number(match[1]) * scale;
  }

  function outageWindows(plan, nowMs) {
    const outages = (plan && Array.isArray(plan.outages)) ? plan.outages : [];
    return outages.map((outage) => {
      const from = parseDuration(outage.from);
      const length = parseDuration(outage['for']);
      const until = from === null || length === null ? null : from + length;
      return {
        outage: outage,
        fromMs: from,
        untilMs: until,
        active: from !== null && until !== null && nowMs >= from && nowMs < until,
        leftMs: until === null ? null : Math.max(0, until - nowMs),
      };
    });
  }

  global.RetryproofModel = {
    CATEGORIES: CATEGORIES,
    category: category,
    got: got,
    hold: hold,
    isFault: isFault,
    JournalModel: JournalModel,
    outageWindows: outageWindows,
    parseDuration: parseDuration,
  };
})(typeof globalThis !== 'undefined' ? globalThis : this);
