// The page's language and its words. The language is the first of the browser's
// (`navigator.languages`) that the catalogue (catalogue.js, every string the page shows)
// speaks, else English. `t(key, params)` is a string of that language: `{name}` is
// replaced by `params.name` (numbers in the language's digits), and an entry written as
// `{one, other}` is picked by `params.count` (Intl.PluralRules). The HTML carries keys, not
// words: `data-i18n="key"` fills an element's text, `data-i18n-attr="attribute:key …"` its
// attributes; `translatePage()` fills them when the page starts.

import CATALOGUE from "./catalogue.js";

const FALLBACK = "en";

/** The first of ``tags`` (BCP 47, e.g. "zh-CN") the catalogue speaks, by its language. */
function pick(tags) {
  for (const tag of tags) {
    const language = String(tag ?? "").toLowerCase().split("-")[0];
    if (Object.hasOwn(CATALOGUE, language)) return language;
  }
  return FALLBACK;
}

/** The page's language: "en", "zh", … (a key of the catalogue). */
export const LANGUAGE = pick(navigator.languages?.length ? navigator.languages : [navigator.language]);
/** The locale times and numbers are written in. */
export const LOCALE = CATALOGUE[LANGUAGE]["locale"] ?? LANGUAGE;

const strings = CATALOGUE[LANGUAGE];
const plurals = new Intl.PluralRules(LOCALE);

/** ``n`` in the page's digits and grouping ("1,234"). */
export const formatNumber = (n) => Number(n).toLocaleString(LOCALE);

/** ``key``'s entry in the page's language (English when it has none), picked by ``count``. */
function template(key, count) {
  let entry = strings[key] ?? CATALOGUE[FALLBACK][key];
  if (entry === undefined) {
    console.error("i18n.missing", key);
    return key;
  }
  if (typeof entry === "object") entry = entry[plurals.select(Number(count ?? 0))] ?? entry.other;
  return entry;
}

/** ``text`` with each ``{name}`` of ``params`` filled in (numbers in the page's digits). */
function fill(text, params) {
  return text.replace(/\{(\w+)\}/g, (whole, name) => {
    if (!Object.hasOwn(params, name)) return whole;
    const value = params[name];
    return typeof value === "number" ? formatNumber(value) : String(value);
  });
}

/** The string ``key`` in the page's language, with ``params`` filled in. */
export const t = (key, params = {}) => fill(template(key, params.count), params);

/** ``[text, node, text, …]``: ``key``'s string with each ``{name}`` of ``nodes`` replaced by
 *  that node (e.g. a ``<time>``; null leaves it out) and ``params`` filled in the text
 *  around them, for ``element.append(...parts)``. */
export function tNodes(key, nodes, params = {}) {
  const parts = [];
  for (const piece of template(key, params.count).split(/(\{\w+\})/)) {
    const name = piece.match(/^\{(\w+)\}$/)?.[1];
    if (name && Object.hasOwn(nodes, name)) {
      if (nodes[name] !== null) parts.push(nodes[name]);
    } else if (piece) {
      parts.push(fill(piece, params));
    }
  }
  return parts;
}

/** Fill the HTML's ``data-i18n`` texts and ``data-i18n-attr`` attributes under ``root``. */
export function translatePage(root = document) {
  for (const element of root.querySelectorAll("[data-i18n]")) {
    element.textContent = t(element.dataset.i18n);
  }
  for (const element of root.querySelectorAll("[data-i18n-attr]")) {
    for (const pair of element.dataset.i18nAttr.split(/\s+/).filter(Boolean)) {
      const [attribute, key] = pair.split(":");
      element.setAttribute(attribute, t(key));
    }
  }
}

document.documentElement.lang = t("htmlLang");
translatePage();
