// What each view shows: the kinds it watches, its columns, and its rows derived from the live
// collections. Rows come in groups (a node and its devices, a workload and its tasks); the filter
// keeps a whole group when its head matches, else the head with just the rows that match.

import { ago, byName, bytes, condition } from './dom.js';

const cell = (text, cls) => ({ text: text ?? '', cls: cls ?? '' });
// A condition in a word or two ("agent ready", "devices: MissingDeviceNodes"); its message goes in the detail column.
const status = (c, what) => (!c ? cell(`${what} unknown`, 'muted')
  : c.status === 'True' ? cell(`${what} ready`, 'ok') : cell(`${what}: ${c.reason || 'not ready'}`, 'bad'));

function filterGroups(groups, filter) {
  const rows = [];
  const needle = filter.trim().toLowerCase();
  for (const group of groups) {
    if (!needle || group.head.text.includes(needle)) {
      rows.push(group.head, ...group.rows);
      continue;
    }
    const kept = group.rows.filter((r) => r.text.includes(needle));
    if (kept.length) rows.push(group.head, ...kept);
  }
  return rows;
}

function row(key, level, cells, extra = {}) {
  return { key, level, cells, text: cells.map((c) => c.text).join(' ').toLowerCase(), ...extra };
}

// ---- Nodes: each node, its GPUs, and its channels (held or unhealthy ones always; free ones on request)

// One MIG GPU as a row: its positions left to right, an instance as a box as wide as the memory
// slices it spans ("3g.71gb: claim/a", or free), a position no instance takes as "·". The server
// reads the GPU (?as=mig) as `qm describe node` does; the browser only lays the boxes out.
// Empty fields are left out of the JSON, as everywhere in the API.
function migRow(name, g) {
  const cells = g.cells ?? [];
  const problems = g.problems ?? [];
  const text = cells.map((c) => (c.profile ? `[${c.profile}: ${c.holder || 'free'}]` : '[·]')).join('');
  const bar = cells.map((c) => ({
    span: c.span,
    text: c.profile ? `${c.profile}: ${c.holder || 'free'}` : '·',
    cls: c.holder ? 'held' : c.profile ? 'free' : 'empty',
  }));
  return row(`mig/${name}/${g.gpu}`, 1, [
    cell(g.gpu, 'name'),
    cell(g.published ? `MIG ${g.published}` : 'whole', g.published ? 'ok' : 'warn'),
    cell('mig'),
    cell(g.published ? `${g.freeCompute}/${g.totalCompute} compute free` : g.mode, 'muted'),
    { text, cls: 'mig-bar', bar },
    cell(g.fragmented || problems.join('; ') || g.model, g.fragmented || problems.length ? 'warn' : 'muted'),
  ]);
}

// One time-sliced GPU as a row: its replicas left to right, each a box with the claim that holds
// it or "free", drawn from the node's slice and record alone (a replica names its GPU in `parent`).
// Nothing isolates the clients: the row says so.
function sharedRow(name, gpu, replicas, held) {
  const sorted = [...replicas].sort((a, b) => Number(a.attributes?.replica ?? 0) - Number(b.attributes?.replica ?? 0));
  const who = (d) => (held(d) ? `claim/${held(d)}` : 'free');
  const bar = sorted.map((d) => ({ span: 1, text: who(d), cls: held(d) ? 'held' : 'free' }));
  const clients = sorted.filter(held).length;
  return row(`shared/${name}/${gpu}`, 1, [
    cell(gpu, 'name'),
    cell(`time-sliced ×${sorted.length}`, 'ok'),
    cell('timeslice'),
    cell(`${sorted.length - clients}/${sorted.length} replicas free`, 'muted'),
    { text: sorted.map((d) => `[${who(d)}]`).join(''), cls: 'mig-bar', bar },
    cell('no isolation: clients share memory and faults', 'warn'),
  ]);
}

