// A tiny markdown renderer for model output (headings, lists, bold, code, paragraphs).
// It never parses HTML: every piece of text becomes a DOM text node, so markup in the
// model's answer ("<script>", "<img onerror>") is shown as the characters it is.

const FENCE = /^\s*```/;
const HEADING = /^(#{1,6})\s+(.*)$/;
const BULLET = /^\s*[-*+]\s+(.*)$/;
const NUMBERED = /^\s*\d+[.)]\s+(.*)$/;
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
    const heading = HEADING.exec(line);
    const bullet = BULLET.exec(line);
    const numbered = bullet ? null : NUMBERED.exec(line);
    if (heading) {
      flushParagraph();
      flushList();
      out.append(block(`h${heading[1].length}`, heading[2]));
    } else if (bullet || numbered) {
      flushParagraph();
      const tag = bullet ? "ul" : "ol";
      if (list && list.tagName.toLowerCase() !== tag) flushList();
      list ??= document.createElement(tag);
      list.append(block("li", (bullet ?? numbered)[1]));
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
