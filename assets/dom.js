// What every script of the page shares: finding and making elements, the
// links to a run's files, and saving a text as a download. Plain ES module.

/// The element with this id.
export const $ = (id) => document.getElementById(id);

/// `text` as nodes a phone wraps as the reports do: a line breaks between
/// words, after a path's `/` and in a compound word, nowhere else. Each part of a word that
/// holds a dash (a range `51.41%–52.80%`, an option `--seed`, `risk=-6`)
/// is kept on one line (`<span class="nb">`); the text reads the same.
export function wrapped(text) {
  const nodes = [];
  for (const word of String(text).split(/(\s+)/)) {
    word.split("/").forEach((part, i) => {
      if (i > 0) nodes.push("/", document.createElement("wbr"));
      // A compound word's hyphen may break as prose does (`stand-in`).
      if (!/\u2013|-(?!\p{L})|(?<!\p{L})-/u.test(part)) return nodes.push(part);
      const span = document.createElement("span");
      span.className = "nb";
      span.textContent = part;
      nodes.push(span);
    });
  }
  return nodes;
}

/// A new element: `attrs` sets `class`, `text` (its text, wrapped as a
/// phone should wrap it, but in a choice or a text box) or any attribute;
/// `children` are appended.
export const el = (tag, attrs = {}, ...children) => {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "class") node.className = v;
    else if (k === "text") {
      if (tag === "option" || tag === "textarea") node.textContent = v;
      else node.append(...wrapped(v));
    } else node.setAttribute(k, v);
  }
  node.append(...children);
  return node;
};

/// Fills `box` with a link for each of run `id`'s files in `names`: a page
/// opens in a new tab, any other file downloads.
export function fileLinks(box, id, names) {
  box.replaceChildren(
    ...names.map((name) => {
      const href = `/api/runs/${id}/files/${encodeURIComponent(name)}`;
      return name.endsWith(".html")
        ? el("a", { href, target: "_blank", rel: "noopener", text: name })
        : el("a", { href, download: name, text: name });
    }),
  );
}

/// Saves `text` as a file called `name`.
export function download(name, text, type = "application/toml") {
  const a = el("a", { href: URL.createObjectURL(new Blob([text], { type })), download: name });
  a.click();
  URL.revokeObjectURL(a.href);
}

/// A setting's value as the reports write it (format::value_read): a
/// whole number with its thousands marked and a true minus (`1,200`,
/// `−3`); a word with its underscores as spaces.
export function valueRead(text) {
  if (/^-?\d+$/.test(text)) return Number(text).toLocaleString("en-US").replace("-", "\u2212");
  return text.replaceAll("_", " ").replace(/(^|[=,(:/ ])-(?=\d)/g, "$1\u2212");
}

/// How a sensitivity's target is written: `P(event)` in percentage points,
/// or a numeric outcome's mean (`SUBJECT/METRIC:mean`) in its own units;
/// `words` is the event as the server words it (the target as typed if none).
export function targetWords(target, words) {
  const named = words ?? target.replace(/:mean$/, "");
  // The reports' one style (format::change): a sign on the difference, true
  // minus signs, `to` between the bounds, the decimals the interval's width
  // calls for (its first significant digit, at least one), and more while
  // an interval that holds zero would read an end as 0 (`−0.04 to 0.09`,
  // not `0.0 to 0.1`).
  const style = (scale, unit) => (d, low, high) => {
    const width = scale * (high - low);
    let places = width > 0 && Number.isFinite(width) ? Math.min(6, Math.max(1, Math.ceil(-Math.log10(width)))) : 3;
    const readsZero = (x) => x !== 0 && /^-?[0.]+$/.test((scale * x).toFixed(places));
    while (places < 6 && low < 0 && high > 0 && (readsZero(low) || readsZero(high))) places += 1;
    const write = (x, plus) => {
      const text = (scale * x).toFixed(places);
      const zero = /^-?[0.]+$/.test(text);
      if (text.startsWith("-") && !zero) return `\u2212${text.slice(1)}`;
      if (zero) return text.replace(/^-/, "");
      return plus ? `+${text}` : text;
    };
    return `${write(d, true)}${unit} (${write(low, false)} to ${write(high, false)})`;
  };
  // A size without sign or interval (the darkest cell's move).
  const amount = (scale, unit, places) => (x) => `${(scale * Math.abs(x)).toFixed(places)}${unit}`;
  if (target.endsWith(":mean")) {
    return { asked: `the mean of ${named}`, change: style(1, ""), amount: amount(1, "", 3) };
  }
  return { asked: `P(${named})`, change: style(100, " pt"), amount: amount(100, " pt", 2) };
}
