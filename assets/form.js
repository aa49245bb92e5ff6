// The battle as a form, built from the scenario's JSON Schema (the one the
// editors use) and filled from the file. Every change becomes an edit the
// server applies to the TOML text, so comments and layout survive and the
// TOML view and the form stay the same file. Plain ES module.

import { el } from "/assets/dom.js";

/// `sides[1].troop_strength`, the way the CLI's messages name a key.
export const shown = (path) =>
  path.reduce((s, step) => (typeof step === "number" ? `${s}[${step}]` : s ? `${s}.${step}` : step), "");

// The schema node behind `$ref` and single-entry `allOf`/`anyOf`, keeping the outer
// description and default.
function resolve(root, node) {
  let out = { ...node };
  while (true) {
    if (out.$ref) {
      const target = out.$ref.replace("#/definitions/", "");
      const { $ref, ...rest } = out;
      out = { ...root.definitions[target], ...rest };
    } else if (out.allOf && out.allOf.length === 1) {
      const { allOf, ...rest } = out;
      out = { ...allOf[0], ...rest };
    } else if (out.anyOf && out.anyOf.length === 1) {
      // An optional table: its one shape (the schema leaves out `null`).
      const { anyOf, ...rest } = out;
      out = { ...anyOf[0], ...rest };
    } else {
      return out;
    }
  }
}

function kind(node) {
  if (node.oneOf && node.oneOf.every((o) => "const" in o)) return "choice";
  if (node.const !== undefined) return "fixed";
  if (node.type === "integer" || node.type === "number") return "number";
  if (node.type === "boolean") return "flag";
  if (node.type === "string") return "text";
  if (node.type === "array" && node.items && node.items.type === "string") return "words";
  if (node.type === "array") return "list";
  if (node.type === "object" && node.properties) return "group";
  return "other";
}

/// A key as people read it: `catastrophe_modifier` → `Catastrophe modifier`.
const title = (key) => {
  const words = String(key).split("_").map((w) => (["ts", "tl", "hp", "dr", "ht", "iq", "pc", "gm"].includes(w) ? w.toUpperCase() : w));
  const text = words.join(" ");
  return text.charAt(0).toUpperCase() + text.slice(1);
};

/// What a field takes, in words: `a whole number from 1 to 100,000`.
function takes(node, k) {
  if (k === "choice") return `one of ${node.oneOf.map((o) => String(o.const).replaceAll("_", " ")).join(", ")}`;
  if (k === "flag") return "yes or no";
  if (k === "words") return "words separated by commas";
  if (k !== "number") return "text";
  const n = (x) => Number(x).toLocaleString("en").replace("-", "\u2212");
  const what = node.type === "integer" ? "a whole number" : "a number";
  if (node.minimum !== undefined && node.maximum !== undefined) return `${what} from ${n(node.minimum)} to ${n(node.maximum)}`;
  if (node.minimum !== undefined) return `${what} of at least ${n(node.minimum)}`;
  if (node.maximum !== undefined) return `${what} of at most ${n(node.maximum)}`;
  return what;
}