// One MPS GPU as a row: its compute left to right in 5 % cells, each share's cells with the claim
// that holds it, free ones after; the shares are read from the record by their names
// (gpu-0-mps-60pct-40gib-0), which carry their sizes. Its clients are one fault domain: it says so.
const SHARE = /^(.+)-mps-(\d+)pct-(\d+)gib-(\d+)$/;
function mpsRow(name, d, holders) {
  const gpu = d.attributes?.parent ?? d.name.replace(/-mps$/, '');
  const shares = Object.entries(holders)
    .map(([device, h]) => [device.match(SHARE), h])
    .filter(([m]) => m && m[1] === gpu)
    .map(([m, h]) => ({ device: m[0], compute: Number(m[2]), gib: Number(m[3]), claim: h.claim }))
    .sort((a, b) => a.device.localeCompare(b.device));
  const compute = shares.reduce((n, x) => n + x.compute, 0);
  const gib = shares.reduce((n, x) => n + x.gib, 0);
  const memory = Math.floor(Number(d.attributes?.memory ?? 0) / 2 ** 30);
  const bar = shares.map((x) => ({ span: x.compute / 5, text: `claim/${x.claim} ${x.compute}%`, cls: 'held' }));
  if (compute < 100) bar.push({ span: (100 - compute) / 5, text: 'free', cls: 'free' });
  return row(`mps/${name}/${gpu}`, 1, [
    cell(gpu, 'name'),
    cell(`MPS ×${d.attributes?.clients ?? '?'}`, 'ok'),
    cell('mps'),
    cell(`${100 - compute}% compute, ${memory - gib}/${memory} GiB free`, 'muted'),
    { text: bar.map((b) => `[${b.text}]`).join(''), cls: 'mig-bar', bar },
    cell('one fault domain: a client\'s fatal fault ends the others\' GPU work', 'warn'),
  ]);
}

