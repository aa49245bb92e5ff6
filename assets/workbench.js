// The workbench page: load or paste a scenario, edit it in a form or as
// TOML, check it, run it, and draw the counts the server streams; and the
// deck designer. Plain ES modules, no build step.

import { $, download, el, fileLinks, targetWords, valueRead, wrapped } from "/assets/dom.js";
import { BattleForm } from "/assets/form.js";
import { Designer } from "/assets/designer.js";
import { TableGrid } from "/assets/grid.js";
import { Pickers, commandLine, fill, problems, read, show } from "/assets/questions.js";

let current = null; // the run being followed: { id, source }
let previous = null; // the last finished run's id: the next run is shown beside it
let lastRunOf = null; // the battle (its pick) the last run posted was of
let latest = null; // the followed run's last snapshot
const schemas = new Map(); // schema name -> JSON Schema

// Every answer on the page belongs to the battle it was asked of: the
// scenario, its tables, the battles and the seed, as they were. A change
// to any of them marks the answers of another battle at once, before any
// run. `boxes` are what the answer shows, `what` the battle in words.
const answers = {
  run: { key: null, what: "", boxes: ["verdict", "run-flags", "metrics", "files"], note: "run-stale" },
  ask: { key: null, what: "", boxes: ["ask-findings", "ask-files", "ask-report"], note: "ask-stale" },
  compare: { key: null, what: "", boxes: ["compare-files", "compare-report"], note: "compare-stale" },
};

// The battle on the page and how it is run, as one text to compare.
function battleKey() {
  const mode = document.querySelector("input[name=mode]:checked").value;
  return JSON.stringify({
    battle: battleText(),
    run: { precision: mode === "precision" ? $("precision").value : null, trials: $("trials").value, seed: $("seed").value },
  });
}

// The battle on the page (its text, its name, its edited tables), as one
// text: a reply to a request about another one is of no use any more.
function battleText() {
  return JSON.stringify({ toml: $("toml").value, name: scenarioName(), tables: tables.edited });
}

// The battle on the page in words, with `settings` (what it fights, its seed), for an answer to name.
function battleWords(settings) {
  const name = (scenarioName() || "the battle typed in").split("/").pop();
  const edited = Object.keys(tables.edited);
  return `${name}${edited.length ? ` with the page's ${edited.join(", ")} table${edited.length > 1 ? "s" : ""}` : ""}${settings ? `, ${settings}` : ""}`;
}

// Answer `which` is now the one shown: it was asked of the battle `key`
// (taken when it was asked, not when the server replied), `what` in words.
function answered(which, what, key) {
  answers[which].key = key;
  answers[which].what = what;
  answers[which].battles = null;
  markStale();
}

// Beside a question's answer, when the run shown for the same battle
// fought another count than the question's `each` (a run stopped at its
// precision, a question's share of the server's cap): one outcome's share
// then differs between the two by chance, and the reader is told so.
function countNote(key, each) {
  const run = answers.run;
  if (!each || run.key !== key || !run.battles || run.battles === each) return "";
  return `; the run above fought ${run.battles.toLocaleString()} battles, this ${each.toLocaleString()} each, so the same outcome's share differs between them by chance: read each with its interval`;
}

// Marks each answer asked of another battle than the one on the page.
function markStale() {
  const now = battleKey();
  for (const a of Object.values(answers)) {
    const stale = a.key !== null && a.key !== now;
    for (const id of a.boxes) $(id).classList.toggle("stale", stale);
    $(a.note).hidden = !stale;
    $(a.note).textContent = stale
      ? `Not this battle: the answer below is for ${a.what}, before your last change. Ask again for the battle as it is now.`
      : "";
  }
}

async function api(path, options = {}) {
  const response = await fetch(path, options);
  const type = response.headers.get("content-type") || "";
  const body = type.includes("json") ? await response.json() : await response.text();
  return { ok: response.ok, status: response.status, body };
}

function post(path, data, signal) {
  return api(path, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(data),
    signal,
  });
}

async function listScenarios() {
  const { ok, body } = await api("/api/scenarios");
  if (!ok) return;
  // The battles with exact odds, as each system says.
  $("exact-odds").textContent = body.exact_odds;
  // The user's own files first, then the battles shipped with warcrunch.
  const groups = [
    ["Your scenarios", body.scenarios.filter((s) => !s.bundled)],
    ["Bundled battles", body.scenarios.filter((s) => s.bundled)],
  ];
  for (const [label, list] of groups) {
    if (!list.length) continue;
    const group = el("optgroup", { label });
    for (const s of list) {
      const text = `${s.title || s.name} (${s.system_title})`;
      group.append(el("option", { value: s.name, text, title: s.name }));
    }
    $("pick").append(group);
  }
}

// Each battle's edits (its text, its tables), kept while another is on
// screen: picked again, it comes back as it was left. Load reads the file.
const keptEdits = new Map();
let loaded = null; // the battle on the page as read: { name, text }

// Whether the battle on the page has edits: its text or a table.
function edited() {
  return Boolean(loaded) && ($("toml").value !== loaded.text || Object.keys(tables.edited).length > 0);
}

// The battle on the page, edited, keeps its edits for when it is picked again.
function keepEdits() {
  if (edited()) keptEdits.set(loaded.name, { base: loaded.text, toml: $("toml").value, tables: tables.kept() });
}

// Every battle's edits also live in the browser's storage, so a reload
// (or a closed tab) brings them back; each with the file's text it was
// made on, and dropped once the battle is loaded as written again.
const STORE = "warcrunch.edits";

function stored() {
  try {
    return JSON.parse(localStorage.getItem(STORE) || "{}");
  } catch {
    return {};
  }
}

// A battle's kept edits as JSON (its tables' cells as written are a Map).
function storable(kept) {
  const before = Object.fromEntries(Object.entries(kept.tables.before).map(([n, m]) => [n, [...m]]));
  return { ...kept, tables: { ...kept.tables, before } };
}

