// One kind's objects kept current: list once, in pages, then follow the watch from the list's
// revision. Pages keep a 10,000-node fleet's slices (10 MB of JSON) from arriving as one response the
// page must parse in one go, and the first page shows while the rest load.
// A clean end of the stream resumes from the last revision seen (bookmarks move it forward); a 410
// (the history was compacted past it) lists again; other failures retry with a growing pause.

const FIRST_PAUSE_MS = 250;
const LONGEST_PAUSE_MS = 10_000;
// Objects per list request, as `qm get` reads them. Larger pages after the first were no faster to
// load whole (10,000 nodes in 2.4-2.6 s either way) and blocked the page longer to parse.
const PAGE = 500;

export class LiveCollection {
  constructor(api, plural, onChange, onUnauthorized) {
    this.api = api;
    this.plural = plural;
    this.onChange = onChange;
    this.onUnauthorized = onUnauthorized;
    this.items = new Map(); // name -> object
    this.revision = 0;
    this.state = 'loading'; // loading | live | retrying | absent
    this.note = '';
    this.version = 0; // bumped on every change, so views can cache what they derived
    this.members = 0; // bumped when a name comes or goes (not when an object changes): sorted names stay valid
    this.controller = new AbortController();
  }

  start() {
    this.run().catch((e) => console.error(`watch ${this.plural}`, e));
    return this;
  }

  stop() {
    this.controller.abort();
  }

  get stopped() {
    return this.controller.signal.aborted;
  }

  async run() {
    const signal = this.controller.signal;
    let mustList = true;
    let pause = FIRST_PAUSE_MS;
    while (!signal.aborted) {
      try {
        if (mustList) {
          await this.relist(signal);
          mustList = false;
        }
        await this.follow(signal);
        pause = FIRST_PAUSE_MS; // the server ended a healthy stream (a restart, a timeout): resume soon
      } catch (e) {
        if (signal.aborted) return;
        if (e.status === 410) {
          mustList = true;
          continue;
        }
        if (e.status === 401) {
          this.onUnauthorized(e.message);
          return;
        }
        if (e.status === 404 && mustList) {
          // A server without this kind (an older one): say so and stop asking.
          this.setState('absent', e.message);
          return;
        }
        this.setState('retrying', e.message || String(e));
      }
      await sleep(pause, signal);
      pause = Math.min(pause * 2, LONGEST_PAUSE_MS);
    }
  }

  async relist(signal) {
    // The first list shows each page as it comes; a list again (after a 410) swaps in the new whole.
    const first = this.state === 'loading';
    const items = new Map();
    let page = await this.api.listPage(this.plural, PAGE, '', signal);
    const revision = page.revision;
    for (;;) {
      for (const o of page.items) items.set(o.metadata.name, o);
      if (!page.continue) break;
      if (first) this.publish(items, `${items.size} so far`);
      page = await this.api.listPage(this.plural, PAGE, page.continue, signal);
    }
    this.revision = revision;
    this.publish(items, '');
    this.setState('live', '');
  }

  publish(items, note) {
    this.items = items;
    this.members++;
    this.note = note;
    this.version++;
    this.onChange(this);
  }

  async follow(signal) {
    for await (const line of this.api.watch(this.plural, this.revision, signal)) {
      switch (line.type) {
        case 'BOOKMARK':
          this.revision = Math.max(this.revision, line.revision);
          break;
        case 'ERROR': {
          const error = new Error(line.error?.message ?? 'watch ended');
          error.status = line.error?.code ?? 500;
          throw error;
        }
        case 'DELETED':
          this.items.delete(line.object.metadata.name);
          this.members++;
          this.changed(line.object.metadata.revision);
          break;
        default: // ADDED, MODIFIED
          if (!this.items.has(line.object.metadata.name)) this.members++;
          this.items.set(line.object.metadata.name, line.object);
          this.changed(line.object.metadata.revision);
      }
      if (this.state !== 'live') this.setState('live', '');
    }
  }

  changed(revision) {
    this.revision = Math.max(this.revision, revision ?? 0);
    this.version++;
    this.onChange(this);
  }

  setState(state, note) {
    this.state = state;
    this.note = note;
    this.version++;
    this.onChange(this);
  }
}

function sleep(ms, signal) {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => { clearTimeout(timer); resolve(); }, { once: true });
  });
}
