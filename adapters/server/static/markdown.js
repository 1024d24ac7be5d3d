// A tiny markdown renderer for model output (headings, lists, bold, code, simple tables,
// paragraphs).
// It never parses HTML: every piece of text becomes a DOM text node, so markup in the
// model's answer ("<script>", "<img onerror>") is shown as the characters it is.

const FENCE = /^\s*```/;
const HEADING = /^(#{1,6})\s+(.*)$/;
const LIST_ITEM = /^(\s*)([-*+]|\d+[.)])\s+(.*)$/;
const NESTED_INDENT = 2;
const TABLE_ROW = /^\s*\|(.*)\|\s*$/;
const TABLE_RULE = /^\s*\|?[\s:|-]*-[\s:|-]*\|?\s*$/;
const INLINE = /(`[^`]+`|\*\*[^*]+\*\*|__[^_]+__)/;

/** Append text with `code` and **bold** spans to parent, as text nodes only. */
function appendInline(parent, text) {
  for (const part of text.split(INLINE)) {
    if (!part) continue;
    let el = null;
    if (part.length > 2 && part.startsWith("`") && part.endsWith("`")) {
      el = document.createElement("code");
      el.textContent = part.slice(1, -1);
    } else if (part.length > 4 && (part.startsWith("**") || part.startsWith("__"))) {
      el = document.createElement("strong");
      el.textContent = part.slice(2, -2);
    }
    parent.append(el ?? document.createTextNode(part));
  }
}

function block(tag, text) {
  const el = document.createElement(tag);
  appendInline(el, text);
  return el;
}

function cells(row) {
  return TABLE_ROW.exec(row)[1].split("|").map((cell) => cell.trim());
}

/** A table from consecutive "| a | b |" rows; the "|---|" rule marks the header row. */
function table(rows) {
  const el = document.createElement("table");
  const hasHeader = rows.length > 1 && TABLE_RULE.test(rows[1]);
  rows.forEach((row, index) => {
    if (hasHeader && index === 1) return;
    const tr = document.createElement("tr");
    for (const text of cells(row)) tr.append(block(hasHeader && index === 0 ? "th" : "td", text));
    el.append(tr);
  });
  return el;
}

/** Render markdown source into a DocumentFragment built only from safe elements. */
export function renderMarkdown(source) {
  const out = document.createDocumentFragment();
  const lines = String(source ?? "").replace(/\r\n?/g, "\n").split("\n");
  let paragraph = [];
  let list = null;

  const flushParagraph = () => {
    if (paragraph.length) out.append(block("p", paragraph.join(" ")));
    paragraph = [];
  };
  const flushList = () => {
    if (list) out.append(list);
    list = null;
  };

  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (FENCE.test(line)) {
      flushParagraph();
      flushList();
      const code = [];
      for (i++; i < lines.length && !FENCE.test(lines[i]); i++) code.push(lines[i]);
      const pre = document.createElement("pre");
      const el = document.createElement("code");
      el.textContent = code.join("\n");
      pre.append(el);
      out.append(pre);
      continue;
    }
    if (TABLE_ROW.test(line)) {
      flushParagraph();
      flushList();
      const rows = [];
      for (; i < lines.length && TABLE_ROW.test(lines[i]); i++) rows.push(lines[i]);
      i--;
      out.append(table(rows));
      continue;
    }
    const heading = HEADING.exec(line);
    const item = LIST_ITEM.exec(line);
    if (heading) {
      flushParagraph();
      flushList();
      out.append(block(`h${heading[1].length}`, heading[2]));
    } else if (item) {
      flushParagraph();
      const tag = /\d/.test(item[2]) ? "ol" : "ul";
      const parent = item[1].length >= NESTED_INDENT ? list?.lastElementChild : null;
      if (parent) {
        // One level of nesting: an indented item belongs to the previous item.
        let sub = parent.lastElementChild;
        if (sub?.tagName.toLowerCase() !== tag) {
          sub = document.createElement(tag);
          parent.append(sub);
        }
        sub.append(block("li", item[3]));
      } else {
        if (list && list.tagName.toLowerCase() !== tag) flushList();
        list ??= document.createElement(tag);
        list.append(block("li", item[3]));
      }
    } else if (line.trim() === "") {
      flushParagraph();
      flushList();
    } else {
      flushList();
      paragraph.push(line.trim());
    }
  }
  flushParagraph();
  flushList();
  return out;
}