function fromStore(kept) {
  const before = Object.fromEntries(Object.entries(kept.tables.before || {}).map(([n, a]) => [n, new Map(a)]));
  return { ...kept, tables: { edited: kept.tables.edited || {}, original: kept.tables.original || {}, before } };
}

function saveEdits() {
  if (!loaded) return;
  const all = stored();
  for (const [name, kept] of keptEdits) all[name] = storable(kept);
  if (edited()) all[loaded.name] = storable({ base: loaded.text, toml: $("toml").value, tables: tables.kept() });
  else delete all[loaded.name];
  try {
    localStorage.setItem(STORE, JSON.stringify(all));
  } catch {
    // Storage full or refused (a private window): edits still live while the page does.
  }
}

function forgetEdits(name) {
  const all = stored();
  delete all[name];
  try {
    localStorage.setItem(STORE, JSON.stringify(all));
  } catch {
    // As above.
  }
}

// Load reads the battle from its file: with edits on the page, it asks
// first (a second press discards them).
function pressLoad() {
  const note = $("load-confirm");
  if (edited() && note.hidden) {
    const what = [
      ...($("toml").value !== loaded.text ? ["its text"] : []),
      ...Object.keys(tables.edited).map((t) => `the ${t} table`),
    ];
    note.textContent = `Load reads ${loaded.name} from its file again and discards your edits to ${what.join(", ")}. Press Load again to discard them, or edit on to keep them.`;
    note.hidden = false;
    return;
  }
  note.hidden = true;
  loadScenario(true);
}

// Loads the picked battle: with the edits it was left with, unless `fresh`
// (Load pressed), which reads it from its file.
async function loadScenario(fresh) {
  const name = $("pick").value;
  if (!name) return;
  if (loaded && loaded.name !== name) keepEdits();
  const { ok, body } = await api("/api/scenarios/" + name.split("/").map(encodeURIComponent).join("/"));
  // Another battle was picked meanwhile: its own load fills the page.
  if ($("pick").value !== name) return;
  if (ok) {
    // Edits made on this page, else in an earlier one (the browser's
    // storage), on the file as it still reads.
    const saved = stored()[name];
    const kept =
      fresh === true
        ? undefined
        : keptEdits.get(name) || (saved && saved.base === body ? fromStore(saved) : undefined);
    keptEdits.delete(name);
    if (fresh === true) forgetEdits(name);
    $("load-confirm").hidden = true;
    loaded = { name, text: body };
    $("toml").value = kept ? kept.toml : body;
    // A new battle's count and seed are its own.
    $("trials").value = $("seed").value = "";
    tables.clear();
    if (kept) tables.restore(kept.tables);
    // The table comparison left with the battle it weighed (its report is
    // cleared): no warning of it stays behind.
    answers.compare.key = null;
    markStale();
    $("edits-kept").hidden = !kept;
    showErrors([]);
    $("checked").textContent = `loaded ${name}`;
    asked = {};
    await fromToml();
  } else {
    showErrors([{ message: body.error || String(body) }]);
  }
}

function scenarioName() {
  const name = $("pick").value;
  return name || undefined;
}

// A refusal shown where the reader is: focus moves to the first place at
// fault (a field of the Run panel or the form, a table's cell, else the
// list of errors), scrolled into view with its own message beside it.
function showFault(id) {
  const at =
    (id && $(id)) ||
    (!$("form").hidden && document.querySelector("#form .field.invalid input, #form .field.invalid select")) ||
    document.querySelector("#table-grid td.invalid [data-sweep]") ||
    ($("errors").childElementCount ? $("errors") : $("status"));
  at.scrollIntoView({ block: "center" });
  at.focus({ preventScroll: true });
}

function showErrors(errors) {
  errors = tables.showErrors(errors);
  form.showErrors(errors);
  const box = $("errors");
  box.replaceChildren();
  for (const e of errors) {
    box.append(el("div", { class: "flag", text: (e.line ? `line ${e.line}: ` : "") + e.message }));
    if (e.line && !$("toml").hidden) selectLine(e.line);
  }
}

// The form, rebuilt from the server's reading of the TOML text.
async function drawForm(answer) {
  const name = answer.schema;
  if (name && !schemas.has(name)) {
    const { ok, body } = await api(`/api/schema/${name}`);
    if (ok) schemas.set(name, body);
  }
  form.draw(name ? schemas.get(name) : null, answer.document);
}

// The TOML text changed: read it again for the form, then check it.
async function fromToml() {
  const asked = battleText();
  const result = await post("/api/document", { toml: $("toml").value });
  // The text changed meanwhile: its own reading follows.
  if (battleText() !== asked) return;
  if (!result.ok) {
    showErrors(rejection(result));
    return;
  }
  await drawForm(result.body);
  suggest(result.body.examples);
  await check();
  askedAs();
}

// The battle on the page, as the server reads it for a question.
function battle() {
  const data = { toml: $("toml").value, name: scenarioName() };
  if (Object.keys(tables.edited).length) data.tables = tables.edited;
  return data;
}

// The question in the form, as the command line would ask it.
function askedAs() {
  const command = $("ask-command").value;
  const file = (scenarioName() || "my_battle.toml").split("/").pop();
  $("ask-cli").replaceChildren(...wrapped(commandLine(command, withPageSettings(command, read(command)), file)));
}

// A question as the page asks it, with the page's seed: a solve's probes
// take the page's count as their most and stop at its precision (the
// others fight the battle's own count, which the request leaves to the
// battle).
function withPageSettings(command, request) {
  const question = { ...request };
  // The page's seed, said in the question too: its command line, run on
  // the file as shipped, fights the same battles (the count is held to
  // this server's cap, so it stays the battle's).
  const seed = $("seed").value.trim();
  if (seed !== "" && Number.isSafeInteger(Number(seed))) question.seed = Number(seed);
  if (command === "solve" && !question.exact) {
    question.max_trials = Number($("trials").value);
    // A mean's precision is in its own units, not the page's points.
    const precision = pagePrecision();
    if (precision !== undefined && !String(question.target || "").endsWith(":mean")) question.precision = precision;
  }
  return question;
}

