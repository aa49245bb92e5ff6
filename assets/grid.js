// Every rule table of the loaded battle as a grid of typed cells (from the
// server's /api/tables: numbers with their range, choices as choices,
// stand-in cells marked). Each edit is applied to the table's TOML by the
// server, checked as a scenario's table is, and kept on the page: the next
// run of the battle uses it. Plain ES module.

import { download, el, targetWords } from "/assets/dom.js";

const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);

export class TableGrid {
  constructor(box, post, changed) {
    this.box = box;
    this.post = post;
    this.changed = changed; // called after an edit: the battle is checked again
    this.tables = []; // what the loaded battle reads: { name, text? }
    this.edited = {}; // table name -> edited TOML, sent with the next run
    this.original = {}; // table name -> the text before any edit
    this.before = {}; // table name -> Map of each cell's value before any edit
    this.current = null; // the grid shown: { grid, toml, errors }
    // The shading of the cells: { legend, cells: [{ sweep, level 0..1, text }] },
    // of the battle's tables as they are (dropped on an edit).
    this.heat = null;
  }

  /// How often each cell is read (/api/usage), as the shading.
  showUsage(usage) {
    const legend = `Shading: the share of ${usage.battles.toLocaleString()} battles (seed ${usage.seed}) that read each cell, fought by the book as warcrunch run --usage counts them; white cells were never read.`;
    const cells = usage.cells.map((u) => ({ sweep: u.sweep, level: u.share, text: `read in ${(100 * u.share).toFixed(1)}% of battles` }));
    this.showHeat({ legend, cells, unlisted: "never read" });
  }

  /// Which cells matter: each moved cell's largest change of the target,
  /// from a sensitivity's rows (`knob`, `from`, `to`, `difference`, `ci_low`, `ci_high`);
  /// `words` is its target as the server words it.
  showSensitivity(target, rows, words) {
    const largest = new Map();
    for (const r of rows) {
      if (!r.knob.startsWith("tables.")) continue;
      const d = Number(r.difference);
      if (!largest.has(r.knob) || Math.abs(d) > Math.abs(largest.get(r.knob).d)) largest.set(r.knob, { d, r });
    }
    const { asked, change, amount } = targetWords(target, words);
    const cells = [...largest.entries()].map(([sweep, { d, r }]) => ({
      sweep,
      amount: Math.abs(d),
      text: `${r.from} \u2192 ${r.to} moves ${asked} ${change(d, Number(r.ci_low), Number(r.ci_high))}`,
    }));
    // Shaded against the largest move in the table shown.
    const legend = (top) =>
      `Shading: how far one step of each cell moves ${asked}, from the sensitivity asked below; the darkest cell of this table moves it ${amount(top)}; white cells were not moved.`;
    this.showHeat({ legend, cells, unlisted: "not moved", relative: true });
  }

  showHeat(heat) {
    this.heat = heat;
    if (this.current) this.draw();
  }

  /// The largest amount of the shading in the table shown.
  heatTop() {
    const prefix = `tables.${this.current.grid.name}.`;
    return Math.max(1e-12, ...this.heat.cells.filter((c) => c.sweep.startsWith(prefix)).map((c) => c.amount));
  }

  /// A cell's shading: the heat entry naming it, or the row it is in.
  heatOf(sweep) {
    if (!this.heat) return undefined;
    let best = null;
    for (const u of this.heat.cells) {
      if ((sweep === u.sweep || sweep.startsWith(u.sweep + ".")) && (!best || u.sweep.length > best.sweep.length)) best = u;
    }
    if (!best) return { level: 0, text: this.heat.unlisted };
    return { level: this.heat.relative ? best.amount / this.heatTop() : best.level, text: best.text };
  }

  /// The battle on the page changed: offer its tables (edits of a table
  /// it still reads are kept).
  setBattle(tables) {
    this.tables = tables;
    for (const name of Object.keys(this.edited)) {
      if (!tables.some((t) => t.name === name)) delete this.edited[name];
    }
    const pick = this.box.querySelector("#table-pick");
    const chosen = pick.value;
    pick.replaceChildren(el("option", { value: "", text: "(choose a table)" }));
    for (const t of tables) {
      const mark = this.edited[t.name] ? " (edited)" : "";
      pick.append(el("option", { value: t.name, text: `${t.name}${mark}` }));
    }
    if (tables.some((t) => t.name === chosen)) pick.value = chosen;
  }

