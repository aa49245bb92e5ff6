// Sweeps, solves, sensitivity analyses and tunes from the page: a small form per
// question, read into the typed request the server answers with the same
// library calls as the commands; the answer is the command's report and
// files. Plain ES module.

import { $, el, valueRead } from "/assets/dom.js";

/// Shows the fields `command` takes and hides the others.
export function show(command) {
  for (const field of document.querySelectorAll("#questions [data-for]")) {
    field.hidden = !field.dataset.for.split(" ").includes(command);
  }
}

/// Writes `request` into the form.
export function fill(request) {
  const goal = request.goal || { at_least: 0.5 };
  const [kind, p] = Object.entries(goal)[0];
  $("ask-set").value = (request.set || []).join("\n");
  $("ask-vary").value = request.vary || "";
  $("ask-target").value = request.target || "";
  $("ask-goal").value = kind;
  // A probability in percent, as the page shows probabilities; a mean as it is.
  const mean = (request.target || "").endsWith(":mean");
  $("ask-p").value = p === undefined ? "" : mean ? p : Number((100 * p).toPrecision(12));
  $("ask-knobs").value = (request.knobs || []).join(", ");
  $("ask-cells").checked = !!request.cells;
  $("ask-exact").checked = !!request.exact;
  $("ask-cap").value = request.max_risk_of_down === undefined ? "" : Number((100 * request.max_risk_of_down).toPrecision(12));
  const recommended = new Set(request.recommend_for || []);
  for (const o of $("pick-recommend").options) o.selected = recommended.has(o.value);
  $("ask-goals").value = (request.goals || []).join("\n");
  const moving = new Set(request.cell_tables || []);
  for (const o of $("pick-tables").options) o.selected = moving.has(o.value);
  // Kept for the battle's tables, should they be listed after this.
  $("pick-tables").dataset.wanted = JSON.stringify([...moving]);
}

/// A percent field's value as a probability, or undefined when empty.
const fraction = (id) =>
  $(id).value.trim() === "" ? undefined : Number((Number($(id).value) / 100).toPrecision(12));

/// What is wrong with the form's numbers, field by field, as the page
/// shows them (percent, battles), before anything is posted.
export function problems(command) {
  const wrong = [];
  const number = (id) => ($(id).value.trim() === "" ? undefined : Number($(id).value));
  const label = (id) => $(id).closest("label").querySelector("span").textContent;
  const percent = (id) => {
    const x = number(id);
    if (x !== undefined && !(x >= 0 && x <= 100)) wrong.push({ id, message: `${label(id)}: ${$(id).value} is out of range; allowed: 0 to 100` });
  };
  if (command === "solve" && !$("ask-target").value.trim().endsWith(":mean")) percent("ask-p");
  if (command === "solve" && number("ask-p") === undefined) wrong.push({ id: "ask-p", message: `${label("ask-p")}: give the goal` });
  if (command === "sweep") percent("ask-cap");
  if (command === "tune" && $("ask-goals").value.trim() === "")
    wrong.push({ id: "ask-goals", message: `${label("ask-goals")}: give at least one goal (pick an outcome and its band, then Add goal)` });
  if (command === "tune" && !$("pick-tables").selectedOptions.length)
    wrong.push({ id: "pick-tables", message: `${label("pick-tables")}: choose at least one` });
  return wrong;
}

/// The form as the request of `command` (fields left empty are left out:
/// the command's defaults). The battle count and seed are always the
/// battle's, the page's one count and seed.
export function read(command) {
  const number = (id) => ($(id).value.trim() === "" ? undefined : Number($(id).value));
  const list = (id, separator) =>
    $(id).value.split(separator).map((s) => s.trim()).filter((s) => s !== "");
  const request = {
    sweep: () => ({
      set: list("ask-set", "\n"),
      max_risk_of_down: fraction("ask-cap"),
      recommend_for: [...$("pick-recommend").selectedOptions].map((o) => o.value),
    }),
    solve: () => ({
      vary: $("ask-vary").value.trim(),
      target: $("ask-target").value.trim(),
      goal: {
        [$("ask-goal").value]: $("ask-target").value.trim().endsWith(":mean")
          ? number("ask-p")
          : fraction("ask-p"),
      },
      exact: $("ask-exact").checked,
    }),
    sensitivity: () => ({
      target: $("ask-target").value.trim(),
      knobs: list("ask-knobs", ","),
      cells: $("ask-cells").checked,
      exact: $("ask-exact").checked,
    }),
    tune: () => ({
      goals: list("ask-goals", "\n"),
      cell_tables: [...$("pick-tables").selectedOptions].map((o) => o.value),
    }),
  }[command]();
  return JSON.parse(JSON.stringify(request));
}

