// The dashboard: token login, one view at a time, its kinds kept live over the watch API.
//
// Why plain ES modules and no framework or build step: the whole UI is a few hundred lines of
// lists and a side panel, which the DOM does well; without a toolchain the files in the jar are the
// files in the repository (nothing generated to review or to go stale), `./qm up` and the Maven
// build need no Node, and there are no npm dependencies to keep patched in what ships. Node is
// needed only by the browser test (dashboard-e2e/), never to build or run the server.

import { Api, ApiError } from './api.js';
import { clear, el } from './dom.js';
import { kindsFor, renderDetail } from './detail.js';
import { LiveCollection } from './live.js';
import { VirtualList } from './vlist.js';
import { VIEWS } from './views.js';

const TOKEN_KEY = 'qm.token';
const ROW_HEIGHT = 28;

const $ = (id) => document.getElementById(id);

const ui = {
  api: null,
  view: VIEWS[0],
  filter: '',
  selection: '', // "Kind/name" of the object in the side panel
  expanded: new Set(), // nodes whose free channels are listed one by one
  collections: {}, // plural -> LiveCollection
  list: null,
  scheduled: false,
  refresh: () => scheduleRender(), // for a view whose data arrives outside the watches
};

// ---- login

function showLogin(message) {
  for (const c of Object.values(ui.collections)) c.stop();
  ui.collections = {};
  ui.api = null;
  sessionStorage.removeItem(TOKEN_KEY);
  $('app').hidden = true;
  $('logout').hidden = true;
  clear($('tabs'));
  $('conn').textContent = '';
  $('login').hidden = false;
  $('login-error').textContent = message ?? '';
  $('token').focus();
}

async function login(token) {
  const api = new Api(token);
  try {
    await api.list('deviceclasses'); // proves the token; a short list even on a large cluster
  } catch (e) {
    showLogin(e instanceof ApiError && e.status === 401 ? 'That token was refused.' : `Cannot reach the server: ${e.message}`);
    return;
  }
  sessionStorage.setItem(TOKEN_KEY, token);
  ui.api = api;
  $('token').value = '';
  $('login').hidden = true;
  $('app').hidden = false;
  $('logout').hidden = false;
  buildTabs();
  selectView(ui.view);
}

// ---- views and the kinds they watch

function buildTabs() {
  const tabs = clear($('tabs'));
  for (const view of VIEWS) {
    const tab = el('button', 'tab', view.title);
    tab.type = 'button';
    tab.dataset.view = view.id;
    tab.addEventListener('click', () => selectView(view));
    tabs.append(tab);
  }
}

function selectView(view) {
  ui.view = view;
  ui.filter = '';
  $('filter').value = '';
  for (const tab of $('tabs').children) tab.classList.toggle('active', tab.dataset.view === view.id);
  const columns = clear($('columns'));
  for (const [title] of view.columns) columns.append(el('span', '', title));
  columns.style.gridTemplateColumns = view.columns.map(([, width]) => width).join(' ');
  $('list').scrollTop = 0;
  watchWhatIsShown();
  render();
}

/**
 * Watches exactly the kinds the view and the side panel need. Each watch holds a connection, and a
 * browser keeps at most six per server over HTTP/1.1: watching all nine kinds at once would starve
 * the requests that still have to get through.
 */
function watchWhatIsShown() {
  const wanted = new Set([...ui.view.kinds, ...(ui.selection ? kindsFor(ui.selection) : [])]);
  for (const [plural, collection] of Object.entries(ui.collections)) {
    if (!wanted.has(plural)) {
      collection.stop();
      delete ui.collections[plural];
    }
  }
  for (const plural of wanted) {
    if (!ui.collections[plural]) {
      ui.collections[plural] = new LiveCollection(ui.api, plural, scheduleRender, (m) => showLogin(`Logged out: ${m}`)).start();
    }
  }
}

function select(selection) {
  ui.selection = selection;
  watchWhatIsShown();
  render();
}

// ---- rendering, at most once a frame however many watch events arrive

function scheduleRender() {
  if (ui.scheduled) return;
  ui.scheduled = true;
  requestAnimationFrame(() => {
    ui.scheduled = false;
    render();
  });
}

const EMPTY = { items: new Map(), state: 'loading', note: '', members: 0 };