  /// The page's edits of the battle's tables, kept while another battle
  /// is shown.
  kept() {
    return { edited: { ...this.edited }, original: { ...this.original }, before: { ...this.before } };
  }

  /// Brings back edits `kept` (after `clear`): the battle picked again.
  restore(kept) {
    Object.assign(this.edited, kept.edited);
    Object.assign(this.original, kept.original);
    Object.assign(this.before, kept.before);
    this.box.querySelector("#table-compare").disabled = !Object.keys(this.edited).length;
  }

  /// Another battle was loaded: its tables start as written.
  clear() {
    this.asked = (this.asked || 0) + 1;
    this.heat = null;
    this.edited = {};
    this.original = {};
    this.before = {};
    this.current = null;
    this.box.querySelector("#table-grid").replaceChildren();
    this.box.querySelector("#table-errors").replaceChildren();
    this.box.querySelector("#table-compare").disabled = true;
    // The last comparison was of the other battle.
    this.box.querySelector("#compare-status").textContent = "";
    this.box.querySelector("#compare-files").replaceChildren();
    this.box.querySelector("#compare-report").hidden = true;
  }

  async show(name) {
    if (!name) return;
    // Only the latest table asked for is drawn: an answer that comes back
    // after another was asked (a slow one, of the battle before) is dropped.
    const asked = (this.asked = (this.asked || 0) + 1);
    const known = this.tables.find((t) => t.name === name);
    // The table as the battle holds it: the page's edit, else the table as
    // first read (a check's list of tables may be of an earlier edit).
    const held = () => this.edited[name] ?? this.original[name] ?? (known && known.text);
    const text = held();
    const result = await this.post("/api/tables", text === undefined ? { name } : { name, toml: text });
    if (asked !== this.asked) return;
    // An edit landed while this was asked: the grid shows what the battle
    // holds now, never the table as it was.
    if (held() !== text) return this.show(name);
    if (!result.ok) return this.fail(result);
    if (!(name in this.original)) {
      this.original[name] = result.body.toml;
      // Each cell's value as written, to mark the edited ones.
      this.before[name] = new Map();
      for (const section of result.body.grid.sections)
        for (const row of section.rows) for (const c of row.cells) if (c) this.before[name].set(c.sweep, c.value);
    }
    this.current = result.body;
    this.draw();
  }

  /// Table `name` as `text` for the next runs (the deck designer's deck).
  use(name, text) {
    this.edited[name] = text;
    this.heat = null;
    this.box.querySelector("#table-compare").disabled = false;
    this.setBattle(this.tables);
  }

  /// One cell's edit, after any still in flight: each is applied to the
  /// table as the one before left it, so quick edits never undo each other.
  setCell(cell, value) {
    const name = this.current.grid.name;
    this.pending = (this.pending || 0) + 1;
    this.editing = (this.editing || Promise.resolve())
      .catch(() => {})
      .then(() => this.setCellNow(name, cell, value))
      .finally(() => (this.pending -= 1));
    return this.editing;
  }

  /// Sets one cell of table `name`, on the table as the battle holds it
  /// (the edits before it applied), not as the grid last drew it.
  async setCellNow(name, cell, value) {
    const edit = value === undefined ? { op: "remove", path: cell.path } : { op: "set", path: cell.path, value };
    this.heat = null; // found on the tables before the edit
    const held = this.edited[name] ?? this.original[name] ?? this.current.toml;
    const edited = await this.post("/api/edit", { toml: held, edits: [edit] });
    if (!edited.ok) return this.fail(edited);
    if (edited.body.toml === this.original[name]) delete this.edited[name];
    else this.edited[name] = edited.body.toml;
    this.setBattle(this.tables);
    await this.show(name);
    await this.changed();
  }

  async reset() {
    if (!this.current) return;
    delete this.edited[this.current.grid.name];
    this.setBattle(this.tables);
    await this.show(this.current.grid.name);
    // The button is disabled now (nothing left to undo): the keyboard
    // goes on from the table's first cell, not from the page's top.
    const first = this.box.querySelector("#table-grid [data-sweep]");
    if (first) first.focus();
    await this.changed();
  }

  save() {
    if (this.current) download(`my_${this.current.grid.name}.toml`, this.current.toml);
  }

  fail(result) {
    const errors = (result.body && result.body.errors) || [{ message: (result.body && result.body.error) || String(result.body) }];
    this.box.querySelector("#table-errors").replaceChildren(...errors.map((e) => el("div", { class: "flag", text: e.message })));
    return false;
  }