function nodeGroup(name, node, slice, allocation, expanded, mig) {
  const holders = allocation?.spec?.devices ?? {};
  const devices = slice?.spec?.devices ?? [];
  const held = (d) => holders[d.name]?.claim;
  // A MIG GPU is drawn as its picture; of its slices only the held ones are listed.
  const gpus = devices.filter((d) => d.class !== 'channel' && d.class !== 'timeslice' && d.class !== 'mps' && (d.class !== 'mig' || held(d)));
  // An MPS GPU is drawn as its compute and the shares taking it.
  const mpsGpus = devices.filter((d) => d.class === 'mps');
  // A time-sliced GPU is drawn as its replicas, none listed on its own.
  const shared = new Map();
  devices.filter((d) => d.class === 'timeslice').forEach((d) => {
    const gpu = d.attributes?.parent ?? d.name;
    shared.set(gpu, [...(shared.get(gpu) ?? []), d]);
  });
  const channels = devices.filter((d) => d.class === 'channel');
  const migGpus = (mig?.gpus ?? []).filter((g) => g.published);
  const spec = node?.spec ?? {};
  // As `qm get nodes` says it: qm node drain marks the node it cordons with the draining label.
  const draining = 'quartermaster.dev/draining' in (node?.metadata?.labels ?? {});
  const scheduling = spec.fenced ? cell('fenced', 'bad') : spec.unschedulable ? cell(draining ? 'draining' : 'cordoned', 'warn')
    : cell('enabled', 'ok');
  const devicesReady = condition(node, 'DevicesReady');
  const agentReady = condition(node, 'AgentReady');
  const stats = {
    ready: agentReady?.status === 'True' && devicesReady?.status === 'True' ? 1 : 0,
    gpus: gpus.filter((d) => d.class !== 'mig').length + migGpus.length + shared.size + mpsGpus.length,
    held: gpus.filter((d) => d.class !== 'mig' && held(d)).length
      + migGpus.filter((g) => (g.cells ?? []).some((c) => c.holder)).length
      + [...shared.values()].filter((rs) => rs.some(held)).length
      + mpsGpus.filter((d) => Object.keys(holders).some((k) => k.startsWith(`${d.name}-`))).length,
    unhealthy: devices.filter((d) => d.health !== 'Healthy').length,
  };
  const head = row(`node/${name}`, 0, [
    cell(name, 'name'),
    status(agentReady, 'agent'),
    status(devicesReady, 'devices'),
    scheduling,
    cell(`GPUs ${stats.held}/${stats.gpus} held · channels ${channels.filter(held).length}/${channels.length}`),
    cell(!node ? 'no Node object' : agentReady?.status !== 'True' ? agentReady?.message ?? '' : devicesReady?.message ?? '', 'muted'),
  ], { select: `Node/${name}` });
  const deviceRow = (d) => {
    const claim = held(d);
    const a = d.attributes ?? {};
    return row(`device/${name}/${d.name}`, 1, [
      cell(d.name, 'name'),
      cell(d.health ?? 'Unknown', d.health === 'Healthy' ? 'ok' : 'bad'),
      cell(d.class),
      cell(claim ? `held by ${claim}` : 'free', claim ? 'held' : 'muted'),
      cell([a.model, a.memory ? bytes(Number(a.memory)) : ''].filter(Boolean).join(' · '), 'muted'),
      cell(a.uuid ?? '', 'muted name'),
    ], claim ? { select: `ResourceClaim/${claim}` } : {});
  };
  const rows = [
    ...(mig?.gpus ?? []).map((g) => migRow(name, g)),
    ...[...shared.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([gpu, rs]) => sharedRow(name, gpu, rs, held)),
    ...mpsGpus.map((d) => mpsRow(name, d, holders)),
    ...gpus.map(deviceRow),
  ];
  const notable = channels.filter((d) => held(d) || d.health !== 'Healthy');
  const quiet = channels.filter((d) => !held(d) && d.health === 'Healthy');
  rows.push(...notable.map(deviceRow));
  if (quiet.length) {
    const open = expanded.has(name);
    rows.push(row(`channels/${name}`, 1, [
      cell(open ? '▾ channels' : '▸ channels', 'toggle'),
      cell('Healthy', 'ok'),
      cell('channel'),
      cell(`${quiet.length} free`, 'muted'),
      cell(open ? 'click to hide' : 'click to list each', 'muted'),
      cell(''),
    ], { toggle: name }));
    if (open) rows.push(...quiet.map(deviceRow));
  }

  return { head, rows, stats };
}