// Each question's example for the battle on the page (the server's, as
// its system words them); an edited one stays.
let asked = {};
function suggest(examples) {
  const fresh = examples || {};
  for (const [command, request] of Object.entries(fresh)) if (!asked[command]) asked[command] = request;
  fill(asked[$("ask-command").value] || {});
  show($("ask-command").value);
  pickers.fromFields();
}

async function ask() {
  const command = $("ask-command").value;
  // A number the page itself can refuse is refused beside its field, in
  // the page's units, before anything is posted.
  for (const field of document.querySelectorAll("#questions .invalid")) field.classList.remove("invalid");
  const wrong = problems(command);
  if (wrong.length) {
    for (const w of wrong) $(w.id).classList.add("invalid");
    $("ask-status").textContent = "refused: " + wrong.map((w) => w.message).join("; ");
    $(wrong[0].id).focus();
    return;
  }
  // One question at a time, from the click: a second click while this one
  // is still being sent would answer in the same line.
  const shown = { button: $("ask"), status: $("ask-status"), files: $("ask-files"), report: $("ask-report"), stop: $("ask-stop") };
  sending(shown, command);
  // The page's one count and seed go into the battle first; a solve's
  // probes take the count as their most and stop at the page's precision.
  try {
    await editing;
    await syncRunSettings();
  } finally {
    shown.button.disabled = false;
  }
  asked[command] = read(command);
  const question = withPageSettings(command, asked[command]);
  $("ask-findings").replaceChildren();
  const done = {
    sweep: (id) => sweepFindings(id),
    solve: (id) => solveFindings(id),
    sensitivity: (id, words) => sensitivityFindings(id, asked[command].target, words),
    tune: (id, _, files) => loadTuned(id, files),
  }[command];
  await answer({ [command]: question }, command, shown, done);
}

// A question is on its way: its button waits and its line says so, so the
// line never shows an earlier answer's state meanwhile.
function sending(shown, label) {
  shown.button.disabled = true;
  shown.status.textContent = `${label}: asking…`;
}

// A solve's answer in its sentence (run.json's), above its report: where
// the setting crosses the goal, or why no value does; its warning after.
async function solveFindings(id) {
  const reply = await fetch(`/api/runs/${id}/files/run.json`);
  if (!reply.ok) return;
  const { solution } = await reply.json();
  if (!solution || !solution.sentence) return;
  $("ask-findings").replaceChildren(
    el("p", { text: `${solution.sentence}.` }),
    ...(solution.warning ? [el("p", { class: "flag", text: solution.warning })] : []),
  );
}

// A sweep's answer above its report: its recommendation (or why there is
// none) and its flags, as its report says them.
async function sweepFindings(id) {
  const { ok, body } = await api(`/api/runs/${id}`);
  if (!ok) return;
  $("ask-findings").replaceChildren(
    ...body.verdict.map((line) => el("p", { text: line })),
    ...body.flags.map((f) => el("p", { class: f.ok ? "flag ok" : "flag", text: f.text })),
  );
}

// A CSV text as rows of named fields (quoted fields may hold commas).
function csvRows(text) {
  const records = [];
  let field = "";
  let record = [];
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ",") {
      record.push(field);
      field = "";
    } else if (c === "\n") {
      record.push(field);
      records.push(record);
      record = [];
      field = "";
    } else field += c;
  }
  if (field || record.length) records.push([...record, field]);
  const [head, ...rest] = records;
  return rest.map((r) => Object.fromEntries(head.map((h, i) => [h, r[i]])));
}

// A sensitivity's moves as a list in words, the largest first, each table
// cell a button to it in the grid, and the cells shaded in the grid.
async function sensitivityFindings(id, target, words) {
  const response = await fetch(`/api/runs/${id}/files/sensitivity.csv`);
  if (!response.ok) return;
  const rows = csvRows(await response.text());
  const { asked, change } = targetWords(target, words);
  const box = $("ask-findings");
  box.replaceChildren(el("h3", { text: `What moves ${asked} most` }));
  const list = el("ol");
  for (const r of rows.slice(0, 12)) {
    const d = Number(r.difference);
    // The analysis's own family-wise verdict, not a single interval.
    const tied = r.differs !== "true";
    const moved = change(d, Number(r.ci_low), Number(r.ci_high));
    // The setting or cell in words, its command-line name in the tooltip.
    const knob = pickers.knob(r.knob);
    const line = `${knob ? knob.title : r.knob}: ${valueRead(r.from)} \u2192 ${valueRead(r.to)}, ${tied ? `tied with the battle as it is: ${moved}` : moved}`;
    const item = el("li", { text: line + " ", title: r.knob });
    if (r.table) {
      const go = el("button", { type: "button", class: "quiet small", text: "Show in the grid" });
      go.addEventListener("click", async () => {
        $("table-pick").value = r.table;
        await tables.show(r.table);
        $("tables").scrollIntoView();
        const field = document.querySelector(`#table-grid [data-sweep="${CSS.escape(r.knob)}"]`);
        if (field) field.focus();
      });
      item.append(go);
    }
    list.append(item);
  }
  box.append(list);
  if (rows.length > 12) box.append(el("p", { class: "muted", text: `the 12 largest of ${rows.length} moves; every move is in sensitivity.csv` }));
  if (rows.some((r) => r.table)) tables.showSensitivity(target, rows, words);
}