function render() {
  if (!ui.api) return;
  // Measured, so the browser test can say what a frame costs on a large cluster (performance
  // entries stay in this tab; nothing is sent anywhere).
  performance.mark('qm-render-start');
  try {
    renderView();
  } finally {
    performance.measure('qm-render', 'qm-render-start');
    if (performance.getEntriesByName('qm-render').length > 1000) performance.clearMeasures('qm-render');
  }
}

function renderView() {
  const data = {};
  for (const plural of ui.view.kinds) data[plural] = ui.collections[plural] ?? EMPTY;
  const rows = ui.view.rows(data, ui.filter, ui);
  ui.list.setRows(rows);
  $('count').textContent = `${rows.length} rows`;
  $('summary').textContent = ui.view.summary ? ui.view.summary() : '';
  const absent = ui.view.kinds.map((p) => ui.collections[p]).filter((c) => c?.state === 'absent');
  const note = absent.length && ui.view.id === 'events' ? 'no events API on this server'
    : ui.view.kinds.every((p) => data[p].state !== 'loading') && !rows.length ? (ui.filter ? 'nothing matches the filter' : 'nothing here yet') : '';
  $('view-note').textContent = note;
  $('empty').textContent = note;
  $('empty').hidden = !note || rows.length > 0;
  renderConnection();
  const panel = $('detail');
  panel.hidden = !ui.selection;
  if (ui.selection) renderDetail(panel, ui.selection, ui.collections, () => select(''));
}

function renderConnection() {
  const all = Object.values(ui.collections).filter((c) => c.state !== 'absent');
  const trouble = all.find((c) => c.state === 'retrying');
  const loading = all.find((c) => c.state === 'loading');
  const revision = Math.max(0, ...all.map((c) => c.revision));
  const conn = $('conn');
  conn.className = trouble ? 'bad' : loading ? 'warn' : 'ok';
  conn.textContent = trouble ? `reconnecting ${trouble.plural}: ${trouble.note}`
    : loading ? `loading ${loading.plural}${loading.note ? `: ${loading.note}` : ''}…` : revision ? `live · revision ${revision}` : 'live';
}

function renderRow(element, row) {
  element.className = `row level-${row.level}${row.select || row.toggle ? ' clickable' : ''}${row.select && row.select === ui.selection ? ' selected' : ''}`;
  element.dataset.key = row.key;
  if (row.phase) element.dataset.phase = row.phase; else delete element.dataset.phase;
  element.style.gridTemplateColumns = ui.view.columns.map(([, width]) => width).join(' ');
  clear(element);
  for (const c of row.cells) {
    const span = el('span', c.cls, c.bar ? '' : c.text);
    span.title = c.text;
    // A picture: boxes as wide as what each covers (a MIG GPU's instances over its positions).
    for (const b of c.bar ?? []) {
      const box = el('span', `slot ${b.cls}`, b.text);
      box.style.flexGrow = b.span;
      box.title = b.text;
      span.append(box);
    }
    element.append(span);
  }
}

function onListClick(event) {
  const element = event.target.closest('.row');
  if (!element) return;
  const row = ui.list.rows.find((r) => r.key === element.dataset.key);
  if (row?.toggle) {
    if (ui.expanded.has(row.toggle)) ui.expanded.delete(row.toggle); else ui.expanded.add(row.toggle);
    render();
  } else if (row?.select) {
    select(row.select);
  }
}

// ---- start

document.addEventListener('DOMContentLoaded', () => {
  ui.list = new VirtualList($('list'), ROW_HEIGHT, renderRow);
  $('list').addEventListener('click', onListClick);
  $('filter').addEventListener('input', () => {
    ui.filter = $('filter').value;
    $('list').scrollTop = 0;
    render();
  });
  $('login-form').addEventListener('submit', (event) => {
    event.preventDefault();
    const token = $('token').value.trim();
    if (token) login(token);
  });
  $('logout').addEventListener('click', () => showLogin('Logged out.'));
  // "2s ago" ages even when nothing changes: redraw now and then (cheap: only visible rows are painted).
  setInterval(scheduleRender, 10_000);
  const saved = sessionStorage.getItem(TOKEN_KEY);
  if (saved) login(saved); else showLogin();
});
