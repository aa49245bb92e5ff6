// Sweeps, solves and sensitivity analyses from the page: the command's own
// options, run by the server with the battle being edited; the answer is
// the command's report (its charts included) and files. Plain ES module.

/// Splits an options line as a shell would for simple cases: words apart,
/// "double quotes" keep spaces.
export function words(line) {
  const out = [];
  const pattern = /"([^"]*)"|(\S+)/g;
  let m;
  while ((m = pattern.exec(line))) out.push(m[1] !== undefined ? m[1] : m[2]);
  return out;
}

// A first question for the battle on the page, for each command.
export function examples(doc) {
  const sides = (doc && doc.sides) || [];
  const [a, b] = [sides[0] && sides[0].name, sides[1] && sides[1].name];
  if (doc && doc.system === "gurps" && a && b) {
    const ts = sides[1].troop_strength || 1000;
    const step = Math.max(1, Math.round(ts / 10));
    return {
      sweep: `--set sides.${b}.troop_strength=${ts - 3 * step}..${ts + 3 * step}:${step} --trials 100000`,
      solve: `--vary sides.${b}.troop_strength=100..${4 * ts} --target "side:${a}/victory=won" --equals 0.5`,
      sensitivity: `--target "party/any_down_or_dead=yes" --trials 100000`,
    };
  }
  if (doc && doc.system === "seventh_sea" && a && b) {
    return {
      sweep: `--set sides.${b}.commander.strategy=1..5 --trials 100000`,
      solve: `--vary sides.${b}.commander.strategy=1..5 --target "side:${a}/victory=won" --at-least 0.5`,
      sensitivity: `--target "side:${a}/victory=won" --trials 100000`,
    };
  }
  return {
    sweep: `--set engagement.max_exchanges=5..30:5 --trials 100000`,
    solve: `--vary engagement.rally_chance=0..1 --target "battle/winner=attacker" --equals 0.5`,
    sensitivity: `--target "battle/winner=attacker" --trials 100000`,
  };
}