const nodes = {
  id: 'nodes',
  title: 'Nodes',
  kinds: ['nodes', 'deviceslices', 'nodeallocations'],
  columns: [['node / device', '12rem'], ['agent / health', '12rem'], ['devices / class', '10rem'], ['scheduling / holder', 'minmax(14rem, 1fr)'],
    ['devices held / model', 'minmax(18rem, 1.3fr)'], ['detail', 'minmax(10rem, 1.2fr)']],
  /** One line over the whole cluster, whatever the filter: how much is there, held and broken. */
  summary() {
    let nodeCount = 0; let ready = 0; let gpus = 0; let held = 0; let unhealthy = 0;
    for (const { group } of this.cache.values()) {
      nodeCount++;
      ready += group.stats.ready; gpus += group.stats.gpus; held += group.stats.held; unhealthy += group.stats.unhealthy;
    }
    return `${nodeCount} nodes (${ready} ready) · ${gpus} GPUs, ${held} held · ${unhealthy} unhealthy devices`;
  },
  // Per node, the rows are kept until its Node, DeviceSlice or NodeAllocation changes: on a large
  // cluster a watch event re-derives one node's rows, not a million channels.
  cache: new Map(),
  names: { members: '', list: [] },
  // Per node whose spec wishes MIG: its picture, read again when its slice, record or wish change.
  mig: new Map(),
  migOf(name, stamp, ui) {
    const known = this.mig.get(name);
    if (known?.stamp === stamp || known?.loading === stamp || !ui.api) return known?.data ?? null;
    this.mig.set(name, { ...known, loading: stamp });
    // Only the answer to the latest read lands: an older one arriving late must not draw the past.
    const latest = () => this.mig.get(name)?.loading === stamp;
    ui.api.mig(name)
      .then((data) => { if (latest()) { this.mig.set(name, { stamp, data, loading: null }); ui.refresh(); } })
      .catch(() => { if (latest()) this.mig.set(name, { stamp, data: known?.data ?? null, loading: null }); });
    return known?.data ?? null;
  },
  rows({ nodes: n, deviceslices: s, nodeallocations: a }, filter, ui) {
    // The sorted names change only when a node or slice comes or goes: a heartbeat re-sorts nothing.
    const members = `${n.members}/${s.members}`;
    if (this.names.members !== members) {
      this.names = { members, list: [...new Set([...n.items.keys(), ...s.items.keys()])].sort(byName) };
      for (const gone of [...this.cache.keys()].filter((k) => !n.items.has(k) && !s.items.has(k))) { this.cache.delete(gone); this.mig.delete(gone); }
    }
    const names = this.names.list;
    const groups = names.map((name) => {
      const node = n.items.get(name);
      const slice = s.items.get(name);
      const allocation = a.items.get(name);
      const wish = JSON.stringify(node?.spec?.mig ?? {});
      const mig = wish === '{}' ? null
        : this.migOf(name, [wish, slice?.metadata.revision, allocation?.metadata.revision].join('/'), ui);
      const stamp = [node?.metadata.revision, slice?.metadata.revision, allocation?.metadata.revision,
        ui.expanded.has(name), this.mig.get(name)?.stamp].join('/');
      const cached = this.cache.get(name);
      if (cached?.stamp === stamp) return cached.group;
      const group = nodeGroup(name, node, slice, allocation, ui.expanded, mig);
      this.cache.set(name, { stamp, group });
      return group;
    });
    return filterGroups(groups, filter);
  },
};

// ---- Workloads and their tasks, with why a task is where it is

const phaseClass = { Running: 'ok', Succeeded: 'ok', Pending: 'warn', Failed: 'bad' };

function taskRow(t) {
  const s = t.status ?? {};
  return row(`task/${t.metadata.name}`, 1, [
    cell(t.metadata.name, 'name'),
    cell(s.phase ?? 'Pending', `phase ${phaseClass[s.phase] ?? 'warn'}`),
    cell(s.node ?? t.spec?.node ?? ''),
    cell(s.reason ?? ''),
    cell(s.message ?? '', 'muted'),
  ], { select: `Task/${t.metadata.name}`, phase: s.phase ?? 'Pending' });
}

/**
 * Every gang line of a workload: each group gang's in its group's line, the workload's own gang's
 * ('*', over every group) in status.gang.
 */
export function gangLines(wl) {
  const groups = wl.status?.groups ?? [];
  const lines = groups.filter((g) => g.gang);
  if (wl.status?.gang) {
    const sum = (f) => groups.reduce((n, g) => n + (g[f] ?? 0), 0);
    lines.push({ name: '*', gang: wl.status.gang, placed: sum('placed'), replicas: sum('replicas') });
  }
  return lines;
}

// A gang that waits for devices holds nothing; its status says why, in the allocator's words. One
// whose workload its queue has not admitted, or is evicting, waits for the queue: its row shows the
// workload's Admitted condition instead.
const notPlacing = new Set(['WaitingForAdmission', 'Evicted']);
const waitingGangs = (wl) =>
  gangLines(wl).filter((g) => g.gang.state === 'Waiting' && !notPlacing.has(g.gang.reason));

