// The HTTP API over fetch(). Every call sends the token in the Authorization header; it is never
// put in a URL. Watches use fetch() with a stream reader because EventSource cannot send headers.

export class ApiError extends Error {
  constructor(status, reason, message) {
    super(message || `HTTP ${status}`);
    this.status = status;
    this.reason = reason || '';
  }

  static async from(response) {
    let body = {};
    try { body = await response.json(); } catch { /* not JSON: keep the status */ }
    return new ApiError(response.status, body.reason, body.message || `HTTP ${response.status} ${response.statusText}`);
  }
}

export class Api {
  constructor(token) {
    this.token = token;
  }

  headers() {
    return { Authorization: `Bearer ${this.token}`, Accept: 'application/json' };
  }

  /**
   * One page of a list ({kind:"List", revision, items, continue?}): at most `limit` objects in name
   * order, every page read at the first one's revision; `continue` names the next page when there is one.
   */
  async listPage(plural, limit, continueToken, signal) {
    const query = new URLSearchParams({ limit: String(limit) });
    if (continueToken) query.set('continue', continueToken);
    const response = await fetch(`/api/v1/${plural}?${query}`, { headers: this.headers(), signal, cache: 'no-store' });
    if (!response.ok) throw await ApiError.from(response);
    return response.json();
  }

  /** The whole list in one request: for the short ones (the login's proof of the token). */
  async list(plural, signal) {
    const response = await fetch(`/api/v1/${plural}`, { headers: this.headers(), signal, cache: 'no-store' });
    if (!response.ok) throw await ApiError.from(response);
    return response.json();
  }

  /** A node's MIG GPUs as the server reads them (GET …/nodes/NAME?as=mig): what the picture draws. */
  async mig(node, signal) {
    const response = await fetch(`/api/v1/nodes/${encodeURIComponent(node)}?as=mig`, { headers: this.headers(), signal, cache: 'no-store' });
    if (!response.ok) throw await ApiError.from(response);
    return response.json();
  }

  /**
   * The watch lines after `revision`, one parsed JSON document each: ADDED / MODIFIED / DELETED with
   * an object, BOOKMARK with a revision, or ERROR (the last line). Ends when the server ends it.
   */
  async *watch(plural, revision, signal) {
    const url = `/api/v1/${plural}?watch=true&revision=${encodeURIComponent(revision)}`;
    const response = await fetch(url, { headers: this.headers(), signal, cache: 'no-store' });
    if (!response.ok) throw await ApiError.from(response);
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    let buffered = '';
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        buffered += value;
        let newline;
        while ((newline = buffered.indexOf('\n')) >= 0) {
          const line = buffered.slice(0, newline).trim();
          buffered = buffered.slice(newline + 1);
          if (line) yield JSON.parse(line);
        }
      }
    } finally {
      reader.cancel().catch(() => {});
    }
  }
}
