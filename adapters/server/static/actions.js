// One user action at a time: the page is marked busy while a run is going, errors become a
// sentence, and the memory panel is refreshed after each action.

import { HumanError } from "./http.js";
import { t } from "./i18n.js";
import { refreshMemoryPanel } from "./memory_panel.js";
import { clearError, scrollToEnd, showError, ui } from "./view.js";

export const WAIT_FOR_ANSWER = t("error.waitForAnswer");

const controls = [document.getElementById("send"), ui.reset, document.getElementById("forget-everything")];
let busy = false;
let actionsDone = 0;

export const isBusy = () => busy;

function setBusy(value) {
  busy = value;
  for (const control of controls) control.disabled = value;
  if (value) document.body.dataset.busy = "true";
  else delete document.body.dataset.busy;
}

/** Run one user action with the page marked busy; errors become a sentence on the page.
 *  ``<body data-actions>`` counts finished actions (the browser tests wait on it). */
export async function runAction(action, { refresh = true } = {}) {
  clearError();
  setBusy(true);
  try {
    await action();
  } catch (error) {
    showError(error instanceof HumanError ? error.message : t("error.page"));
    if (!(error instanceof HumanError)) console.error(error);
  } finally {
    setBusy(false);
    if (refresh) await refreshMemoryPanel();
    scrollToEnd();
    document.body.dataset.actions = String(++actionsDone);
    if (!document.activeElement || document.activeElement === document.body || document.activeElement.disabled) {
      ui.composer.focus();
    }
  }
}