const workloads = {
  id: 'workloads',
  title: 'Workloads',
  kinds: ['workloads', 'tasks', 'resourceclaims', 'events'],
  columns: [['workload / task', '16rem'], ['phase', '7rem'], ['node', '7rem'], ['reason', '13rem'], ['message', 'minmax(12rem, 1fr)']],
  /** Over every workload, whatever the filter: how many, and how many gangs wait. */
  summary() {
    if (!this.counts) return '';
    const { workloads: n, waiting } = this.counts;
    return `${n} workload${n === 1 ? '' : 's'} · ${waiting} gang${waiting === 1 ? '' : 's'} waiting`;
  },
  counts: null,
  rows({ workloads: w, tasks }, filter) {
    const byOwner = new Map();
    for (const t of tasks.items.values()) {
      const owner = t.metadata.owner?.kind === 'Workload' ? t.metadata.owner.name : '';
      if (!byOwner.has(owner)) byOwner.set(owner, []);
      byOwner.get(owner).push(t);
    }
    let waitingCount = 0;
    const groups = [...w.items.values()].sort((x, y) => byName(x.metadata.name, y.metadata.name)).map((wl) => {
      const groupsText = (wl.status?.groups ?? []).map((g) => `${g.name} ${g.placed ?? 0}/${g.replicas} placed, ${g.running} running`).join(' · ');
      const problem = (wl.status?.conditions ?? []).find((c) => c.status !== 'True');
      const waiting = waitingGangs(wl);
      waitingCount += waiting.length;
      const gang = waiting[0];
      const head = row(`workload/${wl.metadata.name}`, 0, [
        cell(wl.metadata.name, 'name'),
        wl.metadata.deletedAt ? cell('Deleting', 'warn') : gang ? cell('Waiting', 'warn') : cell(''),
        cell(''),
        gang ? cell(`gang ${gang.name}: ${gang.gang.reason}`, 'warn') : cell(problem ? `${problem.type}: ${problem.reason}` : ''),
        cell(gang ? gang.gang.message : problem?.message ?? groupsText, 'muted'),
      ], { select: `Workload/${wl.metadata.name}`, ...(gang ? { phase: 'GangWaiting' } : {}) });
      const rows = (byOwner.get(wl.metadata.name) ?? []).sort((x, y) => byName(x.metadata.name, y.metadata.name)).map(taskRow);
      return { head, rows };
    });
    this.counts = { workloads: w.items.size, waiting: waitingCount };
    const lone = byOwner.get('') ?? [];
    if (lone.length) {
      groups.push({
        head: row('workload/', 0, [cell('(tasks without a workload)', 'muted'), cell(''), cell(''), cell(''), cell('')]),
        rows: lone.sort((x, y) => byName(x.metadata.name, y.metadata.name)).map(taskRow),
      });
    }
    return filterGroups(groups, filter);
  },
};

// ---- Claims

const claims = {
  id: 'claims',
  title: 'Claims',
  kinds: ['resourceclaims'],
  columns: [['claim', '18rem'], ['node', '7rem'], ['devices', '12rem'], ['prepared', '8rem'], ['used by', '14rem'], ['allocation', 'minmax(12rem, 1fr)']],
  rows({ resourceclaims: c }, filter) {
    const groups = [...c.items.values()].sort((x, y) => byName(x.metadata.name, y.metadata.name)).map((claim) => {
      const s = claim.status ?? {};
      const node = s.allocation?.node ?? '';
      const allocated = condition(claim, 'Allocated');
      return {
        head: row(`claim/${claim.metadata.name}`, 2, [
          cell(claim.metadata.name, 'name'),
          cell(node),
          cell((s.allocation?.devices ?? []).map((d) => d.device).join(', ') || 'none', node ? '' : 'warn'),
          cell(s.prepare?.[node]?.phase ?? '', s.prepare?.[node]?.phase === 'Prepared' ? 'ok' : 'muted'),
          cell((s.reservedFor ?? []).join(', ')),
          cell(allocated?.message ?? '', allocated?.status === 'True' ? 'muted' : 'bad'),
        ], { select: `ResourceClaim/${claim.metadata.name}` }),
        rows: [],
      };
    });
    return filterGroups(groups, filter);
  },
};

// ---- Volumes and the tasks that claim them