// The battle with its tables as written against the page's edited tables,
// on the same battles: `warcrunch compare S S --table 2:NAME=FILE`.
// The table compare as the command line asks it, for the battle and
// edits on the page now (said again at every check, so a battle switched
// to is never shown with the last one's line).
function showCompareLine() {
  const names = Object.keys(tables.edited);
  const file = (scenarioName() || "my_battle.toml").split("/").pop();
  const overrides = names.map((n) => ` --table 2:${n}=my_${n}.toml`).join("");
  $("compare-cli").replaceChildren(...wrapped(`warcrunch compare ${file} ${file}${overrides} --trials ${$("trials").value} --seed ${$("seed").value}`));
}

async function compareTables() {
  await syncRunSettings();
  const trials = Number($("trials").value);
  const seed = Number($("seed").value);
  showCompareLine();
  await answer({ compare: { trials, seed } }, "compare", { button: $("table-compare"), status: $("compare-status"), files: $("compare-files"), report: $("compare-report") });
}

// A tune's answer: each table it tuned, loaded into the grid as an edit
// of this battle (Run uses it; Compare tables weighs it against the
// battle's own; Undo edits restores it; Save table as… downloads it).
async function loadTuned(id, files) {
  const tuned = files.map((f) => /^tuned_(\w+)\.toml$/.exec(f)).filter(Boolean);
  const box = $("ask-findings");
  if (!tuned.length) {
    box.replaceChildren(el("p", { text: "The tune kept every table as written." }));
    return;
  }
  const loaded = [];
  for (const [file, name] of tuned) {
    const reply = await fetch(`/api/runs/${id}/files/${file}`);
    if (!reply.ok) continue;
    const text = await reply.text();
    // The table as the battle reads it first, so the grid marks each cell
    // the tune changed against it.
    if (!(name in tables.original)) await tables.show(name);
    tables.use(name, text);
    loaded.push(name);
  }
  if (!loaded.length) return;
  $("table-pick").value = loaded[0];
  await tables.show(loaded[0]);
  const go = el("button", { class: "quiet", text: `Show the tuned ${loaded[0]} table` });
  go.addEventListener("click", () => {
    $("tables").scrollIntoView();
    $("table-pick").focus();
  });
  box.replaceChildren(
    el("p", {
      text: `The tuned ${loaded.join(" and ")} ${loaded.length > 1 ? "tables are" : "table is"} in the grid as an edit of this battle, its changed cells marked: Run uses it, Compare tables weighs it against the battle's own, Undo edits restores it, Save table as… downloads it.`,
    }),
    go,
  );
}

// Posts a question and follows it; its report shows in the page when done.
async function answer(question, label, shown, done) {
  const data = { toml: $("toml").value, name: scenarioName(), ask: question };
  if (Object.keys(tables.edited).length) data.tables = tables.edited;
  // The battle asked of, as it is now: the answer carries it.
  const key = battleKey();
  const seed = $("seed").value;
  const name = battleWords();
  sending(shown, label);
  const result = await post("/api/analyses", data).finally(() => {
    shown.button.disabled = false;
  });
  shown.files.replaceChildren();
  shown.report.hidden = true;
  if (!result.ok) {
    shown.status.textContent = "refused: " + rejection(result).map((e) => inQuestionWords(e.message)).join("; ");
    return;
  }
  const id = result.body.id;
  const which = label === "compare" ? "compare" : "ask";
  // The battle it answers, with the battles it fights as the server holds them.
  const what = `${label} ${result.body.number} of ${name}, ${result.body.battles}, seed ${seed}`;
  answered(which, what, key);
  shown.button.disabled = true;
  shown.status.textContent = `${what}: queued`;
  if (shown.stop) {
    shown.stop.disabled = false;
    shown.stop.onclick = () => api(`/api/runs/${id}`, { method: "DELETE" });
  }
  const source = new EventSource(`/api/runs/${id}/events`);
  let running = null; // when it started to simulate, for the time it has left
  const seen = (event) => {
    const s = JSON.parse(event.data);
    if (s.status === "running" && running === null) running = performance.now();
    // While it simulates: its battles so far, of those its simulations set
    // out to fight (a solve's later probes, a sweep of the seed's variants
    // one by one, add to them: then no time left).
    const battles = s.status === "running" && s.done
      ? `, ${s.done.toLocaleString()} of ${s.planned.toLocaleString()} battles${result.body.plans_ahead ? left(running, s.done, s.planned) : " so far"}`
      : "";
    shown.status.textContent = `${what}: ${s.status}${battles}` + (s.note ? ` (${s.status === "failed" ? inQuestionWords(s.note) : s.note})` : "");
    return s;
  };
  source.addEventListener("update", seen);
  source.addEventListener("end", (event) => {
    source.close();
    shown.button.disabled = false;
    if (shown.stop) shown.stop.disabled = true;
    const s = seen(event);
    // The reader goes on from the answer's line, beside Ask.
    shown.status.focus();
    if (s.status !== "done") return;
    shown.status.textContent += countNote(key, result.body.battles_each);
    fileLinks(shown.files, id, s.files.filter((f) => /\.(csv|json|html|svg|toml)$/.test(f)));
    if (s.files.includes("report.html")) {
      shown.report.src = `/api/runs/${id}/files/report.html`;
      shown.report.hidden = false;
    }
    if (done) done(id, result.body.target_words, s.files);
  });
}

// The edit in flight, if any: a run waits for it, so what runs is the
// battle on screen.
let editing = Promise.resolve();

// A field changed: the server edits the text, the form follows.
function applyEdits(edits, redraw) {
  editing = editing.catch(() => {}).then(() => editNow(edits, redraw));
  return editing;
}

async function editNow(edits, redraw) {
  const toml = $("toml").value;
  const result = await post("/api/edit", { toml, edits });
  // Another battle is on screen now: this edit was of one gone.
  if ($("toml").value !== toml) return;
  if (!result.ok) {
    showErrors(rejection(result));
    return;
  }
  $("toml").value = result.body.toml;
  markStale();
  if (redraw) await drawForm(result.body);
  await check();
}