/// A check's message about a field, in the field's own words where it is
/// about what the field takes (a value out of range, or of the wrong
/// kind); any other (two sides of one name) as the check says it, without
/// the file and line a page has no use for.
function fieldWords(row, message) {
  const plain = message.replace(/^[^:`\s]+\.toml:(\d+:\d+:)?\s*/, "");
  const typed = /` = (\S+) is out of range/.exec(plain) || /^TOML parse error[\s\S]*?=\s*(.+?)\s*\n/.exec(plain);
  if (!typed && !plain.startsWith("TOML parse error")) return plain;
  const value = typed ? typed[1].replace(/^-/, "\u2212") : undefined;
  return `${row.dataset.label} takes ${row.dataset.takes}${value ? `, not ${value}` : ""}.`;
}

function hint(node) {
  const parts = [];
  if (node.minimum !== undefined || node.maximum !== undefined) {
    const n = (x) => Number(x).toLocaleString("en").replace("-", "\u2212");
    parts.push(node.minimum === undefined ? `at most ${n(node.maximum)}` : node.maximum === undefined ? `at least ${n(node.minimum)}` : `${n(node.minimum)} to ${n(node.maximum)}`);
  }
  if (node.default !== undefined && typeof node.default !== "object") parts.push(`default ${String(node.default).replaceAll("_", " ")}`);
  return parts.join(", ");
}

// Properties in the order a reader expects: the name first, the sides
// before the people in them.
function ordered(node) {
  const rank = (k) => (k === "name" ? 0 : k === "sides" || k === "attacker" ? 1 : k === "defender" ? 2 : 3);
  return Object.keys(node.properties).sort((a, b) => rank(a) - rank(b));
}

/// A form over `doc` (the file as JSON) for `schema`. `edit(list)` sends
/// edits to the server; the form is rebuilt from its answer.
export class BattleForm {
  constructor(box, edit) {
    this.box = box;
    this.edit = edit;
    this.opened = new Set(); // folded entries the user opened, kept across redraws
  }

  draw(schema, doc) {
    this.schema = schema;
    this.box.replaceChildren();
    if (!schema) {
      this.box.append(el("p", { class: "muted", text: "This file names no system the form knows; edit it as TOML." }));
      return;
    }
    this.box.append(this.group(schema, doc, [], schema.title || "Battle"));
  }

  group(node, value, path, legend) {
    const box = el("fieldset", { class: "group" });
    if (legend) box.append(el("legend", { text: legend, title: shown(path) }));
    const simple = el("div", { class: "fields" });
    box.append(simple);
    const required = new Set(node.required || []);
    for (const key of ordered(node)) {
      // The battle count and seed are the Run panel's, the page's one place for them.
      if (path.length === 0 && (key === "trials" || key === "seed")) continue;
      const child = resolve(this.schema, node.properties[key]);
      const here = [...path, key];
      const current = value ? value[key] : undefined;
      const k = kind(child);
      if (k === "group") box.append(this.group(child, current, here, title(key)));
      else if (k === "list" && child.items) box.append(this.list(child, current || [], here, key));
      else simple.append(this.field(child, current, here, key, required.has(key), k));
    }
    return box;
  }

  list(node, items, path, key) {
    const item = resolve(this.schema, node.items);
    // An entry is named by its schema's kind (`HeroFile` → Hero), counted from 1.
    const noun = node.items && node.items.$ref ? node.items.$ref.split("/").pop().replace(/File$/, "") : title(key);
    const box = el("div", { class: "list" }, el("h3", { text: `${title(key)} (${items.length})`, title: shown(path) }));
    const max = node.maxItems ?? Infinity;
    const min = node.minItems ?? 0;
    items.forEach((value, i) => {
      const name = value && value.name ? `${noun} ${i + 1}: ${value.name}` : `${noun} ${i + 1}`;
      // Short lists (two sides) open; longer ones (the PCs) folded to a line each.
      const fieldset = kind(item) === "group" ? this.group(item, value, [...path, i], null) : el("div");
      const fold = el("details", {}, el("summary", { text: name, title: `${shown(path)}[${i}]` }), fieldset);
      if (items.length <= 2 || this.opened.has(`${shown(path)}[${i}]`)) fold.open = true;
      fold.addEventListener("toggle", () => {
        const key = `${shown(path)}[${i}]`;
        if (fold.open) this.opened.add(key);
        else this.opened.delete(key);
      });
      const remove = el("button", { class: "quiet small", type: "button", text: `Remove ${value && value.name ? value.name : "this"}` });
      remove.disabled = items.length <= min;
      remove.addEventListener("click", () => this.edit([{ op: "remove", path: [...path, i] }], true));
      fieldset.append(remove);
      box.append(fold);
    });
    const add = el("button", { class: "quiet", type: "button", text: `Add a ${noun.toLowerCase()}` });
    add.disabled = items.length >= max;
    add.addEventListener("click", () => {
      this.opened.add(`${shown(path)}[${items.length}]`);
      this.edit([{ op: "append", path, value: this.fresh(item, items) }], true);
    });
    box.append(add);
    return box;
  }

  // A new entry: a copy of the last one under a new name, or the required
  // keys at their lowest allowed values.
  fresh(item, items) {
    const names = new Set(items.map((x) => x && x.name));
    const unique = (base) => {
      for (let n = 2; ; n++) if (!names.has(`${base} ${n}`)) return `${base} ${n}`;
    };
    if (items.length) {
      const copy = structuredClone(items[items.length - 1]);
      if ("name" in copy) copy.name = unique(String(copy.name).replace(/ \d+$/, ""));
      return copy;
    }
    const value = {};
    for (const key of item.required || []) {
      const node = resolve(this.schema, item.properties[key]);
      const k = kind(node);
      value[key] = k === "number" ? node.minimum ?? 0 : k === "flag" ? false : k === "choice" ? node.oneOf[0].const : key === "name" ? unique("New") : "";
    }
    return value;
  }

  field(node, current, path, key, required, k) {
    const id = "f-" + shown(path).replace(/[^A-Za-z0-9_-]/g, "_");
    const row = el("div", { class: "field", "data-path": JSON.stringify(path) });
    // In words; the tooltip adds the key as the file and the CLI's messages name it.
    const label = el("label", { for: id, text: title(key) });
    label.title = `${node.description ? `${node.description}\n` : ""}(in the file: ${shown(path)})`;
    let input;
    const present = current !== undefined;
    if (k === "choice") {
      input = el("select", { id });
      // Choices read in words (`as needed`); the value is the file's (`as_needed`).
      const words = (v) => String(v).replaceAll("_", " ");
      if (!required) input.append(el("option", { value: "", text: node.default !== undefined ? `(default: ${words(node.default)})` : "(not set)" }));
      for (const o of node.oneOf) input.append(el("option", { value: o.const, text: words(o.const), title: o.const }));
      input.value = present ? current : "";
    } else if (k === "flag") {
      input = el("input", { id, type: "checkbox" });
      input.checked = present ? current : Boolean(node.default);
    } else if (k === "fixed" || k === "other") {
      const text = typeof current === "string" ? current : JSON.stringify(current);
      input = el("input", { id, type: "text", readonly: "", value: present ? text : "" });
      input.title = k === "fixed" ? "fixed for this kind of battle" : "edit this one in the TOML view";
    } else {
      input = el("input", { id, type: "text", value: present ? (k === "words" ? current.join(", ") : String(current)) : "" });
      if (k === "number") input.setAttribute("inputmode", "decimal");
      if (!present && node.default !== undefined) input.placeholder = k === "words" ? node.default.join(", ") : String(node.default);
    }
    input.addEventListener("change", () => this.changed(input, path, k, present, row));
    const note = el("span", { class: "hint", text: hint(node) });
    const error = el("div", { class: "field-error", role: "alert" });
    // What the field takes, in its own words, for its messages.
    row.dataset.label = title(key);
    row.dataset.takes = takes(node, k);
    row.dataset.kept = present ? (Array.isArray(current) ? current.join(", ") : String(current)) : "";
    row.append(label, input, note, error);
    return row;
  }

  changed(input, path, k, present, row) {
    if (k === "flag") return this.edit([{ op: "set", path, value: input.checked }], false);
    const raw = input.value.trim();
    if (raw === "") {
      // An emptied field falls back to its default.
      return present ? this.edit([{ op: "remove", path }], true) : undefined;
    }
    let value = raw;
    if (k === "number") {
      const number = Number(raw.replaceAll("_", "").replace("\u2212", "-"));
      // Not a number: said beside the field, and nothing sent (the battle
      // keeps its value until a number is typed).
      if (Number.isNaN(number)) {
        const kept = row.dataset.kept ? `; until then the battle keeps ${row.dataset.kept.replace(/^-/, "\u2212")}` : "";
        row.classList.add("invalid");
        row.querySelector(".field-error").textContent = `${row.dataset.label} takes ${row.dataset.takes}, not \u201c${raw}\u201d${kept}.`;
        return undefined;
      }
      value = number;
    }
    if (k === "words") value = raw.split(",").map((w) => w.trim()).filter(Boolean);
    return this.edit([{ op: "set", path, value }], !present);
  }

  /// Shows each error beside its field; returns the ones no field holds.
  showErrors(errors) {
    for (const row of this.box.querySelectorAll(".field")) {
      row.classList.remove("invalid");
      row.querySelector(".field-error").textContent = "";
    }
    const left = [];
    for (const e of errors) {
      const wanted = JSON.stringify(e.path);
      const target = e.path && [...this.box.querySelectorAll(".field")].find((r) => r.dataset.path === wanted);
      if (target) {
        target.classList.add("invalid");
        const fold = target.closest("details");
        if (fold) fold.open = true;
        target.querySelector(".field-error").textContent = fieldWords(target, e.message);
      } else {
        left.push(e);
      }
    }
    return left;
  }
}
