// The official LangGraph JS SDK (@langchain/langgraph-sdk, what agent-chat-ui is built on)
// against our `langgraph dev`, unchanged: the session token is its `apiKey` (X-Api-Key).
// Run by tests/server/test_stock_clients.py, which starts the server and passes
// AIMIND_TEST_URL and two fresh session tokens.

import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { test } from "node:test";

import { Client } from "@langchain/langgraph-sdk";

const apiUrl = process.env.AIMIND_TEST_URL;
const tokenA = process.env.AIMIND_TEST_TOKEN_A;
const tokenB = process.env.AIMIND_TEST_TOKEN_B;
const GOAL = "Plan the launch of our new recipe app next month";

const client = (apiKey) => new Client({ apiUrl, apiKey, timeoutMs: 120_000 });
const human = (text, id = randomUUID()) => ({ messages: [{ type: "human", content: text, id }] });

/** The one pending interrupt's value, read the way agent-chat-ui does: from the thread. */
async function pendingInterrupt(sdk, threadId) {
  const state = await sdk.threads.getState(threadId);
  const interrupts = state.tasks.flatMap((task) => task.interrupts ?? []);
  assert.equal(interrupts.length, 1, "one pending interrupt");
  return interrupts[0].value;
}

async function startReview(sdk) {
  const thread = await sdk.threads.create();
  await sdk.runs.wait(thread.thread_id, "tasklist-agent", { input: human(GOAL) });
  return thread.thread_id;
}

test("apiKey authenticates; a missing or malformed key is refused", async () => {
  const assistants = await client(tokenA).assistants.search({ graphId: "chat" });
  assert.ok(assistants.length >= 1);
  await assert.rejects(client(null).threads.search({}), /401/);
  await assert.rejects(client("short").threads.search({}), /401/);
});

test("three chat turns on one thread: getState shows all three, with stable ids", async () => {
  const sdk = client(tokenA);
  const thread = await sdk.threads.create();
  const answers = [];
  for (const n of [1, 2, 3]) {
    const out = await sdk.runs.wait(thread.thread_id, "chat", { input: human(`node turn ${n}`, `node-q${n}`) });
    const answer = out.messages.at(-1);
    assert.equal(answer.type, "ai");
    answers.push(answer.id);
  }
  const state = await sdk.threads.getState(thread.thread_id);
  const shown = state.values.messages.map((m) => [m.type, m.id]);
  for (const n of [1, 2, 3]) {
    const at = shown.findIndex(([, id]) => id === `node-q${n}`);
    assert.ok(at >= 0, `turn ${n}'s question is shown`);
    assert.deepEqual(shown[at + 1], ["ai", answers[n - 1]], `turn ${n}'s answer keeps its id`);
  }
  assert.ok(state.values.messages.length <= 12);
  assert.equal(state.values.memory_context.available, true);
});

test("tasklist review: the v1 interrupt from getState, resumed with approve", async () => {
  const sdk = client(tokenA);
  const threadId = await startReview(sdk);
  const value = await pendingInterrupt(sdk, threadId);
  const [request] = value.action_requests;
  assert.equal(request.name, "review_tasklist");
  assert.ok(Array.isArray(request.args.tasks) && request.args.tasks.length > 0);
  assert.equal(typeof request.description, "string");
  assert.deepEqual(value.review_configs, [
    { action_name: "review_tasklist", allowed_decisions: ["approve", "edit", "reject"] },
  ]);
  const done = await sdk.runs.wait(threadId, "tasklist-agent", {
    command: { resume: { decisions: [{ type: "approve" }] } },
  });
  assert.equal(done.status, "final");
  assert.match(done.summary, /approved/);
});

test("tasklist review: an edit (args as agent-chat-ui sends them) becomes the plan", async () => {
  const sdk = client(tokenA);
  const threadId = await startReview(sdk);
  const [request] = (await pendingInterrupt(sdk, threadId)).action_requests;
  const tasks = request.args.tasks.map((task, i) => (i === 0 ? { ...task, title: "Pick the date" } : task));
  const done = await sdk.runs.wait(threadId, "tasklist-agent", {
    command: {
      resume: {
        decisions: [
          { type: "edit", edited_action: { name: request.name, args: { tasks: JSON.stringify(tasks) } } },
        ],
      },
    },
  });
  assert.equal(done.status, "final");
  assert.match(done.summary, /finalised with your edits/);
  assert.match(done.artifact, /Pick the date/);
});

test("tasklist review: reject with a message gets a revised plan to review", async () => {
  const sdk = client(tokenA);
  const threadId = await startReview(sdk);
  const before = (await pendingInterrupt(sdk, threadId)).action_requests[0].args.tasks;
  await sdk.runs.wait(threadId, "tasklist-agent", {
    command: { resume: { decisions: [{ type: "reject", message: "add a press kit" }] } },
  });
  const revised = await pendingInterrupt(sdk, threadId);
  const tasks = revised.action_requests[0].args.tasks;
  assert.equal(tasks.length, before.length + 1);
  assert.ok(tasks.some((task) => task.title.includes("add a press kit")));
  const done = await sdk.runs.wait(threadId, "tasklist-agent", {
    command: { resume: { decisions: [{ type: "approve" }] } },
  });
  assert.match(done.summary, /after 1 revision round/);
});

test("threads.search is owner-scoped", async () => {
  const mine = await client(tokenA).threads.search({ limit: 100 });
  assert.ok(mine.length >= 4, "A sees its own threads");
  const theirs = await client(tokenB).threads.search({ limit: 100 });
  const ids = new Set(theirs.map((t) => t.thread_id));
  assert.ok(mine.every((t) => !ids.has(t.thread_id)), "B sees none of A's threads");
  await assert.rejects(client(tokenB).threads.getState(mine[0].thread_id), /404/);
});