const volumes = {
  id: 'volumes',
  title: 'Volumes',
  kinds: ['volumes'],
  columns: [['volume / task', '16rem'], ['phase / state', '9rem'], ['plugin / node', '16rem'], ['access', '13rem'], ['detail', 'minmax(12rem, 1fr)']],
  rows({ volumes: v }, filter) {
    const groups = [...v.items.values()].sort((x, y) => byName(x.metadata.name, y.metadata.name)).map((vol) => {
      const s = vol.status ?? {};
      const head = row(`volume/${vol.metadata.name}`, 0, [
        cell(vol.metadata.name, 'name'),
        cell(s.phase ?? '', s.phase === 'Available' ? 'ok' : 'warn'),
        cell(vol.spec?.plugin ?? ''),
        cell(vol.spec?.accessMode ?? ''),
        cell(`${bytes(vol.spec?.capacityBytes)} · ${(s.claims ?? []).length} claims`, 'muted'),
      ], { select: `Volume/${vol.metadata.name}` });
      const rows = (s.claims ?? []).map((c) => row(`volumeclaim/${vol.metadata.name}/${c.task}`, 1, [
        cell(c.task, 'name'),
        cell(c.state ?? '', c.state === 'Taken' ? 'ok' : 'warn'),
        cell(c.node ?? ''),
        cell(c.mode ?? ''),
        cell(c.attached ? 'attached' : 'not attached', 'muted'),
      ], { select: `Task/${c.task}` }));
      return { head, rows };
    });
    return filterGroups(groups, filter);
  },
};

// ---- Compute domains and their member nodes

const domains = {
  id: 'domains',
  title: 'Compute domains',
  kinds: ['computedomains'],
  columns: [['domain / node', '16rem'], ['ready', '10rem'], ['members', '9rem'], ['claims', '16rem'], ['detail', 'minmax(12rem, 1fr)']],
  rows({ computedomains: d }, filter) {
    const groups = [...d.items.values()].sort((x, y) => byName(x.metadata.name, y.metadata.name)).map((cd) => {
      const s = cd.status ?? {};
      const ready = condition(cd, 'Ready');
      const members = s.nodes ?? [];
      const head = row(`domain/${cd.metadata.name}`, 0, [
        cell(cd.metadata.name, 'name'),
        status(ready, 'domain'),
        cell(`${members.filter((m) => m.daemonReady).length}/${cd.spec?.numNodes ?? '?'} ready`),
        cell((s.claims ?? []).join(', ')),
        cell(ready?.message ?? '', 'muted'),
      ], { select: `ComputeDomain/${cd.metadata.name}` });
      const rows = members.map((m) => row(`member/${cd.metadata.name}/${m.node}`, 1, [
        cell(m.node, 'name'),
        cell(m.daemonReady ? 'daemon ready' : 'daemon not ready', m.daemonReady ? 'ok' : 'bad'),
        cell(''), cell(''),
        cell(m.since ? `since ${ago(m.since)}` : '', 'muted'),
      ], { select: `Node/${m.node}` }));
      return { head, rows };
    });
    return filterGroups(groups, filter);
  },
};

// ---- Queues: each queue's quota and use, the workloads it admitted and those that wait

// {gpu: 4} as `qm get queues` writes it: gpu=4.
const counts = (m, none) => Object.entries(m ?? {}).sort(([a], [b]) => byName(a, b)).map(([k, v]) => `${k}=${v}`).join(',') || none;

