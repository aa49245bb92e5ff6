// Sweeps, solves and sensitivity analyses from the page: a small form per
// question, read into the typed request the server answers with the same
// library calls as the commands; the answer is the command's report and
// files. Plain ES module.

import { $ } from "/assets/dom.js";

/// A first question for the battle on the page, for each command.
export function examples(doc) {
  const sides = (doc && doc.sides) || [];
  const [a, b] = [sides[0] && sides[0].name, sides[1] && sides[1].name];
  if (doc && doc.system === "gurps" && a && b) {
    const ts = sides[1].troop_strength || 1000;
    const step = Math.max(1, Math.round(ts / 10));
    return {
      sweep: { set: [`sides.${b}.troop_strength=${ts - 3 * step}..${ts + 3 * step}:${step}`], trials: 100000 },
      solve: { vary: `sides.${b}.troop_strength=100..${4 * ts}`, target: `side:${a}/victory=won`, goal: { equals: 0.5 } },
      sensitivity: { target: "party/any_down_or_dead=yes", trials: 100000 },
    };
  }
  if (doc && doc.system === "seventh_sea" && a && b) {
    return {
      sweep: { set: [`sides.${b}.commander.strategy=1..5`], trials: 100000 },
      solve: { vary: `sides.${b}.commander.strategy=1..5`, target: `side:${a}/victory=won`, goal: { at_least: 0.5 } },
      sensitivity: { target: `side:${a}/victory=won`, trials: 100000 },
    };
  }
  return {
    sweep: { set: ["engagement.max_exchanges=5..30:5"], trials: 100000 },
    solve: { vary: "engagement.rally_chance=0..1", target: "battle/winner=attacker", goal: { equals: 0.5 } },
    sensitivity: { target: "battle/winner=attacker", trials: 100000 },
  };
}

/// Shows the fields `command` takes and hides the others.
export function show(command) {
  for (const field of document.querySelectorAll("#ask-form [data-for]")) {
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
  $("ask-p").value = p;
  $("ask-knobs").value = (request.knobs || []).join(", ");
  $("ask-cells").checked = !!request.cells;
  $("ask-exact").checked = !!request.exact;
  $("ask-trials").value = request.trials ?? "";
  $("ask-max-trials").value = request.max_trials ?? "";
  $("ask-seed").value = request.seed ?? "";
}

/// The form as the request of `command` (fields left empty are left out:
/// the scenario's own trials and seed, the command's defaults).
export function read(command) {
  const number = (id) => ($(id).value.trim() === "" ? undefined : Number($(id).value));
  const list = (id, separator) =>
    $(id).value.split(separator).map((s) => s.trim()).filter((s) => s !== "");
  const request = {
    sweep: () => ({ set: list("ask-set", "\n"), trials: number("ask-trials") }),
    solve: () => ({
      vary: $("ask-vary").value.trim(),
      target: $("ask-target").value.trim(),
      goal: { [$("ask-goal").value]: number("ask-p") },
      exact: $("ask-exact").checked,
      max_trials: $("ask-exact").checked ? undefined : number("ask-max-trials"),
    }),
    sensitivity: () => ({
      target: $("ask-target").value.trim(),
      knobs: list("ask-knobs", ","),
      cells: $("ask-cells").checked,
      exact: $("ask-exact").checked,
      trials: number("ask-trials"),
    }),
  }[command]();
  request.seed = number("ask-seed");
  return JSON.parse(JSON.stringify(request));
}
