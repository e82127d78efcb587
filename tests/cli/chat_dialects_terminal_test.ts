/**
 * Each server dialect end to end through the chat at a real terminal (tmux):
 * one chat session whose model reads a file with a tool call, its follow-up
 * accepted by a test server that refuses what the real server refuses
 * (tests/support/dialect_server.ts, tests/support/responses_server.ts cite
 * the vendors' docs), the reasoning shown as its collapsed line and the
 * answer shown; then `skiff -c` takes one more prompt, accepted too. One
 * table of servers, one loop; every wait is on the screen, against a deadline.
 */
import { assert, assertEquals, assertStringIncludes } from "../support/assert.ts";
import { makeSandbox, runSkiff } from "../support/cli.ts";
import {
  hasTmux,
  newSession,
  press,
  removeWhenQuiet,
  sessionName,
  shows,
  skiffLine,
  tmux,
  typeLine,
  waitFor,
} from "../support/chat_tmux.ts";
import { type DialectName, startDialectServer } from "../support/dialect_server.ts";
import { startResponsesServer } from "../support/responses_server.ts";

/** What a case's server saw, the same for every kind of test server. */
interface Served {
  url: string;
  /** Request bodies, in order. */
  requests: Record<string, unknown>[];
  /** Refusals the server answered, in its own words. */
  refusals(): string[];
  close(): Promise<void>;
}

/** The script of every case, in the case's own wire format. */
interface Script {
  /** Reasoning of each answer: two lines, one, three (so each shows its own count). */
  reasoning: [string, string, string];
  /** The first answer: a call of `read`, or the model's own text for it (a text-call model). */
  call: { name: string; arguments: Record<string, unknown> };
  answers: [string, string];
}

const SCRIPT: Script = {
  reasoning: [
    "The user asks about notes.txt.\nI will read it.",
    "It says 42.",
    "Asked again.\nNothing changed.\nStill 42.",
  ],
  call: { name: "read", arguments: { file_path: "notes.txt" } },
  answers: ["The notes say the answer is 42.", "Still 42, as the notes say."],
};

/** One answer of the script: reasoning, then the call or the text. */
interface Step {
  reasoning: string;
  call?: Script["call"];
  text?: string;
}

/** SCRIPT as the answers of a session: the call, the answer to it, the answer after `-c`. */
const STEPS: Step[] = [
  { reasoning: SCRIPT.reasoning[0], call: SCRIPT.call },
  { reasoning: SCRIPT.reasoning[1], text: SCRIPT.answers[0] },
  { reasoning: SCRIPT.reasoning[2], text: SCRIPT.answers[1] },
];

/** A Chat Completions dialect server playing `steps` (calls as text when `asText` writes them). */
function dialect(name: DialectName, asText?: (call: Script["call"]) => string) {
  return (steps: Step[]): Served => {
    const server = startDialectServer(
      name,
      steps.map(({ reasoning, call, text }) =>
        call && asText ? { reasoning, text: asText(call) } : { reasoning, call, text }
      ),
    );
    return { ...server, refusals: () => server.answers.filter((answer) => answer !== "ok") };
  };
}

function responses(steps: Step[]): Served {
  const server = startResponsesServer(
    steps.map(({ reasoning, call, text }) => ({ reasoning, text, toolCalls: call && [call] })),
  );
  return { ...server, refusals: () => server.refusals };
}

/** Hermes/Qwen markup, as a server without a matching tool-call parser leaves it in the content. */
const hermes = (call: Script["call"]) =>
  `<tool_call>\n${JSON.stringify({ name: call.name, arguments: call.arguments })}\n</tool_call>`;

interface Case {
  server: string;
  model: string;
  /**
   * The settings docs/models.md gives for this server, as config.json holds
   * them; with `then`, set only for `skiff -c` (as when a user moves on).
   */
  config?: Record<string, unknown>;
  start(steps: Step[]): Served;
  /** Where `skiff -c` goes on, when another server than `start`'s (its last step only). */
  then?(steps: Step[]): Served;
  /** A check of what was sent, beyond "accepted". */
  sent?(served: Served): void;
}

