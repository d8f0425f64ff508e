// One kind's objects kept current: list once, then follow the watch from the list's revision.
// A clean end of the stream resumes from the last revision seen (bookmarks move it forward); a 410
// (the history was compacted past it) lists again; other failures retry with a growing pause.

const FIRST_PAUSE_MS = 250;
const LONGEST_PAUSE_MS = 10_000;

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
    const list = await this.api.list(this.plural, signal);
    this.items = new Map(list.items.map((o) => [o.metadata.name, o]));
    this.revision = list.revision;
    this.setState('live', '');
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
          this.changed(line.object.metadata.revision);
          break;
        default: // ADDED, MODIFIED
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