const queues = {
  id: 'queues',
  title: 'Queues',
  kinds: ['queues', 'quotaledgers', 'workloads'],
  columns: [['queue / workload', '16rem'], ['admitted / state', '13rem'], ['cohort / usage', '10rem'],
    ['quota · used · borrowed · lent', 'minmax(16rem, 1fr)'], ['detail', 'minmax(12rem, 1.2fr)']],
  rows({ queues: q, quotaledgers: l, workloads: w }, filter) {
    const groups = [...q.items.values()].sort((x, y) => byName(x.metadata.name, y.metadata.name)).map((queue) => {
      const name = queue.metadata.name;
      const spec = queue.spec ?? {};
      const s = queue.status ?? {};
      const cohort = spec.cohort ?? name;
      const entries = Object.entries(l.items.get(cohort)?.spec?.admitted ?? {}).filter(([, a]) => a.queue === name);
      const admittedUids = new Set(entries.map(([, a]) => a.uid));
      const head = row(`queue/${name}`, 0, [
        cell(name, 'name'),
        cell(`${s.admitted ?? 0} admitted · ${s.pending ?? 0} pending`, s.pending ? 'warn' : 'ok'),
        cell(cohort),
        cell(`quota ${counts(spec.quota, 'none')} · used ${counts(s.used, '0')} · borrowed ${counts(s.borrowed, '0')}`
          + ` · lent ${counts(s.lent, '0')}`),
        cell(`weight ${spec.weight ?? 1} · ${spec.ordering ?? 'BestEffortFIFO'}`, 'muted'),
      ], { select: `Queue/${name}` });
      const admitted = entries.sort(([x], [y]) => byName(x, y)).map(([wl, a]) => row(`queue/${name}/${wl}`, 1, [
        cell(wl, 'name'),
        cell('Admitted', 'ok'),
        cell(counts(a.usage, 'no devices')),
        cell(`priority ${a.priority ?? 0}`, 'muted'),
        cell(`admitted ${ago(a.at)}`, 'muted'),
      ], { select: `Workload/${wl}` }));
      // Why each waits is the workload controller's Admitted condition; qm describe queue gives the order.
      const pending = [...w.items.values()]
        .filter((wl) => (wl.spec?.queue ?? 'default') === name && !wl.metadata.deletedAt && !admittedUids.has(wl.metadata.uid))
        .sort((x, y) => byName(x.metadata.name, y.metadata.name))
        .map((wl) => {
          const c = condition(wl, 'Admitted');
          return row(`queue/${name}/${wl.metadata.name}`, 1, [
            cell(wl.metadata.name, 'name'),
            cell('Pending', 'warn'),
            cell(wl.spec?.priority ? `priority ${wl.spec.priority}` : ''),
            cell(c?.reason ?? '', 'muted'),
            cell(c?.message ?? '', 'muted'),
          ], { select: `Workload/${wl.metadata.name}`, phase: 'Pending' });
        });
      return { head, rows: [...admitted, ...pending] };
    });
    return filterGroups(groups, filter);
  },
};

// ---- Events, newest first

export function eventsFor(collection, kind, name) {
  return [...collection.items.values()]
    .filter((e) => e.spec?.involved?.kind === kind && e.spec?.involved?.name === name)
    .sort((x, y) => (y.spec?.lastSeen ?? '').localeCompare(x.spec?.lastSeen ?? ''));
}

const events = {
  id: 'events',
  title: 'Events',
  kinds: ['events'],
  columns: [['last seen', '6rem'], ['type', '5rem'], ['object', '22rem'], ['reason', '12rem'], ['count', '3.5rem'],
    ['message', 'minmax(12rem, 1fr)']],
  rows({ events: e }, filter) {
    const groups = [...e.items.values()]
      .sort((x, y) => (y.spec?.lastSeen ?? '').localeCompare(x.spec?.lastSeen ?? ''))
      .map((ev) => {
        const s = ev.spec ?? {};
        const involved = s.involved ?? {};
        return {
          head: row(`event/${ev.metadata.name}`, 2, [
            cell(ago(s.lastSeen)),
            cell(s.type ?? '', s.type === 'Warning' ? 'bad' : 'muted'),
            cell(`${involved.kind ?? ''}/${involved.name ?? ''}`, 'name'),
            cell(s.reason ?? ''),
            cell(s.count ?? 1),
            cell(`${s.message ?? ''}${s.source ? ` (${s.source})` : ''}`, 'muted'),
          ], { select: `${involved.kind}/${involved.name}` }),
          rows: [],
        };
      });
    return filterGroups(groups, filter);
  },
};

export const VIEWS = [nodes, workloads, queues, claims, volumes, domains, events];