const form = new BattleForm($("form"), applyEdits);

function showTab(which) {
  const asForm = which === "form";
  $("form").hidden = !asForm;
  $("toml").hidden = asForm;
  $("tab-form").className = asForm ? "" : "quiet";
  $("tab-toml").className = asForm ? "quiet" : "";
}

let typing = null;
function typed() {
  clearTimeout(typing);
  typing = setTimeout(fromToml, 400);
}

function selectLine(line) {
  const area = $("toml");
  const lines = area.value.split("\n");
  const start = lines.slice(0, line - 1).reduce((n, l) => n + l.length + 1, 0);
  area.focus();
  area.setSelectionRange(start, start + (lines[line - 1] || "").length);
}

// The question's fields by the options the commands' messages name them
// by: a message about `--set X` is said of "settings swept", and its field
// is framed.
const askFields = {
  set: ["ask-set", "settings swept"],
  vary: ["ask-vary", "setting varied"],
  target: ["ask-target", "target"],
  knobs: ["ask-knobs", "knobs"],
};

// A question's refusal or failure in the page's words, its field framed.
function inQuestionWords(message) {
  const m = /^--([a-z-]+) /.exec(message);
  const field = m && askFields[m[1]];
  if (!field) return message;
  $(field[0]).classList.add("invalid");
  $("ask-typed").open = true;
  return `${field[1]}: ${message.slice(m[0].length)}`;
}

function rejection(result) {
  if (result.body && result.body.errors) return result.body.errors;
  if (result.body && result.body.error) return [{ message: result.body.error }];
  return [{ message: `the server answered ${result.status}: ${result.body}` }];
}

async function check() {
  // Every check follows an edit: the edits are kept for a reload, and a
  // Load waiting for its second press waits no more.
  saveEdits();
  $("load-confirm").hidden = true;
  const data = { toml: $("toml").value, name: scenarioName() };
  if (Object.keys(tables.edited).length) data.tables = tables.edited;
  const asked = battleText();
  const askedTables = JSON.stringify(tables.edited);
  const result = await post("/api/check", data);
  // The battle or its tables changed meanwhile: their own check follows
  // (an answer about an earlier edit would offer that edit's tables).
  if (battleText() !== asked || JSON.stringify(tables.edited) !== askedTables) return false;
  if (result.ok) {
    showErrors([]);
    const s = result.body;
    $("checked").textContent = `valid: ${s.name} (${s.system_title}), ${s.trials.toLocaleString()} battles, seed ${s.seed}`;
    // The Run panel shows the battle's own count and seed, held to the
    // server's cap: one of each on the page.
    // A count or seed typed since the last check is the user's, kept for
    // the next run to write into the battle; an untouched one follows it.
    for (const k of ["trials", "seed"]) {
      const typed = $(k).value.trim() !== "" && Number($(k).value) !== checkedAs[k];
      if (!typed) $(k).value = s[k];
    }
    $("trials").max = s.max_trials;
    checkedAs = { trials: s.trials, seed: s.seed };
    markStale();
    // A refusal beside Run is over once the battle checks.
    if ($("status").textContent.startsWith("refused")) $("status").textContent = "";
    for (const id of ["precision", "trials", "seed"]) $(id).classList.remove("invalid");
    tables.setBattle(s.tables);
    showCompareLine();
    // The pickers offer the battle as it is now: its PCs, its values.
    await pickers.load(battle());
  } else {
    $("checked").textContent = "";
    showErrors(rejection(result));
  }
  markStale();
  return result.ok;
}

function request() {
  const data = { toml: $("toml").value, name: scenarioName() };
  if (Object.keys(tables.edited).length) data.tables = tables.edited;
  // The page's one count and seed; a precision run stops sooner once every
  // interval is narrow enough (typed in points, posted as a fraction).
  data.trials = Number($("trials").value);
  data.seed = Number($("seed").value);
  const precision = pagePrecision();
  if (precision !== undefined) data.precision = precision;
  return data;
}

// The Run panel's precision as a fraction, when a run stops at it.
function pagePrecision() {
  if (document.querySelector("input[name=mode]:checked").value !== "precision") return undefined;
  return Number((Number($("precision").value) / 100).toPrecision(12));
}

// The Run panel's settings in words: the battles, the precision, the seed.
function runWords() {
  const trials = Number($("trials").value).toLocaleString();
  return pagePrecision() === undefined
    ? `${trials} battles, seed ${$("seed").value}`
    : `until every interval is within \u00b1${$("precision").value} pt (at most ${trials} battles), seed ${$("seed").value}`;
}

// The Run panel's count or seed, changed: the battle's own, in its text.
async function runSetting(key) {
  const value = Number($(key).value);
  if ($(key).value.trim() === "" || !Number.isInteger(value)) return;
  await applyEdits([{ op: "set", path: [key], value }], true);
}

// The battle's count and seed as the last check read them.
let checkedAs = {};

// A count or seed typed and not yet in the battle's text goes there
// first: what runs is the battle on screen.
async function syncRunSettings() {
  const edits = ["trials", "seed"]
    .filter((k) => $(k).value.trim() !== "" && Number($(k).value) !== checkedAs[k])
    .map((k) => ({ op: "set", path: [k], value: Number($(k).value) }));
  if (edits.length) await applyEdits(edits, true);
}