/// The pickers over the battle's settings, table cells and outcomes (from
/// the server's /api/choices): choosing in them writes the question's
/// fields, so the request is the one the command line makes.
export class Pickers {
  constructor(post) {
    this.post = post;
    this.choices = { settings: [], cells: [], outcomes: [] };
    for (const id of ["pick-setting", "pick-from", "pick-to", "pick-step"]) $(id).addEventListener("change", () => this.writeSetting());
    $("pick-setting").addEventListener("change", () => this.rangeOf());
    for (const id of ["pick-outcome", "pick-op", "pick-value", "pick-threshold"]) $(id).addEventListener("change", () => this.writeTarget());
    $("pick-outcome").addEventListener("change", () => this.valuesOf());
    $("pick-knobs").addEventListener("change", () => {
      $("ask-knobs").value = [...$("pick-knobs").selectedOptions].map((o) => o.value).join(", ");
    });
    $("pick-band").addEventListener("change", () => {
      $("pick-band-hi").hidden = $("pick-band").value !== "in";
    });
    $("add-goal").addEventListener("click", () => this.addGoal());
    $("pick-tables").addEventListener("change", () => {
      $("pick-tables").dataset.wanted = "[]";
    });
  }

  /// The outcome and band chosen, as one more line of the tune's goals.
  addGoal() {
    this.writeTarget();
    const target = $("ask-target").value.trim();
    const [band, lo, hi] = [$("pick-band").value, $("pick-band-lo").value.trim(), $("pick-band-hi").value.trim()];
    if (!target || lo === "" || (band === "in" && hi === "")) {
      $("pick-band-lo").focus();
      return;
    }
    const goal = band === "in" ? `${target} in ${lo}%..${hi}%` : `${target} ${band} ${lo}%`;
    const lines = $("ask-goals").value.split("\n").map((l) => l.trim()).filter((l) => l !== "");
    if (!lines.includes(goal)) lines.push(goal);
    $("ask-goals").value = lines.join("\n");
    $("ask-goals").dispatchEvent(new Event("input", { bubbles: true }));
  }

  /// Reads the battle's choices and sets the pickers to the fields' question.
  async load(data) {
    const result = await this.post("/api/choices", data);
    if (!result.ok) return;
    this.choices = result.body;
    const setting = $("pick-setting");
    setting.replaceChildren();
    const knobs = $("pick-knobs");
    knobs.replaceChildren();
    for (const [label, list] of [["Settings", this.choices.settings], ["Table cells", this.choices.cells]]) {
      if (!list.length) continue;
      const group = el("optgroup", { label });
      // A number as the reports write it (`1,200`, `−3`); a word quoted.
      const now = (v) => (typeof v === "number" ? valueRead(String(v)) : JSON.stringify(v));
      for (const k of list) group.append(el("option", { value: k.path, text: `${k.title} (now ${now(k.value)})` }));
      setting.append(group);
    }
    for (const k of this.choices.settings) knobs.append(el("option", { value: k.path, text: k.title }));
    // The tables with cells a tune may move; the chosen ones stay chosen.
    const moving = new Set([...$("pick-tables").selectedOptions].map((o) => o.value).concat(JSON.parse($("pick-tables").dataset.wanted || "[]")));
    const names = [...new Set(this.choices.cells.map((k) => k.path.split(".")[1]))];
    $("pick-tables").replaceChildren(...names.map((name) => el("option", { value: name, text: name })));
    for (const o of $("pick-tables").options) o.selected = moving.has(o.value);
    const outcome = $("pick-outcome");
    outcome.replaceChildren();
    for (const o of this.choices.outcomes) outcome.append(el("option", { value: `${o.subject}/${o.metric}`, text: o.title }));
    // The PCs a sweep can recommend a value for; no field where there are none.
    const pcs = [...new Set(this.choices.outcomes.filter((o) => o.subject.startsWith("hero:")).map((o) => o.subject.slice(5)))];
    // Redrawn for the battle as it is now, the PCs chosen stay chosen.
    const chosen = new Set([...$("pick-recommend").selectedOptions].map((o) => o.value));
    $("pick-recommend").replaceChildren(...pcs.map((pc) => el("option", { value: pc, text: pc })));
    for (const o of $("pick-recommend").options) o.selected = chosen.has(o.value);
    $("recommend-field").classList.toggle("none", !pcs.length);
    $("cap-field").classList.toggle("none", !pcs.length);
    this.fromFields();
  }

  knob(path) {
    return [...this.choices.settings, ...this.choices.cells].find((k) => k.path === path);
  }

  /// The pickers set to the question the fields hold (an example or an earlier one).
  fromFields() {
    const typed = $("ask-command").value === "solve" ? $("ask-vary").value : $("ask-set").value.split("\n")[0];
    const m = /^([^=]+)=([^.,:]+)\.\.([^:]+)(?::(.+))?$/.exec(typed.trim());
    if (m && this.knob(m[1])) {
      $("pick-setting").value = m[1];
      [$("pick-from").value, $("pick-to").value, $("pick-step").value] = [m[2], m[3], m[4] || ""];
    } else if (this.choices.settings.length) {
      // A question the pickers cannot show stays as typed.
      this.rangeOf(false);
    }
    const target = /^([^/]+\/[^=<>]+)(>=|<=|=)(.+)$/.exec($("ask-target").value.trim());
    if (target && this.choices.outcomes.some((o) => `${o.subject}/${o.metric}` === target[1])) {
      $("pick-outcome").value = target[1];
      this.valuesOf(false);
      $("pick-op").value = target[2];
      $("pick-value").value = target[3];
      $("pick-threshold").value = target[3];
    } else {
      this.valuesOf(false);
    }
    const knobs = new Set($("ask-knobs").value.split(",").map((k) => k.trim()));
    for (const o of $("pick-knobs").options) o.selected = knobs.has(o.value);
  }

