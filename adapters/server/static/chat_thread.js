// The conversation is a `chat` thread (contract §8a): its `values.messages` is the whole
// conversation as its user saw it (user-visible text, stable ids, at most 200 messages),
// so a reload shows it all, not only memory's recent window. As agent-chat-ui does, the
// page creates the thread with the first message and remembers its id in this browser;
// "New conversation" forgets it, so the next message starts a fresh, empty thread. Chat
// memory stays per session, whichever thread a turn runs on.
//
// The id is kept in a cookie the page writes (not HttpOnly: it is no credential — every
// thread route is owner-scoped to the session): cookies are per host, so every replica
// behind one address finds it, and it lives as long as the session cookie does.

import { HumanError, requestJson, threadPath } from "./http.js";
import { t } from "./i18n.js";
import { recalledOf } from "./recalled.js";
import { contentText } from "./stream.js";

const COOKIE = "aimind_chat_thread";
const COOKIE_MAX_AGE_S = 365 * 24 * 3600;
const THREAD_ID = /^[A-Za-z0-9_-]{1,128}$/;
/** Metadata of a /tasklist or /delivery thread: the conversation it belongs to and the
 *  conversation's last message when it was sent, so a reload puts it back in its place. */
export const CHAT_THREAD_KEY = "aimind_chat_thread";
export const AFTER_KEY = "aimind_after_message";

function readCookie() {
  for (const part of document.cookie.split(";")) {
    const [name, ...rest] = part.trim().split("=");
    if (name !== COOKIE) continue;
    try {
      const value = decodeURIComponent(rest.join("="));
      return THREAD_ID.test(value) ? value : null;
    } catch {
      return null;
    }
  }
  return null;
}

function writeCookie(value, maxAge) {
  const secure = location.protocol === "https:" ? "; Secure" : "";
  document.cookie = `${COOKIE}=${encodeURIComponent(value)}; Path=/; Max-Age=${maxAge}; SameSite=Lax${secure}`;
}

let current = readCookie();
let end = ""; // the id of the conversation's last message: what comes next goes after it

/** The conversation's thread id, or null before its first message. */
export const chatThreadId = () => current;

/** The conversation's thread, created (and remembered) when it has none yet. */
export async function ensureChatThread() {
  if (!current) {
    const thread = await requestJson("POST", "/threads", {});
    if (!THREAD_ID.test(String(thread?.thread_id ?? ""))) {
      throw new HumanError(t("error.noThread"));
    }
    current = thread.thread_id;
    writeCookie(current, COOKIE_MAX_AGE_S);
  }
  return current;
}

/** Forget the conversation's thread: the next message starts a new one. */
export function forgetChatThread() {
  current = null;
  end = "";
  writeCookie("", 0);
}

/** A transcript message as the page shows it — ``{id, role, text}``, and an answer's
 *  ``recalled`` earlier messages — or null for what a person did not see (a tool call or
 *  result of a turn still running). */
export function shownMessage(message) {
  const type = String(message?.type ?? "");
  const text = contentText(message?.content);
  if (!text.trim()) return null;
  if (type === "human") return { id: String(message.id ?? ""), role: "user", text };
  if (type === "ai" && !(message.tool_calls ?? []).length) {
    return { id: String(message.id ?? ""), role: "assistant", text, recalled: recalledOf(message) };
  }
  return null;
}

/** The conversation so far (``[]`` with no thread yet, or when its thread is gone: deleted
 *  elsewhere, or another session's — then the page starts a new one). */
export async function readTranscript() {
  if (!current) return [];
  let state;
  try {
    state = await requestJson("GET", `${threadPath(current)}/state`);
  } catch (error) {
    if (error instanceof HumanError && error.status === 404) {
      forgetChatThread();
      return [];
    }
    throw error;
  }
  const messages = Array.isArray(state?.values?.messages) ? state.values.messages : [];
  return messages.map(shownMessage).filter(Boolean);
}

/** The id of the conversation's last message (of its chat thread) is now ``id``. */
export function transcriptEnded(id) {
  end = id ? String(id) : "";
}

/** The metadata of a new /tasklist or /delivery thread (``CHAT_THREAD_KEY``, ``AFTER_KEY``). */
export async function commandThreadMetadata() {
  return { [CHAT_THREAD_KEY]: await ensureChatThread(), [AFTER_KEY]: end };
}