// The Run panel's numbers the page refuses itself, named as the panel
// names them, with this server's cap.
function runProblems() {
  const wrong = [];
  const precision = document.querySelector("input[name=mode]:checked").value === "precision";
  // What the field holds, as its message says it: a number field
  // holding letters reads empty, so the browser's flag tells them apart.
  const held = (id) =>
    $(id).validity.badInput ? "what is typed is not a number" : $(id).value.trim() === "" ? "it is empty" : `not ${$(id).value.trim().replace(/^-/, "\u2212")}`;
  const whole = (id, lo, hi, words) => {
    const x = Number($(id).value);
    if ($(id).value.trim() === "" || !Number.isInteger(x) || x < lo || x > hi)
      wrong.push({ id, message: `${words} takes a whole number from ${lo.toLocaleString("en")} to ${hi.toLocaleString("en")}; ${held(id)}` });
  };
  if (precision) {
    const x = Number($("precision").value);
    if ($("precision").value.trim() === "" || !(x >= 0.01 && x <= 20))
      wrong.push({ id: "precision", message: `The interval half-width takes a number of percentage points from 0.01 to 20; ${held("precision")}` });
  }
  whole("trials", 1, Number($("trials").max) || Number.MAX_SAFE_INTEGER, "Battles");
  whole("seed", 0, Number.MAX_SAFE_INTEGER, "The seed");
  return wrong;
}

async function run() {
  for (const id of ["precision", "trials", "seed"]) $(id).classList.remove("invalid");
  const wrong = runProblems();
  if (wrong.length) {
    for (const w of wrong) $(w.id).classList.add("invalid");
    $("status").textContent = "refused: " + wrong.map((w) => w.message).join("; ");
    $("checked").textContent = "";
    markStale();
    showFault(wrong[0].id);
    return;
  }
  // The battle Run was pressed on: another picked while the run is being
  // prepared is not run in its place, nor answered under its name.
  const pressedOn = $("pick").value;
  // The run before is shown beside this one (an edit's effect) only when
  // it was of the same battle.
  previous = latest && latest.status === "done" && lastRunOf === pressedOn ? latest.id : null;
  await editing;
  await syncRunSettings();
  if ($("pick").value !== pressedOn) {
    $("status").textContent = "not run: another battle was picked before the run was sent; press Run again to run it";
    return;
  }
  const data = request();
  if (previous !== null) data.baseline = previous;
  // The battle run, as it is when Run posts it: its answer carries it.
  const key = battleKey();
  const words = battleWords(runWords());
  const result = await post("/api/runs", data);
  if (result.ok) lastRunOf = pressedOn;
  if (!result.ok) {
    // Said beside the button, and no "valid" left standing beside Check.
    const errors = rejection(result);
    showErrors(errors);
    $("status").textContent = "refused: " + errors.map((e) => (e.key ? `${e.key}: ` : "") + e.message).join("; ");
    $("checked").textContent = "";
    markStale();
    showFault();
    return;
  }
  showErrors([]);
  answered("run", `run ${result.body.number} of ${words}`, key);
  follow(result.body.id, data.precision !== undefined ? $("precision").value : undefined);
}

function follow(id, precision) {
  if (current) current.source.close();
  const source = new EventSource(`/api/runs/${id}/events`);
  current = { id, source, precision, started: performance.now() };
  $("run").disabled = $("run-near").disabled = true;
  $("stop").disabled = false;
  $("files").replaceChildren();
  // The last run's answer leaves with it: until this run's first count
  // comes, the verdict says only that it is on its way.
  $("verdict").replaceChildren(el("p", { class: "muted", text: `${answers.run.what}: on its way…` }));
  $("run-flags").replaceChildren();
  $("metrics").replaceChildren();
  // Only the run followed now is drawn: an event of one followed before
  // (already on its way when its stream was closed) is dropped.
  const onState = (event) => {
    if (current && current.id === id) draw(JSON.parse(event.data));
  };
  source.addEventListener("update", onState);
  source.addEventListener("end", (event) => {
    onState(event);
    source.close();
    if (!current || current.id !== id) return;
    $("run").disabled = $("run-near").disabled = false;
    $("stop").disabled = true;
    // The answer is where the reader goes next.
    $("verdict").focus();
  });
}

async function stop() {
  if (current) await api(`/api/runs/${current.id}`, { method: "DELETE" });
}

function draw(snapshot) {
  latest = snapshot;
  if (snapshot.status === "done") answers.run.battles = snapshot.done;
  // The run's settings are in its words already; here, how far it is.
  const battles = current && current.precision
    ? `${snapshot.done.toLocaleString()} battles`
    : `${snapshot.done.toLocaleString()} of ${snapshot.planned.toLocaleString()} battles`;
  $("status").textContent =
    `${answers.run.what || `run ${snapshot.number}`}: ${snapshot.status}, ${battles}` + (snapshot.note ? `; ${snapshot.note}` : "") + timeLeft(snapshot);
  // A precision run's end is not known ahead: the bar shows motion, not a share.
  if (current && current.precision && snapshot.status === "running") {
    $("progress").removeAttribute("value");
  } else {
    $("progress").value = snapshot.status === "done" ? 1 : snapshot.planned ? snapshot.done / snapshot.planned : 0;
  }
  // The report's verdict: its sentences (marked † where stand-in values
  // decide them), its balance flags once done, and what † stands for.
  $("verdict").replaceChildren(...snapshot.verdict.map((line) => el("p", { text: line + "." })));
  $("run-flags").replaceChildren(
    ...(snapshot.stand_ins ? [el("p", { class: "note", text: `† ${snapshot.stand_ins}` })] : []),
    ...snapshot.flags.map((f) => el("p", { class: f.ok ? "flag ok" : "flag", text: f.text })),
  );
  drawMetrics(snapshot.metrics);
  if (snapshot.status === "done") {
    // The tables, the provenance and the report; its charts are inside the report.
    fileLinks($("files"), snapshot.id, snapshot.files.filter((f) => /\.(csv|json|html|parquet)$/.test(f)));
  }
}

// The time a running run still needs at its pace so far (a precision run:
// at most, as it may stop sooner), once it has run a few seconds.
function timeLeft(snapshot) {
  if (!current || snapshot.status !== "running" || !snapshot.done) return "";
  return left(current.started, snapshot.done, snapshot.planned, current.precision ? "at most " : "");
}

