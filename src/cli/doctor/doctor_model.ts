/**
 * `skiff doctor --model <id>`'s section: what the endpoint did with one tiny
 * request offering one tool (src/provider/endpoint_probe.ts), and what skiff
 * will do about it with this model's settings. Pure: the probe is made by
 * doctor.ts.
 */
import type { EndpointProbe } from "../../provider/endpoint_probe.ts";
import { familyOf, type TextToolCallSetting } from "../../provider/dialects/model_families.ts";
import { FORMAT_NAMES } from "../../provider/dialects/text_tool_calls.ts";
import type { SchemaDialect } from "../../provider/dialects/schema_dialect.ts";

export interface ModelFacts {
  id: string;
  probe: EndpointProbe;
  /** How text calls are read for this model (config, else its family, else auto). */
  textToolCalls: TextToolCallSetting;
  toolSchemas: SchemaDialect;
  /** The window skiff assumes, and where that number comes from. */
  assumedContext: { tokens: number; source: "config" | "builtin" | "default" };
}

/** The server settings under which the model's calls come back structured. */
function serverFix(model: string): string {
  const parser = familyOf(model)?.vllmParser ?? "hermes";
  return `start llama.cpp's server with --jinja, or vLLM with --enable-auto-tool-choice ` +
    `--tool-call-parser ${parser}`;
}

function wireLine(probe: EndpointProbe, model: string): string {
  const chat = probe.chat;
  if ("error" in chat) return `  wire: no answer (${chat.error})`;
  if (chat.status < 400) return `  wire: Chat Completions (HTTP ${chat.status})`;
  const refusal = chat.refusal ? `: ${chat.refusal}` : "";
  if (probe.responses && probe.responses.status < 400) {
    return `  wire: Chat Completions not found (HTTP ${chat.status}); the Responses API answers ` +
      `(HTTP ${probe.responses.status}): the model is served on /responses, where skiff switches ` +
      `(provider "wire": "auto", or set "responses")`;
  }
  const hint = /jinja/i.test(chat.refusal ?? "")
    ? " — start llama.cpp's server with --jinja"
    : /tool.?choice|tool-call-parser/i.test(chat.refusal ?? "")
    ? ` — ${serverFix(model)}`
    : "";
  return `  wire: Chat Completions refused the request with a tool (HTTP ${chat.status}${refusal})${hint}`;
}

function toolCallLine(facts: ModelFacts): string | undefined {
  const calls = facts.probe.toolCalls;
  if (!calls) return undefined;
  if (calls.kind === "structured") return "  tool calls: structured (the server parses them)";
  if (calls.kind === "none") {
    return `  tool calls: none — the model answered in words ("${calls.sample.slice(0, 80)}"); ` +
      "it may not call tools with this server";
  }
  const reading = calls.reading;
  if (reading.kind === "unreadable") {
    return `  tool calls: text skiff cannot read (${reading.looksLike}) — a run would fail; ` +
      serverFix(facts.id);
  }
  if (reading.kind !== "calls") return undefined;
  const format = FORMAT_NAMES[reading.format];
  if (facts.textToolCalls === "off") {
    return `  tool calls: text (${format}) — but textToolCalls is "off" for this model, so a run ` +
      `would take them as its answer; remove that setting, or ${serverFix(facts.id)}`;
  }
  return `  tool calls: text (${format}) — skiff will read them as calls (textToolCalls: ` +
    `${facts.textToolCalls}); to have the server parse them, ${serverFix(facts.id)}`;
}

function contextLine(facts: ModelFacts): string {
  const listed = facts.probe.context;
  const assumed = facts.assumedContext;
  const skiff = `skiff uses ${assumed.tokens} (${
    assumed.source === "config"
      ? "your config"
      : assumed.source === "builtin"
      ? "built-in"
      : "default"
  })`;
  if (!listed) return `  context window: not listed by the server; ${skiff}`;
  const differs = listed.tokens !== assumed.tokens
    ? `; set "models": {"${facts.id}": {"context": ${listed.tokens}}} to match`
    : "";
  return `  context window: ${listed.tokens} tokens (the server's ${listed.field}); ${skiff}${differs}`;
}

/** The lines of the model section. */
export function modelLines(facts: ModelFacts): string[] {
  const family = familyOf(facts.id)?.name;
  const reasoning = facts.probe.reasoningField
    ? `  reasoning: streamed (delta.${facts.probe.reasoningField})`
    : "  reasoning: none streamed in this answer";
  return [
    `Model ${facts.id}${
      family ? ` (${family} family)` : ""
    }, probed with one request offering one tool:`,
    wireLine(facts.probe, facts.id),
    ...[toolCallLine(facts)].filter((line): line is string => line !== undefined),
    ...("status" in facts.probe.chat && facts.probe.chat.status < 400 ? [reasoning] : []),
    contextLine(facts),
    `  tool schemas: ${
      facts.toolSchemas === "gemini" ? "Gemini's subset of JSON Schema" : "JSON Schema as generated"
    } (toolSchemas: ${facts.toolSchemas})`,
  ];
}

/** Whether a run with this model would fail or do nothing: doctor then exits 1. */
export function modelWouldFail(facts: ModelFacts): boolean {
  const chat = facts.probe.chat;
  if ("error" in chat || chat.status >= 400) return true;
  const calls = facts.probe.toolCalls;
  if (calls?.kind !== "text") return false;
  return calls.reading.kind === "unreadable" || facts.textToolCalls === "off";
}
