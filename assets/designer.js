// The deck designer: every cell of every Combat Card as a choice of
// `- F H R D`; each edit is applied to the table's TOML by the server,
// which answers with the exact skew analysis and the heatmap that
// `warcrunch cards` draws. Plain ES module.

import { download, el } from "/assets/dom.js";

const RESULTS = ["-", "F", "H", "R", "D"];

export class Designer {
  constructor(box, post) {
    this.box = box;
    this.post = post;
    this.card = 0;
    this.deck = null;
  }

  async load(toml) {
    const result = await this.post("/api/cards", toml === undefined ? {} : { toml });
    if (!result.ok) return this.fail(result);
    this.deck = result.body;
    this.draw();
    return true;
  }

  async setCell(card, row, column, symbol) {
    const cells = [...this.deck.cards[card][row]];
    cells[column] = symbol;
    const edited = await this.post("/api/edit", {
      toml: this.deck.toml,
      edits: [{ op: "set", path: ["cards", card, this.deck.rows[row]], value: cells.join(" ") }],
    });
    if (!edited.ok) return this.fail(edited);
    return this.load(edited.body.toml);
  }

  fail(result) {
    const errors = (result.body && result.body.errors) || [{ message: (result.body && result.body.error) || String(result.body) }];
    this.box.querySelector("#deck-errors").textContent = errors.map((e) => e.message).join("\n");
    return false;
  }

  draw() {
    const d = this.deck;
    // The cell or card button that has focus keeps it through the redraw
    // (a keyboard user changing a cell stays on it).
    const active = document.activeElement;
    const focused = this.box.contains(active) ? active.dataset.cell ?? (active.dataset.card && `card ${active.dataset.card}`) : undefined;
    this.box.querySelector("#deck-errors").textContent = "";
    const tabs = this.box.querySelector("#deck-cards");
    tabs.replaceChildren();
    d.cards.forEach((_, c) => {
      const b = document.createElement("button");
      b.type = "button";
      b.className = c === this.card ? "" : "quiet";
      b.textContent = `Card ${c + 1}`;
      b.dataset.card = c;
      b.addEventListener("click", () => {
        this.card = c;
        this.draw();
      });
      tabs.append(b);
    });
    if (this.card >= d.cards.length) this.card = 0;
    const odd = new Set(d.anomalies.map((a) => `${a.row}:${a.column}`));
    const table = document.createElement("table");
    table.className = "deck";
    const head = table.insertRow();
    head.append(document.createElement("th"));
    for (const c of d.columns) {
      const th = document.createElement("th");
      th.textContent = c;
      head.append(th);
    }
    d.cards[this.card].forEach((cells, r) => {
      const tr = table.insertRow();
      const th = document.createElement("th");
      th.textContent = d.rows[r];
      tr.append(th);
      cells.forEach((symbol, col) => {
        const td = tr.insertCell();
        td.className = `r${RESULTS.indexOf(symbol)}` + (odd.has(`${r}:${col}`) ? " odd" : "");
        const select = document.createElement("select");
        select.setAttribute("aria-label", `card ${this.card + 1} ${d.rows[r]} ${d.columns[col]}`);
        select.dataset.cell = `${this.card}:${r}:${col}`;
        for (const s of RESULTS) select.append(new Option(s, s, false, s === symbol));
        select.addEventListener("change", () => this.setCell(this.card, r, col, select.value));
        td.append(select);
      });
    });
    this.box.querySelector("#deck-grid").replaceChildren(table);
    if (focused !== undefined) {
      const again = focused.startsWith("card ")
        ? tabs.querySelector(`[data-card="${focused.slice(5)}"]`)
        : table.querySelector(`select[data-cell="${focused}"]`);
      if (again) again.focus();
    }
    this.box.querySelector("#deck-findings").textContent = d.findings;
    // Each odd cell named in words; a click shows it in the grid.
    const list = this.box.querySelector("#deck-anomalies");
    list.replaceChildren();
    for (const a of d.anomalies) {
      const card = a.card ?? this.card;
      const go = el("button", { type: "button", class: "quiet small", text: `Show card ${card + 1}` });
      go.addEventListener("click", () => {
        this.card = card;
        this.draw();
        const cell = this.box.querySelector(`#deck-grid select[data-cell="${card}:${a.row}:${a.column}"]`);
        if (cell) cell.focus();
      });
      list.append(el("li", {}, go, ` ${a.sentence}`));
    }
    if (!d.anomalies.length) list.append(el("li", { text: "none: every column follows its pattern" }));
    this.box.querySelector("#deck-notes").hidden = false;
    // The server's own chart (plotters SVG), shown as an image (hidden
    // until there is a deck, so the page shows no empty picture).
    const img = this.box.querySelector("#deck-heatmap");
    img.src = "data:image/svg+xml;charset=utf-8," + encodeURIComponent(d.heatmap);
    img.hidden = false;
  }

  save() {
    if (this.deck) download("my_deck.toml", this.deck.toml);
  }
}