// `; about 20 s left` for `done` of `planned` battles fought since
// `started` (page clock), once it has run a few seconds.
function left(started, done, planned, hedge = "") {
  if (started === null || !done) return "";
  const elapsed = (performance.now() - started) / 1000;
  if (elapsed < 3) return "";
  const rest = (elapsed * (planned - done)) / done;
  const words = rest < 90 ? `${Math.max(1, Math.round(rest))} s` : rest < 5400 ? `${Math.round(rest / 60)} min` : `${(rest / 3600).toFixed(1)} h`;
  return `; ${hedge}about ${words} left`;
}

function bar(share) {
  const svg = document.createElementNS("http://www.w3.org/2000/svg", "svg");
  svg.setAttribute("viewBox", "0 0 100 14");
  svg.setAttribute("preserveAspectRatio", "none");
  const rect = document.createElementNS(svg.namespaceURI, "rect");
  rect.setAttribute("x", 0);
  rect.setAttribute("y", 2);
  rect.setAttribute("height", 10);
  rect.setAttribute("width", 100 * share.probability);
  rect.setAttribute("fill", "#56b4e9");
  const whisker = document.createElementNS(svg.namespaceURI, "line");
  whisker.setAttribute("x1", 100 * share.ci_low);
  whisker.setAttribute("x2", 100 * share.ci_high);
  whisker.setAttribute("y1", 7);
  whisker.setAttribute("y2", 7);
  whisker.setAttribute("stroke", "#000");
  whisker.setAttribute("stroke-width", 2);
  whisker.setAttribute("vector-effect", "non-scaling-stroke");
  svg.append(rect, whisker);
  return svg;
}

// Bars of share by value (in value order) with 95% whiskers; each bar's
// tooltip gives its value and share as the console prints them.
function histogram(shares) {
  const sorted = [...shares].sort((a, b) => Number(a.value) - Number(b.value));
  const top = Math.max(...sorted.map((s) => s.ci_high), 1e-9);
  const width = 100 / sorted.length;
  const ns = "http://www.w3.org/2000/svg";
  const svg = document.createElementNS(ns, "svg");
  svg.setAttribute("viewBox", "0 0 100 40");
  svg.setAttribute("preserveAspectRatio", "none");
  svg.setAttribute("class", "histogram");
  svg.setAttribute("role", "img");
  const lo = sorted[0].value;
  const hi = sorted[sorted.length - 1].value;
  svg.setAttribute("aria-label", `histogram of ${sorted.length} values from ${lo} to ${hi}`);
  sorted.forEach((s, i) => {
    const rect = document.createElementNS(ns, "rect");
    rect.setAttribute("x", i * width + width * 0.1);
    rect.setAttribute("width", width * 0.8);
    rect.setAttribute("y", 40 - (40 * s.probability) / top);
    rect.setAttribute("height", (40 * s.probability) / top);
    rect.setAttribute("fill", "#56b4e9");
    const title = document.createElementNS(ns, "title");
    title.textContent = `${s.value}: ${s.shown}`;
    rect.append(title);
    const whisker = document.createElementNS(ns, "line");
    whisker.setAttribute("x1", i * width + width / 2);
    whisker.setAttribute("x2", i * width + width / 2);
    whisker.setAttribute("y1", 40 - (40 * s.ci_low) / top);
    whisker.setAttribute("y2", 40 - (40 * s.ci_high) / top);
    whisker.setAttribute("stroke", "#000");
    whisker.setAttribute("vector-effect", "non-scaling-stroke");
    svg.append(rect, whisker);
    if (s.before) {
      // The run before: an outline at its share.
      const was = document.createElementNS(ns, "rect");
      was.setAttribute("x", i * width + width * 0.1);
      was.setAttribute("width", width * 0.8);
      was.setAttribute("y", 40 - (40 * s.before.probability) / top);
      was.setAttribute("height", (40 * s.before.probability) / top);
      was.setAttribute("fill", "none");
      was.setAttribute("stroke", "#d55e00");
      was.setAttribute("vector-effect", "non-scaling-stroke");
      svg.append(was);
      title.textContent += `; before ${s.before.shown}`;
    }
  });
  const axis = el("div", { class: "axis" }, el("span", { text: lo }), el("span", { text: hi }));
  const likeliest = sorted.reduce((a, b) => (b.probability > a.probability ? b : a));
  const before = sorted.some((s) => s.before) ? "; orange outlines: the run before" : "";
  const note = el("p", { class: "muted", text: `${sorted.length} values from ${lo} to ${hi}; likeliest ${likeliest.value} (${likeliest.shown})${before}; every value is in distributions.csv` });
  return el("div", { class: "hist" }, svg, axis, note);
}

function drawMetrics(metrics) {
  const box = $("metrics");
  box.replaceChildren();
  for (const m of metrics) {
    // In words, as the report names it; the target's spelling kept beside.
    const section = el("div", { class: "metric", "data-target": `${m.subject}/${m.metric}` }, el("h4", { text: m.title }));
    // A number's values as a histogram in value order, each bar with its interval.
    const numeric = m.shares.length > 6 && m.shares.every((s) => s.value !== "" && Number.isFinite(Number(s.value)));
    if (numeric) {
      section.append(histogram(m.shares));
      box.append(section);
      continue;
    }
    const shares = m.shares.length > 24 ? [...m.shares].sort((a, b) => b.probability - a.probability).slice(0, 24) : m.shares;
    for (const s of shares) {
      // Written by the server, as the console and the report write it.
      const numbers = el("span", { class: "n", text: s.shown });
      // The difference and its interval come from the server (stats.rs).
      const before = s.before;
      if (before) {
        // The difference as the reports write it (the server's text).
        const text =
          before.verdict === "unchanged"
            ? `before ${before.shown}; unchanged`
            : `before ${before.shown}; ${before.verdict === "differs" ? "Δ" : "tied"} ${before.change}`;
        numbers.append(el("div", { class: "prev", text }));
      }
      section.append(el("div", { class: "bar" }, el("span", { class: "v", text: s.value.replaceAll("_", " ") }), bar(s), numbers));
    }
    if (shares.length < m.shares.length) {
      const text = `the 24 likeliest of ${m.shares.length} values; every value is in distributions.csv`;
      section.append(el("p", { class: "muted", text }));
    }
    box.append(section);
  }
}

