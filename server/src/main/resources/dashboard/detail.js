// The side panel for one selected object: what it is, and for a task why it is where it is
// (phase, reason and message, its claims' allocation, conditions, events); for a workload, each
// gang's state and why it waits. Re-rendered on every change, so it stays live like the list.

import { ago, clear, el } from './dom.js';
import { eventsFor, gangLines } from './views.js';

export const PLURALS = {
  Node: 'nodes', Task: 'tasks', Workload: 'workloads', ResourceClaim: 'resourceclaims', Volume: 'volumes',
  ComputeDomain: 'computedomains', DeviceSlice: 'deviceslices', NodeAllocation: 'nodeallocations',
  Queue: 'queues', QuotaLedger: 'quotaledgers', PriorityClass: 'priorityclasses',
};

/** The kinds a selection needs watched besides its own: a task's claims, and everyone's events. */
export function kindsFor(selection) {
  const kind = selection.split('/')[0];
  const plural = PLURALS[kind];
  return [plural, 'events', ...(kind === 'Task' ? ['resourceclaims'] : [])].filter(Boolean);
}

function field(dl, name, value, cls) {
  if (value === undefined || value === null || value === '') return;
  dl.append(el('dt', '', name), el('dd', cls ?? '', value));
}

function conditionsTable(conditions) {
  const table = el('table', 'conditions');
  const head = el('tr');
  for (const h of ['condition', 'status', 'reason', 'message', 'since']) head.append(el('th', '', h));
  table.append(head);
  for (const c of conditions) {
    const tr = el('tr');
    tr.append(el('td', '', c.type), el('td', c.status === 'True' ? 'ok' : 'bad', c.status), el('td', '', c.reason),
      el('td', '', c.message), el('td', 'muted', ago(c.lastTransition)));
    table.append(tr);
  }
  return table;
}

function taskBody(panel, task, data) {
  const s = task.status ?? {};
  const phase = s.phase ?? 'Pending';
  const why = el('div', `why ${phase === 'Running' || phase === 'Succeeded' ? 'ok' : phase === 'Failed' ? 'bad' : 'warn'}`);
  why.append(el('div', 'why-phase', phase), el('div', 'why-reason', s.reason || '(no reason given)'),
    el('div', 'why-message', s.message || ''));
  panel.append(why);
  const dl = el('dl');
  field(dl, 'node', s.node ?? task.spec?.node);
  field(dl, 'workload', task.metadata.owner?.name);
  field(dl, 'attempt', task.spec?.attempt);
  field(dl, 'started', s.startedAt ? ago(s.startedAt) : '');
  field(dl, 'exit code', s.exitCode);
  field(dl, 'device check', s.deviceCheck ? (s.deviceCheck.passed ? `passed: opened ${s.deviceCheck.opened?.length ?? 0} device nodes` : 'failed') : '');
  panel.append(dl);
  const claims = data.resourceclaims;
  for (const name of task.spec?.claims ?? []) {
    const claim = claims?.items.get(name);
    const box = el('div', 'claim');
    box.append(el('h4', '', `claim ${name}`));
    if (!claim) {
      box.append(el('p', 'muted', claims ? 'not found' : 'loading…'));
    } else {
      const a = claim.status?.allocation;
      box.append(el('p', a ? 'ok' : 'warn', a ? `on ${a.node}: ${(a.devices ?? []).map((d) => d.device).join(', ')}` : 'not allocated yet'));
      if (claim.status?.conditions?.length) box.append(conditionsTable(claim.status.conditions));
    }
    panel.append(box);
  }
}

/** Each gang of the workload: placed, or waiting and why (what it needs, what fits now). */
function workloadBody(panel, workload) {
  for (const g of gangLines(workload)) {
    const state = g.gang.state;
    const why = el('div', `why gang ${state === 'Waiting' ? 'warn' : 'ok'}`);
    why.append(el('div', 'why-phase', `gang ${g.name}: ${state}${g.gang.since ? ` since ${ago(g.gang.since)}` : ''}`),
      el('div', 'why-reason', g.gang.reason || `${g.placed ?? 0} of ${g.replicas} placed`),
      el('div', 'why-message', g.gang.message || ''));
    panel.append(why);
  }
}

function eventsBody(panel, kind, name, events) {
  panel.append(el('h3', '', 'Events'));
  if (!events || events.state === 'absent') {
    panel.append(el('p', 'muted', 'no events API on this server'));
    return;
  }
  const list = eventsFor(events, kind, name);
  if (!list.length) {
    panel.append(el('p', 'muted', events.state === 'loading' ? 'loading…' : 'none'));
    return;
  }
  const ul = el('ul', 'events');
  for (const e of list.slice(0, 50)) {
    const s = e.spec ?? {};
    const li = el('li', s.type === 'Warning' ? 'bad' : '');
    li.append(el('span', 'muted', `${ago(s.lastSeen)} `), el('b', '', s.reason ?? ''),
      el('span', '', ` ${s.message ?? ''}${(s.count ?? 1) > 1 ? ` (×${s.count})` : ''}`));
    ul.append(li);
  }
  panel.append(ul);
}

/** Fills `panel` for `selection` ("Kind/name") from the live collections in `data`. */
export function renderDetail(panel, selection, data, onClose) {
  clear(panel);
  const [kind, ...rest] = selection.split('/');
  const name = rest.join('/');
  const bar = el('div', 'detail-bar');
  const close = el('button', 'close', '×');
  close.type = 'button';
  close.title = 'close';
  close.addEventListener('click', onClose);
  bar.append(el('h2', '', `${kind} ${name}`), close);
  panel.append(bar);
  const collection = data[PLURALS[kind]];
  const object = collection?.items.get(name);
  if (!object) {
    panel.append(el('p', 'muted', !collection || collection.state === 'loading' ? 'loading…' : 'not found (deleted?)'));
    return;
  }
  if (kind === 'Task') taskBody(panel, object, data);
  if (kind === 'Workload') workloadBody(panel, object);
  const conditions = object.status?.conditions ?? [];
  if (conditions.length) {
    panel.append(el('h3', '', 'Conditions'), conditionsTable(conditions));
  }
  eventsBody(panel, kind, name, data.events);
  const raw = el('details');
  raw.append(el('summary', '', 'the object as stored'), el('pre', '', JSON.stringify(object, null, 2)));
  panel.append(raw);
}
