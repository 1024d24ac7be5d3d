// An inline text editor for memory: a text box with a live count against the limit, Save
// and Cancel, and a line for the server's answer when it refuses. Escape cancels;
// Ctrl+Enter (⌘+Enter) saves. Used to edit a pin or the summary and to shorten a text
// before it is pinned.

import { HumanError } from "./http.js";
import { t } from "./i18n.js";
import { button, paragraph } from "./view.js";

const chars = (text) => [...text].length;
let made = 0;

/**
 * ``{element, focus}``: an editor of ``text``. ``onSave(trimmed)`` returns a promise; a
 * HumanError it rejects with is shown under the box and the editor stays open.
 * ``allowEmpty``: saving nothing is allowed (it clears what is edited).
 */
export function textEditor({ label, text, cap, onSave, onCancel, saveLabel = t("editor.save"), note = "", allowEmpty = false, rows = 3 }) {
  const form = document.createElement("form");
  form.className = "editor";
  const box = document.createElement("textarea");
  box.value = text;
  box.rows = rows;
  box.setAttribute("aria-label", label);
  const count = paragraph("", "editor-count");
  count.setAttribute("aria-live", "polite");
  const error = paragraph("", "editor-error");
  error.setAttribute("role", "alert");
  error.hidden = true;
  const save = button(saveLabel, "");
  save.type = "submit";
  const cancel = button(t("editor.cancel"), "secondary");
  const actions = document.createElement("div");
  actions.className = "editor-actions";
  actions.append(count, cancel, save);
  form.append(box);
  if (note) form.append(paragraph(note, "editor-note"));
  form.append(error, actions);
  count.id = `editor-count-${++made}`;
  box.setAttribute("aria-describedby", count.id);

  let saving = false;
  const update = () => {
    const length = chars(box.value.trim());
    const over = length - cap;
    count.textContent = over > 0
      ? t("editor.countOver", { length, cap, over })
      : t("editor.count", { length, cap });
    count.dataset.over = String(over > 0);
    save.disabled = saving || over > 0 || (!allowEmpty && length === 0);
  };
  const showError = (message) => {
    error.textContent = message;
    error.hidden = !message;
  };

  box.addEventListener("input", () => {
    showError("");
    update();
  });
  box.addEventListener("keydown", (event) => {
    if (event.key === "Escape") {
      event.preventDefault();
      onCancel();
    } else if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
      event.preventDefault();
      form.requestSubmit();
    }
  });
  cancel.addEventListener("click", () => onCancel());
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    if (save.disabled) return;
    saving = true;
    update();
    showError("");
    try {
      await onSave(box.value.trim());
    } catch (failure) {
      showError(failure instanceof HumanError ? failure.message : t("error.page"));
      if (!(failure instanceof HumanError)) console.error(failure);
      box.focus();
    } finally {
      saving = false;
      update();
    }
  });
  update();
  return {
    element: form,
    focus() {
      box.focus();
      box.setSelectionRange(box.value.length, box.value.length);
      form.scrollIntoView({ block: "nearest" });
    },
  };
}