  /// Errors of a run or check that are about a table the page sent.
  showErrors(errors) {
    const mine = errors.filter((e) => e.table);
    if (mine.length && this.current && mine[0].table === this.current.grid.name) {
      this.current.errors = mine;
      this.draw();
    }
    return errors.filter((e) => !e.table || !this.current || e.table !== this.current.grid.name);
  }

  draw() {
    const { grid, errors } = this.current;
    const name = grid.name;
    const edited = name in this.edited;
    this.box.querySelector("#table-reset").disabled = !edited;
    this.box.querySelector("#table-compare").disabled = !Object.keys(this.edited).length;
    this.box.querySelector("#table-save").disabled = false;
    const out = [el("h3", { text: grid.title + (edited ? " (edited: the next run uses it)" : "") })];
    if (grid.description) out.push(el("p", { class: "muted", text: grid.description }));
    if (this.heat) {
      const legend = this.heat.relative ? this.heat.legend(this.heatTop()) : this.heat.legend;
      out.push(el("p", { class: "muted", text: legend }));
    }
    if (grid.stand_ins.length) {
      out.push(el("p", { class: "muted", text: `Dashed cells are stand-ins (the published value is unknown): ${grid.stand_ins.join(", ")}.` }));
    }
    const wrong = new Map(errors.filter((e) => e.path).map((e) => [JSON.stringify(e.path), e.message]));
    for (const section of grid.sections) out.push(this.section(section, wrong));
    // The cell that has focus (the next one, after Tab from an edit) keeps
    // it through the redraw.
    const box = this.box.querySelector("#table-grid");
    const active = box.contains(document.activeElement) ? document.activeElement : undefined;
    const focused = active && active.dataset.sweep;
    this.box.querySelector("#table-errors").replaceChildren(...errors.map((e) => el("div", { class: "flag", text: e.message })));
    // The cell with focus stays the same field through the redraw, its
    // selection and any keys typed in it kept (a number field holding only
    // "−" cannot be read back to carry over): it moves into the new grid,
    // knowing the value the table now holds, and shows it unless typed in.
    const fresh = focused ? out.map((o) => o.querySelector && o.querySelector(`[data-sweep="${CSS.escape(focused)}"]`)).find(Boolean) : undefined;
    if (fresh && fresh.tagName === active.tagName) {
      active.cellValue = fresh.cellValue;
      active.title = fresh.title;
      // A value changed under the reader is shown selected: the next key
      // replaces it, as in a cell just entered.
      if (!active.dataset.typed && active.value !== fresh.value) {
        active.value = fresh.value;
        if (active.select) active.select();
      }
      fresh.replaceWith(active);
    }
    box.replaceChildren(...out);
    if (focused) {
      const again = box.querySelector(`[data-sweep="${CSS.escape(focused)}"]`);
      if (again && again !== document.activeElement) again.focus();
    }
  }

  section(section, wrong) {
    const box = el("div", { class: "table-section" }, el("h4", { text: section.title }));
    if (section.description) box.append(el("p", { class: "muted", text: section.description }));
    const table = el("table", { class: "cells" });
    if (section.list) {
      const head = table.insertRow();
      head.append(el("th", { text: "" }));
      for (const c of section.columns) head.append(el("th", { scope: "col", title: c.input.description || "", text: c.title }, el("div", { class: "hint", text: c.input.hint })));
      for (const row of section.rows) {
        const tr = table.insertRow();
        tr.append(el("th", { scope: "row", text: row.label }));
        row.cells.forEach((cell, i) => tr.append(this.cell(cell, section.columns[i], `${section.title} ${row.label}`, wrong)));
      }
    } else {
      section.columns.forEach((c, i) => {
        const tr = table.insertRow();
        tr.append(el("th", { scope: "row", title: c.input.description || "", text: c.title }, el("div", { class: "hint", text: c.input.hint })));
        tr.append(this.cell(section.rows[0].cells[i], c, section.title, wrong));
      });
    }
    box.append(el("div", { class: "scroll" }, table));
    return box;
  }

