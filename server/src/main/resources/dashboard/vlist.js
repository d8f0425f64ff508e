// A windowed list: a spacer as tall as every row together, and only the rows in view (plus a few
// above and below) as elements, reused as the list scrolls. A thousand nodes with eight GPUs each
// are nine thousand rows, of which some forty exist in the page at any time.

const OVERSCAN = 8;

export class VirtualList {
  /** renderRow(element, row) fills a reused row element; rowHeight is in CSS pixels, fixed. */
  constructor(container, rowHeight, renderRow) {
    this.container = container;
    this.rowHeight = rowHeight;
    this.renderRow = renderRow;
    this.rows = [];
    this.spacer = document.createElement('div');
    this.spacer.className = 'vlist-spacer';
    container.appendChild(this.spacer);
    this.pool = [];
    container.addEventListener('scroll', () => this.paint(), { passive: true });
    new ResizeObserver(() => this.paint()).observe(container);
  }

  setRows(rows) {
    this.rows = rows;
    this.spacer.style.height = `${rows.length * this.rowHeight}px`;
    this.paint();
  }

  paint() {
    const h = this.rowHeight;
    const top = this.container.scrollTop;
    const height = this.container.clientHeight || 600;
    const first = Math.max(0, Math.floor(top / h) - OVERSCAN);
    const last = Math.min(this.rows.length, Math.ceil((top + height) / h) + OVERSCAN);
    const wanted = Math.max(0, last - first);
    while (this.pool.length < wanted) {
      const row = document.createElement('div');
      this.container.appendChild(row);
      this.pool.push(row);
    }
    while (this.pool.length > wanted) this.pool.pop().remove(); // a shorter list: no stale rows left behind
    for (let i = 0; i < wanted; i++) {
      const element = this.pool[i];
      const index = first + i;
      element.style.transform = `translateY(${index * h}px)`;
      this.renderRow(element, this.rows[index], index);
    }
  }
}
