/**
 * No turn writes the whole history to SQLite again: a long session through
 * the loop with the real store recorder (PromptRun's, which also saves the
 * read ledger) against a real database, every statement's bytes counted.
 * What a turn writes stays bounded as the history grows, compactions
 * included (a compaction is a record of its own, not a rewrite).
 */
import * as path from "node:path";
import { assert, assertEquals } from "../support/assert.ts";
import { runLoop } from "../../src/engine/loop/loop.ts";
import type { ChatProvider, ChatResponse } from "../../src/provider/types.ts";
import type { Tool, ToolContext } from "../../src/tools/tool.ts";
import { Statements } from "../../src/store/_rows.ts";
import { openStore } from "../../src/store/store.ts";
import { PromptRun } from "../../src/engine/prompt_run.ts";
import { FileLedger } from "../../src/tools/files/file_ledger.ts";
import { SUMMARY_PROMPT } from "../../src/engine/context/summary.ts";
import { z } from "zod";

const TURNS = 200;
const OUTPUT = "x".repeat(100).concat("\n").repeat(200); // ~20 KB

/** Bytes of every value bound to a write statement, per turn (turn 0: before the first). */
function countWrites(perTurn: number[], turn: () => number): () => void {
  const run = Statements.prototype.run;
  Statements.prototype.run = function (sql, ...params) {
    const bytes = params.reduce<number>(
      (sum, value) => sum + (typeof value === "string" ? value.length : 8),
      sql.length,
    );
    perTurn[turn()] = (perTurn[turn()] ?? 0) + bytes;
    return run.call(this, sql, ...params);
  };
  return () => (Statements.prototype.run = run);
}

function model(calls: { summaries: number; steps: number }): ChatProvider {
  let step = 0;
  const usage = (tokens: number) => ({ input_tokens: tokens, output_tokens: 40, total_tokens: 0 });
  return {
    baseURL: "http://fake",
    stream(request): Promise<ChatResponse> {
      const tokens = Math.ceil(JSON.stringify(request.messages).length / 4);
      if (request.messages[0].content === SUMMARY_PROMPT) {
        calls.summaries++;
        return Promise.resolve({
          text: "## Task\nreading\n## Next steps\n- more",
          toolCalls: [],
          finishReason: "stop",
          usage: usage(tokens),
        });
      }
      step++;
      calls.steps++;
      if (step >= TURNS) {
        return Promise.resolve({
          text: "Done.",
          toolCalls: [],
          finishReason: "stop",
          usage: usage(tokens),
        });
      }
      return Promise.resolve({
        text: `Step ${step}: the log looked fine, reading the next one. `.repeat(30),
        toolCalls: [{ id: `c${step}`, name: "read", arguments: `{"path":"log_${step}.txt"}` }],
        finishReason: "tool_calls",
        usage: usage(tokens),
      });
    },
  };
}

Deno.test(`${TURNS} turns with ~20 KB outputs: what each turn writes to SQLite stays bounded as the history grows; summary requests are usage rows, not turns`, async () => {
  const dir = await Deno.makeTempDir({ prefix: "skiff-writes-" });
  const store = openStore(path.join(dir, "data"));
  const ledger = new FileLedger();
  const read = {
    name: "read",
    description: "read a file",
    parameters: z.object({ path: z.string() }),
    declare: () => ({ key: "read", patterns: ["*"] }),
    execute: (input: { path: string }) => {
      ledger.markRead(path.join(dir, input.path), OUTPUT);
      return Promise.resolve({ output: OUTPUT });
    },
  } as unknown as Tool;
  const perTurn: number[] = [];
  let turn = 0;
  const restore = countWrites(perTurn, () => turn);
  try {
    const session = store.createSession({ workspace: dir, model: "m", agent: "build" });
    const recorder = new PromptRun(1).recorder(store, session.id, ledger);
    let compactions = 0;
    const calls = { summaries: 0, steps: 0 };
    const outcome = await runLoop({
      provider: model(calls),
      tools: [read],
      schemas: [{ name: "read", description: "read a file", parameters: { type: "object" } }],
      gate: { check: () => Promise.resolve({ allowed: true }), denials: () => [] },
      recorder,
      emit: (type, body) => {
        if (type === "turn.started") turn = (body as { turn: number }).turn;
        if (type === "context.compacted") compactions++;
      },
      context: () => ({}) as ToolContext,
      parseInput: (_tool, raw) => JSON.parse(raw),
      truncate: (output) => Promise.resolve(output),
    }, {
      model: "m",
      systemPrompt: "You are a coding agent.",
      history: [],
      prompt: "Read every log and say whether any failed.",
      modelLimits: { context: 32_768, output: 4_096 },
      signal: new AbortController().signal,
    });
    assertEquals(outcome.kind, "completed");
    assert(compactions > 3, `the session compacted (${compactions} times)`);
    // Summary requests are usage rows too, and are not counted as turns.
    assert(calls.summaries > 0, "summarised");
    assertEquals(store.usage.ownTotals(session.id).requests, calls.steps + calls.summaries);
    assertEquals(store.getSession(session.id)!.turns, calls.steps);
    const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1];
    const first = perTurn.slice(1, 51);
    const last = perTurn.slice(-51, -1);
    const storedBytes = store.loadHistory(session.id).reduce(
      (sum, message) => sum + JSON.stringify(message.parts).length,
      0,
    );
    // A turn writes its own answer, its ~20 KB result and the read ledger (one entry a
    // file read, not the history): never the history, which ends ~100 times larger.
    assert(storedBytes > 50 * Math.max(...perTurn), `history ${storedBytes} B`);
    assert(
      median(last) < median(first) * 1.5,
      `median bytes a turn: first 50 ${median(first)}, last 50 ${median(last)}`,
    );
    assert(Math.max(...last) < 80_000, `largest turn of the last 50: ${Math.max(...last)} B`);
    console.log(
      `bytes written a turn (median): first 50 ${median(first)}, last 50 ${median(last)}; ` +
        `largest ${Math.max(...perTurn)}; history stored ${storedBytes}`,
    );
  } finally {
    restore();
    store.close();
    await Deno.remove(dir, { recursive: true });
  }
});