  /// A fresh range around the chosen setting's value.
  rangeOf(write = true) {
    const k = this.knob($("pick-setting").value);
    if (!k) return;
    const v = Number(k.value);
    const [lo, hi] = [k.minimum ?? -Infinity, k.maximum ?? Infinity];
    if (k.kind === "integer" && hi - lo <= 20) {
      // A short range (a Risk, a trait): every value it allows.
      [$("pick-from").value, $("pick-to").value, $("pick-step").value] = [lo, hi, 1];
    } else if (k.kind === "integer") {
      const step = Math.abs(v) >= 20 ? Math.max(1, Math.round(Math.abs(v) / 10)) : 1;
      [$("pick-from").value, $("pick-to").value, $("pick-step").value] = [Math.max(lo, v - 2 * step), Math.min(hi, v + 2 * step), step];
    } else if (k.kind === "number") {
      const d = v === 0 ? 0.1 : Math.abs(v) / 2;
      [$("pick-from").value, $("pick-to").value, $("pick-step").value] = [v - d, v + d, d / 2];
    }
    if (write) this.writeSetting();
  }

  writeSetting() {
    const k = this.knob($("pick-setting").value);
    if (!k) return;
    const numeric = k.kind === "integer" || k.kind === "number";
    for (const id of ["pick-from", "pick-to", "pick-step"]) $(id).disabled = !numeric;
    const [from, to, step] = [$("pick-from").value, $("pick-to").value, $("pick-step").value];
    let values;
    if (numeric) values = `${from}..${to}${step ? `:${step}` : ""}`;
    else if (k.kind === "flag") values = "false,true";
    else if (k.choices.length) values = k.choices.join(",");
    else values = String(k.value);
    $("ask-set").value = `${k.path}=${values}`;
    $("ask-vary").value = numeric ? `${k.path}=${from}..${to}` : `${k.path}=${values}`;
  }

  /// The chosen outcome's values, or a threshold for a number.
  valuesOf(write = true) {
    const o = this.choices.outcomes.find((x) => `${x.subject}/${x.metric}` === $("pick-outcome").value);
    if (!o) return;
    $("pick-value").replaceChildren(...o.values.map((v) => el("option", { value: v, text: v.replaceAll("_", " ") })));
    $("pick-value").hidden = o.numeric;
    $("pick-threshold").hidden = !o.numeric;
    for (const op of $("pick-op").options) op.disabled = !o.numeric && op.value !== "=";
    if (!o.numeric) $("pick-op").value = "=";
    else if ($("pick-threshold").value === "") $("pick-threshold").value = o.values[Math.floor(o.values.length / 2)];
    if (write) this.writeTarget();
  }

  writeTarget() {
    const o = this.choices.outcomes.find((x) => `${x.subject}/${x.metric}` === $("pick-outcome").value);
    if (!o) return;
    const value = o.numeric ? $("pick-threshold").value : $("pick-value").value;
    $("ask-target").value = `${o.subject}/${o.metric}${o.numeric ? $("pick-op").value : "="}${value}`;
  }
}

/// The command line that asks `request` of `file`.
export function commandLine(command, request, file) {
  const quote = (s) => (/^[\w./:=,+-]+$/.test(s) ? s : `"${s.replaceAll('"', '\\"')}"`);
  const parts = ["warcrunch", command, quote(file)];
  if (command === "sweep") {
    for (const s of request.set || []) parts.push("--set", quote(s));
    for (const pc of request.recommend_for || []) parts.push("--recommend-for", quote(pc));
    if (request.max_risk_of_down !== undefined) parts.push("--max-risk-of-down", String(request.max_risk_of_down));
  }
  if (command === "solve") {
    parts.push("--vary", quote(request.vary), "--target", quote(request.target));
    const [goal, p] = Object.entries(request.goal || {})[0] || [];
    if (goal) parts.push(`--${goal.replace("_", "-")}`, String(p));
  }
  if (command === "tune") {
    for (const g of request.goals || []) parts.push("--goal", quote(g));
    if ((request.cell_tables || []).length) parts.push("--tables", quote(request.cell_tables.join(",")));
  }
  if (command === "sensitivity") {
    parts.push("--target", quote(request.target));
    if (request.knobs && request.knobs.length) parts.push("--knobs", quote(request.knobs.join(",")));
    if (request.cells) parts.push("--cells");
  }
  if (request.exact) parts.push("--exact");
  if (request.max_trials !== undefined) parts.push("--max-trials", String(request.max_trials));
  if (request.precision !== undefined) parts.push("--precision", String(request.precision));
  if (request.trials !== undefined) parts.push("--trials", String(request.trials));
  if (request.seed !== undefined) parts.push("--seed", String(request.seed));
  return parts.join(" ");
}