const CASES: Case[] = [
  {
    server: "DeepSeek, thinking mode with tools",
    model: "deepseek-reasoner",
    start: dialect("deepseek"),
  },
  {
    server: "Gemini 3, thought signatures",
    model: "gemini-3-pro-preview",
    // What skiff does by itself at Google's host; a 127.0.0.1 server needs it said.
    config: { provider: { models: { "gemini-*": { toolSchemas: "gemini" } } } },
    start: dialect("gemini"),
    sent(served) {
      const tools = JSON.stringify(served.requests[0].tools);
      assert(!/"(additionalProperties|exclusiveMinimum|\$schema)"/.test(tools), tools);
    },
  },
  {
    server: "OpenRouter, reasoning_details",
    model: "anthropic/claude-sonnet-4.5",
    start: dialect("openrouter"),
  },
  {
    server: "Mistral, ids and order",
    model: "magistral-medium-latest",
    // What skiff does by itself at api.mistral.ai.
    config: { provider: { dialect: "mistral" } },
    start: dialect("mistral"),
  },
  {
    server: "Mistral, going on with a session begun on vLLM (ids Mistral refuses)",
    model: "magistral-medium-latest",
    config: { provider: { dialect: "mistral" } },
    start: dialect("vllm"),
    then: dialect("mistral"),
    sent(served) {
      // vLLM's own ids went to vLLM; Mistral gets ids of its form, checked by its server.
      const history = served.requests[1].messages as Record<string, unknown>[];
      assertStringIncludes(JSON.stringify(history), "call_1_xyz");
    },
  },
  { server: "vLLM, delta.reasoning", model: "Qwen/Qwen3-8B", start: dialect("vllm") },
  { server: "Ollama, delta.reasoning", model: "qwen3:8b", start: dialect("ollama") },
  {
    server: "llama.cpp, delta.reasoning_content",
    model: "Qwen3-8B-Q4_K_M.gguf",
    start: dialect("llamacpp"),
  },
  {
    server: "LM Studio, delta.reasoning_content",
    model: "qwen/qwen3-8b",
    start: dialect("lmstudio"),
  },
  {
    server: "Responses API, encrypted reasoning",
    model: "gpt-5-codex",
    config: { provider: { wire: "responses" } },
    start: responses,
    sent(served) {
      // The follow-up carries the encrypted reasoning item back with the call.
      const input = served.requests[1].input as Record<string, unknown>[];
      assert(
        input.some((item) => item.type === "reasoning" && item.encrypted_content),
        JSON.stringify(input),
      );
    },
  },
  {
    server: "Hermes-style text tool calls (vLLM without a matching parser)",
    model: "Qwen/Qwen3-8B",
    start: dialect("vllm", hermes),
    sent(served) {
      // The call went back as a structured call, not as text.
      const history = served.requests[1].messages as Record<string, unknown>[];
      const assistant = history.find((message) => message.role === "assistant");
      assert(Array.isArray(assistant?.tool_calls), JSON.stringify(history));
      // The system prompt tells such a model the form skiff reads; no message after it carries it.
      const turns = history.filter((message) => message.role !== "system");
      assert(!JSON.stringify(turns).includes("<tool_call>"), JSON.stringify(turns));
    },
  },
];

/** Each wait's bound: a case is a few seconds when it works. */
const WAIT = { timeoutMs: 25_000 };

/** Types `prompt` in the chat of `session` and waits for `answer`; the pane then. */
async function ask(session: string, prompt: string, answer: string): Promise<string> {
  await shows(session, "Ctrl-D to exit", WAIT);
  await typeLine(session, prompt);
  return await shows(session, answer, WAIT);
}

/** Once the turn is over, Ctrl-D, then the exit status the shell printed; the pane then. */
async function leave(session: string): Promise<string> {
  await waitFor(session, (screen) => !screen.includes("working…"), "the turn's end", {
    ...WAIT,
    history: 0,
  });
  await press(session, "C-d");
  const pane = await shows(session, "SKIFF_EXIT=", WAIT);
  assertStringIncludes(pane, "SKIFF_EXIT=0");
  return pane;
}

for (const each of CASES) {
  Deno.test({
    name: `chat end to end, ${each.server}: tool call, reasoning, answer; skiff -c goes on`,
    async fn() {
      if (!hasTmux) throw new Error("tmux is not installed: the chat cannot be tested");
      const served = each.start(each.then ? STEPS.slice(0, 2) : STEPS);
      const later = each.then?.(STEPS.slice(2));
      const sandbox = await makeSandbox({ OPENAI_BASE_URL: served.url, SKIFF_MODEL: each.model });
      const first = sessionName("skiff-dialect");
      const again = `${first}-c`;
      try {
        await Deno.writeTextFile(`${sandbox.workspace}/notes.txt`, "the answer is 42\n");
        const configure = () =>
          Deno.writeTextFile(`${sandbox.configDir}/config.json`, JSON.stringify(each.config));
        if (each.config && !each.then) await configure();
        await newSession(first, skiffLine(sandbox));
        const pane = await ask(first, "What do the notes say?", SCRIPT.answers[0]);
        assertStringIncludes(pane, "thought for 2 lines");
        assertStringIncludes(pane, "thought for 1 line");
        assertStringIncludes(pane, "✓ read notes.txt");
        assert(!pane.includes("<tool_call>"), pane);
        assertEquals(served.refusals(), []);
        assertEquals(served.requests.length, 2, "one call, one follow-up");
        // The follow-up carries what the tool read.
        assertStringIncludes(JSON.stringify(served.requests[1]), "the answer is 42");
        each.sent?.(served);
        const left = await leave(first);
        // Stored: the session's export holds the reasoning of both answers.
        const id = /skiff --resume (ses_\w+)/.exec(left)?.[1];
        assert(id, left);
        const exported = await runSkiff(["sessions", "export", id], sandbox);
        assertEquals(exported.code, 0, exported.stderr);
        const { messages } = JSON.parse(exported.stdout) as {
          messages: { parts: { type: string; text?: string }[] }[];
        };
        const stored = messages.flatMap((message) => message.parts)
          .filter((part) => part.type === "reasoning").map((part) => part.text);
        assertEquals(stored, SCRIPT.reasoning.slice(0, 2));

        if (each.config && each.then) await configure();
        const on = later ?? served;
        const env = { ...sandbox.env, OPENAI_BASE_URL: on.url };
        await newSession(again, skiffLine({ ...sandbox, env }, "-c"));
        const resumed = await ask(again, "And now?", SCRIPT.answers[1]);
        assertStringIncludes(resumed, "thought for 3 lines");
        assertEquals(on.refusals(), []);
        assertEquals(served.requests.length + (later?.requests.length ?? 0), 3);
        // The whole session went: the call and its result among it.
        assertStringIncludes(JSON.stringify(on.requests.at(-1)), "the answer is 42");
        await leave(again);
      } finally {
        for (const session of [first, again]) {
          await tmux("kill-session", "-t", session).catch(() => "");
        }
        await served.close();
        await later?.close();
        await removeWhenQuiet(sandbox);
      }
    },
  });
}
