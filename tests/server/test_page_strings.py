"""Every word the chat page shows is in its catalogue (contract §9a: the page speaks the
browser's language), so a translation is one file and no English is left in a Chinese page.

The page's other files hold keys, never words: a string literal in a script that reads
like prose (two words, a capitalised word, a sentence's punctuation or any Chinese) and a
text or a label in the HTML that no ``data-i18n`` names are each a string someone would
see untranslated. The catalogue itself has every key in every language, with the same
``{placeholders}``.
"""

from __future__ import annotations

import json
import re
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import pytest

STATIC = Path(__file__).resolve().parents[2] / "adapters" / "server" / "static"
CATALOGUE = STATIC / "catalogue.js"
LANGUAGES = ("en", "zh")

PROSE = re.compile(
    r"[A-Za-z]{2,}[ ,;:][ ]?[A-Za-z]{2,}"  # two words
    r"|^[A-Z][a-z]{2,}"  # a capitalised word ("Remember")
    r"|[\u2e80-\u9fff\uff00-\uffef]"  # Chinese, Japanese, full-width punctuation
)
NOT_WORDS = {
    # class names and selectors
    "secondary small",
    "danger small",
    "message assistant review",
    "input, textarea",
    # key names (KeyboardEvent.key), a header, a message type's suffix
    "Enter",
    "Escape",
    "Content-Type",
    "Chunk",
}
"""Literals that look like words but are names the page uses in code."""
ATTRIBUTES_SHOWN = ("placeholder", "title", "aria-label", "alt")


def string_literals(source: str) -> list[str]:
    """The static text of every string and template literal in ``source`` (comments and
    regular expressions skipped; a template's ``${…}`` parts left out)."""
    out: list[str] = []
    i, n = 0, len(source)
    previous = ""  # the last significant character of code: tells a regex from a division
    while i < n:
        c = source[i]
        if source.startswith("//", i):
            i = source.find("\n", i)
            i = n if i < 0 else i
        elif source.startswith("/*", i):
            i = source.index("*/", i) + 2
        elif c in "'\"`":
            j, text, depth = i + 1, [], 0
            while source[j] != c or depth:
                if source[j] == "\\":
                    text.append(source[j : j + 2])
                    j += 2
                    continue
                if c == "`" and source.startswith("${", j):
                    depth += 1
                    text.append("\0")
                    j += 2
                    continue
                if depth and source[j] == "}":
                    depth -= 1
                elif not depth:
                    text.append(source[j])
                j += 1
            out.extend(part for part in "".join(text).split("\0") if part)
            previous, i = c, j + 1
        elif c == "/" and (previous in "(,=:[!&|?{};+" or previous == ""):
            j, in_class = i + 1, False
            while source[j] != "/" or in_class:
                if source[j] == "\\":
                    j += 1
                elif source[j] == "[":
                    in_class = True
                elif source[j] == "]":
                    in_class = False
                j += 1
            previous, i = "/", j + 1
        else:
            if not c.isspace():
                previous = c
                if c.isalnum():  # a word: a regex cannot follow it unless it is `return`
                    word = re.match(r"\w+", source[i:])
                    assert word is not None
                    previous = "(" if word.group() in {"return", "typeof"} else "a"
                    i += len(word.group())
                    continue
            i += 1
    return out


SELECTOR = re.compile(r"^[.#:\[]|\w\[|\s>\s")
"""A CSS selector (".pin-actions button", "li.message[data-message-id]")."""


def looks_shown(literal: str) -> bool:
    text = literal.strip()
    return text not in NOT_WORDS and not SELECTOR.search(text) and bool(PROSE.search(text))


def test_no_script_of_the_page_holds_words_of_its_own() -> None:
    found = {
        path.name: hits
        for path in sorted(STATIC.glob("*.js"))
        if path != CATALOGUE
        and (hits := [s for s in string_literals(path.read_text()) if looks_shown(s)])
    }
    assert found == {}, f"words outside catalogue.js (move them there): {found}"


def test_the_scan_finds_words_it_is_shown() -> None:
    """The check above can fail: each kind of hard-coded text is caught, names are not."""
    script = (
        'label.textContent = "Remember";\n'
        "showError(`Delivery finished: ${n} stages done.`); key.press('Enter');\n"
        "const a = 'no compaction yet'; // a comment: \"Not A String\"\n"
        'const zh = "记住"; const re = /["\']x/g; el.className = "secondary small";\n'
        'const key = t("pin.edit"); const sel = ".pin-head button";\n'
    )
    hits = [s for s in string_literals(script) if looks_shown(s)]
    assert hits == ["Remember", "Delivery finished: ", " stages done.", "no compaction yet", "记住"]


class _HtmlText(HTMLParser):
    """Text and shown attributes of the HTML that no ``data-i18n`` key fills."""

    def __init__(self) -> None:
        super().__init__()
        self.stack: list[tuple[str, bool]] = []
        self.unkeyed: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        names = dict(attrs)
        keyed = {pair.split(":")[0] for pair in (names.get("data-i18n-attr") or "").split() if pair}
        for attribute in ATTRIBUTES_SHOWN:
            if names.get(attribute) and attribute not in keyed:
                self.unkeyed.append(f"<{tag} {attribute}={names[attribute]!r}>")
        if tag not in {"meta", "link", "input", "br", "img"}:
            self.stack.append((tag, "data-i18n" in names))

    def handle_endtag(self, tag: str) -> None:
        while self.stack and self.stack.pop()[0] != tag:
            pass

    def handle_data(self, data: str) -> None:
        if data.strip() and not (self.stack and self.stack[-1][0] in {"script", "style"}):
            self.unkeyed.append(data.strip())


def test_the_html_names_its_strings_instead_of_holding_them() -> None:
    parser = _HtmlText()
    html = (STATIC / "index.html").read_text()
    parser.feed(html)
    assert parser.unkeyed == []
    keys = set(re.findall(r'data-i18n="([^"]+)"', html))
    keys |= set(re.findall(r":([\w.]+)", " ".join(re.findall(r'data-i18n-attr="([^"]+)"', html))))
    missing = keys - set(catalogue()["en"])
    assert not missing, missing


def catalogue() -> dict[str, dict[str, object]]:
    """The catalogue as data, read by Node (it is a JS module of data only)."""
    script = f"import c from {json.dumps(CATALOGUE.as_uri())}; console.log(JSON.stringify(c));"
    done = subprocess.run(
        ["node", "--input-type=module", "-e", script], capture_output=True, text=True, check=True
    )
    return json.loads(done.stdout)


@pytest.mark.parametrize("language", [lang for lang in LANGUAGES if lang != "en"])
def test_every_language_has_every_string_with_the_same_blanks(language: str) -> None:
    strings = catalogue()
    english, other = strings["en"], strings[language]
    assert set(other) == set(english), set(other) ^ set(english)
    blanks = lambda value: set(re.findall(r"\{\w+\}", json.dumps(value)))  # noqa: E731
    differ = {k for k in english if blanks(english[k]) != blanks(other[k])}
    assert not differ, differ


def test_the_page_uses_only_keys_the_catalogue_has() -> None:
    english = set(catalogue()["en"])
    used: set[str] = set()
    for path in STATIC.glob("*.js"):
        used |= set(re.findall(r"\bt(?:Nodes)?\(\s*\"([\w.]+)\"", path.read_text()))
    assert used and used <= english, used - english