function save() {
  download((scenarioName() || "my_battle.toml").split("/").pop(), $("toml").value);
}

$("load").addEventListener("click", pressLoad);
$("pick").addEventListener("change", () => loadScenario(false));
$("check").addEventListener("click", check);
$("run").addEventListener("click", run);
$("run-near").addEventListener("click", () => $("run").disabled || run());
// Enter in a run's setting runs it; in a question's field, asks it.
const onEnter = (ids, action) => {
  for (const id of ids) {
    $(id).addEventListener("keydown", (event) => {
      if (event.key === "Enter" && !event.shiftKey) {
        event.preventDefault();
        // The field's value counts as entered first.
        event.target.dispatchEvent(new Event("change", { bubbles: true }));
        action();
      }
    });
  }
};
onEnter(["precision", "trials", "seed"], () => $("run").disabled || run());
// Enter in any field of the battle's form runs it, once its edit is in.
$("form").addEventListener("keydown", (event) => {
  if (event.key !== "Enter" || event.shiftKey || event.target.tagName !== "INPUT") return;
  event.preventDefault();
  event.target.dispatchEvent(new Event("change", { bubbles: true }));
  if (!$("run").disabled) run();
});
onEnter(["pick-from", "pick-to", "pick-step", "pick-threshold", "ask-p", "ask-cap", "ask-vary", "ask-target", "ask-knobs", "pick-tables"], () => $("ask").disabled || ask());
// In a goal's bound, Enter adds the goal.
onEnter(["pick-band-lo", "pick-band-hi"], () => pickers.addGoal());
$("stop").addEventListener("click", stop);
$("save").addEventListener("click", save);
$("tab-form").addEventListener("click", () => showTab("form"));
$("tab-toml").addEventListener("click", () => showTab("toml"));
$("toml").addEventListener("input", typed);
for (const key of ["trials", "seed"]) $(key).addEventListener("change", () => runSetting(key));
for (const id of ["precision", "trials", "seed"]) for (const type of ["input", "change"]) $(id).addEventListener(type, askedAs);
for (const radio of document.querySelectorAll("input[name=mode]")) radio.addEventListener("change", askedAs);
// Any edit on the page may change the battle: the answers it leaves
// behind are marked at once.
for (const type of ["input", "change"]) document.addEventListener(type, markStale);
const tables = new TableGrid($("tables"), post, () => check());
const pickers = new Pickers(post);
$("table-pick").addEventListener("change", () => tables.show($("table-pick").value));
$("table-reset").addEventListener("click", () => tables.reset());
$("table-save").addEventListener("click", () => tables.save());
$("table-compare").addEventListener("click", compareTables);
// A usage count waits and runs as a run does; pressed again while it
// counts, the button stops it (the server stops a count its page leaves).
let counting = null;
$("table-usage").addEventListener("click", async () => {
  if (counting) return counting.abort();
  counting = new AbortController();
  const button = $("table-usage");
  const label = button.textContent;
  button.textContent = "Stop counting";
  $("usage-status").textContent = "counting the cells each battle reads…";
  try {
    const result = await post("/api/usage", battle(), counting.signal);
    $("usage-status").textContent = result.ok ? "" : rejection(result).map((e) => e.message).join("; ");
    if (result.ok) tables.showUsage(result.body);
  } catch (e) {
    if (e.name !== "AbortError") throw e;
    $("usage-status").textContent = "count stopped";
  } finally {
    counting = null;
    button.textContent = label;
  }
});
const designer = new Designer($("designer"), post);
$("deck-load").addEventListener("click", async () => {
  if (await designer.load()) $("deck-save").disabled = $("deck-use").disabled = false;
});
$("deck-save").addEventListener("click", () => designer.save());
// The designer's deck as the loaded war-cards battle's `cards` table.
$("deck-use").addEventListener("click", async () => {
  if (!designer.deck) return;
  if (!tables.tables.some((t) => t.name === "cards")) {
    $("deck-used").textContent = "load a war-cards battle first: only it reads a deck";
    return;
  }
  tables.use("cards", designer.deck.toml);
  $("deck-used").textContent = (await check()) ? "the next run and comparison of this battle use this deck" : "";
});
$("deck-file").addEventListener("change", async () => {
  const file = $("deck-file").files[0];
  if (file && (await designer.load(await file.text()))) $("deck-save").disabled = $("deck-use").disabled = false;
});
$("ask").addEventListener("click", ask);
let asking = $("ask-command").value;
$("ask-command").addEventListener("change", () => {
  asked[asking] = read(asking);
  asking = $("ask-command").value;
  fill(asked[asking] || {});
  show(asking);
  pickers.fromFields();
  askedAs();
});
$("questions").addEventListener("change", askedAs);
$("questions").addEventListener("input", askedAs);
// A link can name a scenario and open one of its tables, never start a
// run (a battle is fought only on the page's own Run):
// /?scenario=gurps/x.toml&table=survival
async function start() {
  await listScenarios();
  const query = new URLSearchParams(location.search);
  const name = query.get("scenario");
  if (!name) return;
  $("pick").value = name;
  await loadScenario();
  const table = query.get("table");
  if (table) {
    $("table-pick").value = table;
    await tables.show(table);
  }
}

start();
