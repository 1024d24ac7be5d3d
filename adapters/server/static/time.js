// Times as a person reads them, in the page's language (i18n.js) and the browser's time
// zone: "2:05 PM" today, "Mar 3, 2:05 PM" earlier this year, "Mar 3, 2024, 2:05 PM" before
// that; the full date and time is the element's tooltip.

import { LOCALE } from "./i18n.js";

const TIME = { hour: "numeric", minute: "2-digit" };
const THIS_YEAR = { month: "short", day: "numeric", ...TIME };
const OTHER_YEAR = { year: "numeric", ...THIS_YEAR };
const FULL = { dateStyle: "full", timeStyle: "short" };

const parse = (iso) => {
  const at = new Date(iso ?? "");
  return Number.isNaN(at.getTime()) ? null : at;
};

/** ``iso`` as a short readable time, or "" when it is not a time. */
export function when(iso) {
  const at = parse(iso);
  if (!at) return "";
  const now = new Date();
  const style = at.toDateString() === now.toDateString()
    ? TIME
    : at.getFullYear() === now.getFullYear() ? THIS_YEAR : OTHER_YEAR;
  return at.toLocaleString(LOCALE, style);
}

/** A ``<time>`` element for ``iso`` (its full date and time on hover), or null. */
export function timeElement(iso) {
  const at = parse(iso);
  if (!at) return null;
  const el = document.createElement("time");
  el.dateTime = at.toISOString();
  el.title = at.toLocaleString(LOCALE, FULL);
  el.textContent = when(iso);
  return el;
}
