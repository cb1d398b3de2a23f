// The saved run's page (`retryproof run --html FILE`, `judge --html FILE`): the run's JSON
// report, embedded in the file, drawn with the live page's model and view. Per scenario,
// failing ones first: what it missed, its load, its verdicts linked to the requests that
// prove them, its operations, and the invocations that ended unknown or failed with the
// evidence a reviewer needs to settle each.
(function () {
  'use strict';
  const Model = globalThis.RetryproofModel;
  const View = globalThis.RetryproofView;
  const h = View.h;

  function outcomeOf(invocation) {
    if (invocation.killed) return 'killed';
    if (invocation.outcome && typeof invocation.outcome.outcome === 'string') return invocation.outcome.outcome;
    return invocation.clientError ? 'client error' : 'no outcome';
  }

  // What a reviewer settles by hand: an invocation that ended unknown or failed, was killed,
  // or printed no outcome line. `judge`'s invocations (traffic alone) have no outcome at all.
  function needsReview(invocation) {
    if (invocation.killed || invocation.clientError) return true;
    return Boolean(invocation.outcome) && outcomeOf(invocation) !== 'succeeded';
  }

  // A saved run before the third answer has no status: met or not.
  function statusOf(scenario) {
    return scenario.status || (scenario.met ? 'met' : 'failed');
  }

  // How the page marks a scenario, and in which order it lists them: harm, policy, then what
  // could not be judged, then what met its expectations.
  function markOf(scenario) {
    return { met: 'PASS', inconclusive: 'INCONCLUSIVE', failed: 'FAIL' }[statusOf(scenario)];
  }

  function worst(scenario) {
    if (statusOf(scenario) === 'met') return 3;
    if (statusOf(scenario) === 'inconclusive') return 2;
    return (scenario.unmet || []).some((miss) => miss.severity === 'harm') ? 0 : 1;
  }

  // The requests charged to an invocation: in a fleet, the seqs the run lists (its window
  // holds every other client's too); one client after another, its window and what was read
  // late on its connections.
  function chargedEntries(invocation, entriesBySeq) {
    const seqs = invocation.seqs || [];
    if (!invocation.seqs) {
      for (let seq = invocation.firstSeq; seq && seq <= invocation.lastSeq; seq += 1) seqs.push(seq);
      seqs.push(...(invocation.lateSeqs || []));
    }
    return seqs.filter((seq) => entriesBySeq.has(seq)).map((seq) => entriesBySeq.get(seq));
  }

  function review(scenario, index, entriesBySeq) {
    const prefix = 's' + index + '-review-';
    // A job by its id and by its key, looked up once per request: a traffic run reviews
    // thousands of invocations against thousands of jobs.
    const jobsBy = new Map();
    for (const job of scenario.jobs || []) {
      jobsBy.set('id:' + job.id, job);
      if (job.key) jobsBy.set('key:' + job.key, job);
    }
    const items = (scenario.invocations || []).filter(needsReview).map((invocation) => {
      const entries = chargedEntries(invocation, entriesBySeq);
      const jobs = [...new Set(entries.flatMap((entry) => [jobsBy.get('id:' + entry.jobId), jobsBy.get('key:' + entry.key)]).filter(Boolean))];
      return h('li', { className: 'review', 'data-invocation': invocation.number }, [
        h('p', {}, [
          h('strong', { text: 'Invocation ' + invocation.number + ': ' + outcomeOf(invocation) }), ', operation ', View.code(invocation.operation),
          invocation.outcome ? h('span', {}, [', its outcome line ', View.code(JSON.stringify(invocation.outcome))]) : null,
          invocation.clientError ? h('span', {}, [', ', View.code(invocation.clientError)]) : null,
        ]),
        View.attemptList(entries, { prefix: prefix }, 'It sent no request.'),
        h('p', {}, jobs.length
          ? ['The provider holds for its keys: '].concat(jobs.flatMap((job, i) => [i ? ', ' : '', View.code(job.id), ' (key ', View.code(job.key), ')']))
          : ['The provider holds no job for its keys.']),
        invocation.standardError ? h('details', {}, [h('summary', { text: 'Its standard error' }), h('pre', { text: View.visible(invocation.standardError).replace(/\\x0A/g, '\n') })]) : null,
      ]);
    });
    if (!items.length) return null;
    return h('section', { className: 'review-queue' }, [
      h('h3', { text: 'To review: invocations that ended unknown or failed' }),
      h('ol', {}, items),
    ]);
  }

  function scenarioSection(scenario, index) {
    const prefix = 's' + index + '-';
    const journal = scenario.journal || [];
    const model = new Model.JournalModel({ maxOperations: 1e9, maxAttempts: 1e9 });
    model.add(journal);
    const entriesBySeq = new Map(journal.map((entry) => [entry.seq, entry]));
    const sectionClass = { met: 'met', inconclusive: 'inconclusive', failed: 'missed' }[statusOf(scenario)];
    const section = h('section', { className: 'scenario ' + sectionClass, id: 'scenario-' + index, 'data-scenario': scenario.name, 'data-status': statusOf(scenario) });
    const operations = h('div', { className: 'operations-of' }, [View.operationsTable(model.operations(), { prefix: prefix })]);
    const onEvidence = (verdict, seqs, seq) => {
      View.cite(section, prefix, seqs, seq);
    };
    const unmet = (scenario.unmet || []).map((miss) => h('li', { className: miss.severity, text: '[' + miss.severity + '] ' + View.visible(miss.expectation) }));
    const undecided = (scenario.inconclusive || []).map((why) => h('li', { className: 'inconclusive', text: View.visible(why.reason) }));
    // Through h(), which leaves out the parts a scenario does not have (null).
    View.appendAll(section, [
      h('h2', {}, [h('span', { className: 'mark', text: markOf(scenario) }), ' ', View.code(scenario.name, 'name')]),
      h('p', { className: 'description', text: View.visible(scenario.description) }),
      unmet.length ? h('ul', { className: 'unmet' }, unmet) : null,
      undecided.length ? h('p', { className: 'inconclusive-heading', text: 'Could not tell (inconclusive, not counted as met):' }) : null,
      undecided.length ? h('ul', { className: 'inconclusive' }, undecided) : null,
      View.rates(model.totals()),
      journal.length ? View.chart(model.buckets(), 'Requests per second by what happened to them') : null,
      scenario.traffic ? View.trafficChart(scenario.traffic) : null,
      h('h3', { text: 'Verdicts' }),
      View.verdictList(scenario.verdicts || [], onEvidence),
      review(scenario, index, entriesBySeq),
      h('h3', { text: 'Operations' }),
      operations]);
    return section;
  }

  function render() {
    const run = JSON.parse(document.getElementById('retryproof-run').textContent);
    const order = (run.scenarios || []).map((scenario, index) => ({ scenario: scenario, index: index }))
      .sort((a, b) => worst(a.scenario) - worst(b.scenario) || a.index - b.index);
    const app = document.getElementById('app');
    const summary = run.summary || {};
    app.append(
      h('header', {}, [
        h('h1', { text: 'retryproof ' + View.visible(run.subject || '') }),
        h('p', { text: summary.scenarios + ' scenarios: ' + summary.met + ' met their expectations, ' +
          (summary.failed !== undefined ? summary.failed : summary.notMet) + ' did not' +
          (summary.withHarm ? ' (' + summary.withHarm + ' with harm)' : '') +
          (summary.inconclusive ? ', ' + summary.inconclusive + ' inconclusive' : '') }),
        h('p', {}, ['Replay: ', View.code(run.replay || '')]),
        h('nav', {}, [h('ol', {}, order.map(({ scenario, index }) => h('li', {}, [
          h('a', { href: '#scenario-' + index, text: markOf(scenario) + ' ' + View.visible(scenario.name) })])))]),
      ]),
      ...order.map(({ scenario, index }) => scenarioSection(scenario, index)));
  }

  render();
})();
