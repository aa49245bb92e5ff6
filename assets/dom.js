// What every script of the page shares: finding and making elements, the
// links to a run's files, and saving a text as a download. Plain ES module.

/// The element with this id.
export const $ = (id) => document.getElementById(id);

/// A new element: `attrs` sets `class`, `text` (its text) or any attribute;
/// `children` are appended.
export const el = (tag, attrs = {}, ...children) => {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "class") node.className = v;
    else if (k === "text") node.textContent = v;
    else node.setAttribute(k, v);
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

/// How a sensitivity's target is written: `P(event)` in percentage points,
/// or a numeric outcome's mean (`SUBJECT/METRIC:mean`) in its own units.
export function targetWords(target) {
  const sign = (x) => (x >= 0 ? "+" : "\u2212");
  if (target.endsWith(":mean")) {
    return {
      asked: `the mean of ${target.slice(0, -":mean".length)}`,
      change: (x) => `${sign(x)}${Math.abs(x).toFixed(3)}`,
    };
  }
  return {
    asked: `P(${target})`,
    change: (x) => `${sign(x)}${Math.abs(100 * x).toFixed(2)} pt`,
  };
}