  cell(cell, column, where, wrong) {
    const td = el("td");
    const input = column.input;
    const label = `${where} ${column.title}`;
    let field;
    if (input.kind === "choice") {
      field = el("select", { "aria-label": label });
      if (!cell) field.append(el("option", { value: "", text: "—" }));
      for (const c of input.choices) field.append(el("option", { value: c, text: c }));
      field.value = cell ? cell.value : "";
    } else if (input.kind === "flag") {
      field = el("input", { type: "checkbox", "aria-label": label });
      field.checked = Boolean(cell && cell.value);
    } else {
      const numeric = input.kind === "integer" || input.kind === "number";
      field = el("input", { type: numeric ? "number" : "text", "aria-label": label, size: numeric ? 5 : 8 });
      if (numeric) {
        field.step = input.kind === "integer" ? "1" : "any";
        if (input.minimum !== undefined) field.min = input.minimum;
        if (input.maximum !== undefined) field.max = input.maximum;
      }
      field.value = cell ? (Array.isArray(cell.value) ? cell.value.join(", ") : String(cell.value)) : "";
    }
    // A key the row leaves out is not set here (the TOML view can add it).
    if (!cell) field.disabled = true;
    // The value the table holds (a cell kept through a redraw learns the new one).
    field.cellValue = cell ? cell.value : undefined;
    field.addEventListener("input", () => (field.dataset.typed = "1"));
    if (cell) {
      field.dataset.sweep = cell.sweep;
      field.title = `${cell.sweep}${cell.stand_in ? " (stand-in)" : ""}`;
      if (cell.stand_in) td.classList.add("stand-in");
      const heat = this.heatOf(cell.sweep);
      if (heat) {
        td.style.background = heat.level > 0 ? `rgba(0, 114, 178, ${(0.08 + 0.6 * heat.level).toFixed(3)})` : "#fff";
        field.title += `; ${heat.text}`;
      }
      const written = this.before[this.current.grid.name];
      const was = written && written.get(cell.sweep);
      if (was !== undefined && !same(was, cell.value)) {
        td.classList.add("changed");
        field.title += ` (was ${JSON.stringify(was)})`;
      }
      // Every cell out of its range is marked at once (the server names
      // the first it meets; a range is the cell's own to check).
      const message = wrong.get(JSON.stringify(cell.path)) || outOfRange(cell, input);
      if (message) {
        td.classList.add("invalid");
        td.append(el("div", { class: "field-error", text: message }));
      }
    }
    field.addEventListener("change", () => {
      delete field.dataset.typed;
      const value = this.valueOf(field, input);
      const td = field.closest("td");
      // An emptied cell is no edit (the table keeps its value, the cell
      // stays open to type another): it says so where it is.
      if (value === undefined && cell) {
        const kept = JSON.stringify(field.cellValue).replace(/^-/, "\u2212");
        this.emptied(td, `${this.current.grid.name} table, ${where}, ${column.title}: empty; type a value${input.hint ? ` (allowed: ${input.hint})` : ""}; until then the table keeps ${kept}`);
        return;
      }
      // The value drawn, typed again: no edit, and no message left. While
      // an edit is in flight the drawn value may be stale: it is sent.
      if (cell && same(value, field.cellValue) && !this.pending) {
        td.classList.remove("invalid");
        const shown = td.querySelector(".field-error");
        if (shown && !outOfRange(cell, input)) shown.remove();
        return;
      }
      this.setCell(cell, value);
    });
    td.prepend(field);
    return td;
  }

  /// Marks cell `td` with `message` (replacing an earlier one).
  emptied(td, message) {
    td.classList.add("invalid");
    const shown = td.querySelector(".field-error") || td.appendChild(el("div", { class: "field-error" }));
    shown.textContent = message;
  }

  valueOf(field, input) {
    if (input.kind === "flag") return field.checked;
    const raw = field.value.trim();
    if (raw === "") return undefined;
    if (input.kind === "integer" || input.kind === "number") return Number(raw);
    if (input.kind === "list") return raw.split(",").map((w) => (Number.isNaN(Number(w)) ? w.trim() : Number(w)));
    return raw;
  }
}

/// Why a number cell's value is outside what its column allows, if it is.
function outOfRange(cell, input) {
  if (input.kind !== "integer" && input.kind !== "number") return undefined;
  const v = cell.value;
  if (typeof v !== "number") return undefined;
  const low = input.minimum ?? -Infinity;
  const high = input.maximum ?? Infinity;
  const whole = input.kind !== "integer" || Number.isInteger(v);
  if (v >= low && v <= high && whole) return undefined;
  return `${cell.sweep.split(".").slice(2).join(".")} = ${v} is out of range; allowed: ${input.hint || `${low} to ${high}`}${whole ? "" : ", whole numbers"}`;
}
