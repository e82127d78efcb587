/**
 * Tool calls a model wrote into its text. A server that does not parse a
 * model's tool calls (llama.cpp without `--jinja`, vLLM without
 * `--tool-call-parser`, many local setups) hands back the model's own markup
 * as content: `<tool_call>{…}</tool_call>` and the like. Taken as the final
 * answer, a run would end "done" having done nothing. Here the common
 * formats are read and become calls; markup that looks like a call but
 * cannot be read fails the request with the server setting that fixes it.
 *
 * Formats, as the models write them (and vLLM's parsers read them):
 * - hermes: `<tool_call>{"name": …, "arguments": {…}}</tool_call>` (Hermes,
 *   Qwen 2.5/3), or its XML body `<function=name><parameter=p>v</parameter></function>`
 *   (Qwen3-Coder).
 * - mistral: `[TOOL_CALLS][{"name": …, "arguments": {…}}]`, or
 *   `[TOOL_CALLS]name[ARGS]{…}` from newer tokenizers.
 * - llama3: the whole answer is `{"name": …, "parameters": {…}}` (after an
 *   optional `<|python_tag|>`), calls separated by `;`.
 * - deepseek: `<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>name
 *   ```json {…}```<｜tool▁call▁end｜>…` (V3, R1), or `…begin｜>name<｜tool▁sep｜>{…}…` (V3.1).
 */
import {
  familyOf,
  TEXT_TOOL_CALL_FORMATS,
  type TextToolCallFormat,
  type TextToolCallSetting,
} from "./model_families.ts";
import { MarkupHold } from "./_markup_hold.ts";
import { type ChatProvider, ProviderError, type ToolCall, type ToolSchema } from "../types.ts";

export type { TextToolCallFormat, TextToolCallSetting };

/** A call read from text: a name and its arguments as JSON text. */
export interface TextCall {
  name: string;
  arguments: string;
}

export type TextToolCallReading =
  | { kind: "none" }
  | { kind: "calls"; format: TextToolCallFormat; calls: TextCall[]; text: string }
  | { kind: "unreadable"; looksLike: string; reason: string };

/** Display names, for messages and `skiff doctor`. */
export const FORMAT_NAMES: Record<TextToolCallFormat, string> = {
  hermes: "Hermes/Qwen <tool_call>",
  mistral: "Mistral [TOOL_CALLS]",
  llama3: "Llama 3 JSON",
  deepseek: "DeepSeek tool▁calls",
};

const BAR = "[|｜]";
const DEEPSEEK_BEGIN = new RegExp(`<${BAR}tool▁calls▁begin${BAR}>`);
const DEEPSEEK_CALL = new RegExp(
  `<${BAR}tool▁call▁begin${BAR}>([\\s\\S]*?)<${BAR}tool▁sep${BAR}>([\\s\\S]*?)(?:<${BAR}tool▁call▁end${BAR}>|$)`,
  "g",
);
const DEEPSEEK_END = new RegExp(`<${BAR}tool▁calls▁end${BAR}>`);

/**
 * Markup of a call in some format: where one of these stands outside code,
 * the text is a call, read or not. The last ones belong to formats not read
 * here (Granite, Kimi, gpt-oss, Phi-4): seen, they fail with the fix.
 */
const MARKERS: Array<[RegExp, string]> = [
  [/<tool_call>/, "hermes"],
  [/<function=[\w.-]+>/, "hermes"],
  [/\[TOOL_CALLS\]/, "mistral"],
  [/<\|python_tag\|>/, "llama3"],
  [DEEPSEEK_BEGIN, "deepseek"],
  [new RegExp(`<${BAR}tool▁call▁begin${BAR}>`), "deepseek"],
  [/<\|tool_call\|>/, "Granite <|tool_call|>"],
  [/<\|tool_calls_section_begin\|>/, "Kimi <|tool_calls_section_begin|>"],
  [/<\|channel\|>commentary to=/, "gpt-oss (harmony) commentary"],
  [/\bfunctools\[/, "Phi-4 functools[…]"],
];

/**
 * Reads the calls in `text`, for a request that offered `tools`. Only a
 * text with no structured calls should be read. Markup inside Markdown code
 * (fenced or inline) is an example, never a call.
 */
export function readTextToolCalls(
  text: string,
  setting: TextToolCallSetting,
  tools: readonly ToolSchema[],
): TextToolCallReading {
  if (setting === "off" || tools.length === 0) return { kind: "none" };
  const code = codeRanges(text);
  const outside = (index: number) => !code.some(([from, to]) => index >= from && index < to);
  const formats = setting === "auto" ? TEXT_TOOL_CALL_FORMATS : [setting];
  for (const format of formats) {
    const read = READERS[format](text, tools, outside);
    if (read && read.calls.length) return { kind: "calls", format, ...read };
  }
  for (const [marker, looksLike] of MARKERS) {
    const found = firstOutside(text, marker, outside);
    if (found < 0) continue;
    const named = looksLike in FORMAT_NAMES
      ? FORMAT_NAMES[looksLike as TextToolCallFormat]
      : looksLike;
    const reason = setting !== "auto" && looksLike !== setting
      ? `it is not the configured format (${FORMAT_NAMES[setting]})`
      : "its markup is incomplete or its arguments are not JSON";
    return { kind: "unreadable", looksLike: named, reason };
  }
  return { kind: "none" };
}

type Reader = (
  text: string,
  tools: readonly ToolSchema[],
  outside: (index: number) => boolean,
) => { calls: TextCall[]; text: string } | undefined;

const READERS: Record<TextToolCallFormat, Reader> = {
  hermes(text, tools, outside) {
    const calls: TextCall[] = [];
    const spans: Array<[number, number]> = [];
    const pattern = /<tool_call>([\s\S]*?)(?:<\/tool_call>|$)/g;
    for (const match of text.matchAll(pattern)) {
      if (!outside(match.index)) continue;
      const body = match[1].trim();
      const call = body.startsWith("<function=") ? xmlFunction(body, tools) : jsonCall(body);
      if (!call) return undefined; // one unreadable call: the whole answer is unreadable
      calls.push(call);
      spans.push([match.index, match.index + match[0].length]);
    }
    // Qwen3-Coder at times drops the <tool_call> wrapper around its XML body.
    if (!calls.length) {
      for (const match of text.matchAll(/<function=[\w.-]+>[\s\S]*?(?:<\/function>|$)/g)) {
        if (!outside(match.index)) continue;
        const call = xmlFunction(match[0], tools);
        if (!call) return undefined;
        calls.push(call);
        spans.push([match.index, match.index + match[0].length]);
      }
    }
    return { calls, text: without(text, spans) };
  },

  mistral(text, _tools, outside) {
    const start = firstOutside(text, /\[TOOL_CALLS\]/, outside);
    if (start < 0) return undefined;
    const calls: TextCall[] = [];
    for (const segment of text.slice(start).split("[TOOL_CALLS]").slice(1)) {
      const body = segment.trim();
      if (body.startsWith("[") || body.startsWith("{")) {
        const end = jsonEnd(body, 0);
        if (end < 0) return undefined;
        const value = parseJson(body.slice(0, end));
        const list = Array.isArray(value) ? value : [value];
        for (const item of list) {
          const call = callFromObject(item);
          if (!call) return undefined;
          calls.push(call);
        }
        continue;
      }
      const named = /^([\w.-]+)(?:\[CALL_ID\][\w-]+)?\[ARGS\]/.exec(body);
      if (!named) return undefined;
      const argsStart = named[0].length;
      const end = jsonEnd(body, argsStart);
      if (end < 0) return undefined;
      const args = parseJson(body.slice(argsStart, end));
      if (!isObject(args)) return undefined;
      calls.push({ name: named[1], arguments: JSON.stringify(args) });
    }
    return { calls, text: text.slice(0, start).trim() };
  },

  llama3(text, tools) {
    let body = text.trim();
    if (body.startsWith("<|python_tag|>")) body = body.slice("<|python_tag|>".length).trim();
    if (!body.startsWith("{")) return undefined;
    const known = new Set(tools.map((tool) => tool.name));
    const calls: TextCall[] = [];
    let at = 0;
    while (at < body.length) {
      const end = jsonEnd(body, at);
      if (end < 0) return undefined;
      const call = callFromObject(parseJson(body.slice(at, end)));
      // A bare JSON answer is a call only when it names a tool of the request.
      if (!call || !known.has(call.name)) return undefined;
      calls.push(call);
      at = end;
      while (at < body.length && /[\s;]/.test(body[at])) at++;
    }
    return { calls, text: "" };
  },

  deepseek(text, _tools, outside) {
    const begin = firstOutside(text, DEEPSEEK_BEGIN, outside);
    if (begin < 0) return undefined;
    const rest = text.slice(begin);
    const calls: TextCall[] = [];
    for (const match of rest.matchAll(DEEPSEEK_CALL)) {
      // V3/R1: "function" ⟨sep⟩ name, then the arguments in a ```json fence; V3.1: name ⟨sep⟩ arguments.
      const head = match[1].trim();
      let name = head;
      let args = match[2].trim();
      if (head === "function") {
        const fenced = /^([\w.-]+)\s*```(?:json)?\s*([\s\S]*?)\s*```/.exec(args);
        if (!fenced) return undefined;
        name = fenced[1];
        args = fenced[2];
      }
      const value = parseJson(args);
      if (!name || !isObject(value)) return undefined;
      calls.push({ name, arguments: JSON.stringify(value) });
    }
    if (!calls.length) return undefined;
    const end = DEEPSEEK_END.exec(rest);
    const after = end ? rest.slice(end.index + end[0].length).trim() : "";
    return { calls, text: [text.slice(0, begin).trim(), after].filter(Boolean).join("\n") };
  },
};

/** `{"name": …, "arguments"|"parameters": {…} or "…"}` as a call. */
function jsonCall(body: string): TextCall | undefined {
  return callFromObject(parseJson(body));
}

function callFromObject(value: unknown): TextCall | undefined {
  if (!isObject(value) || typeof value.name !== "string" || !value.name) return undefined;
  const args = value.arguments ?? value.parameters ?? {};
  if (typeof args === "string") {
    return isObject(parseJson(args)) ? { name: value.name, arguments: args } : undefined;
  }
  return isObject(args) ? { name: value.name, arguments: JSON.stringify(args) } : undefined;
}

/**
 * Qwen3-Coder's `<function=name><parameter=key>value</parameter></function>`.
 * Values are text; one the tool's schema does not declare a string is read
 * as JSON when it is JSON (numbers, booleans, lists).
 */
function xmlFunction(body: string, tools: readonly ToolSchema[]): TextCall | undefined {
  const head = /^<function=([\w.-]+)>/.exec(body);
  if (!head) return undefined;
  const properties = (tools.find((tool) => tool.name === head[1])?.parameters.properties ??
    {}) as Record<string, { type?: unknown }>;
  const args: Record<string, unknown> = {};
  // Ended by its closing tag, or (as some servers cut them) by the next tag or the end.
  const pattern = /<parameter=([\w.-]+)>([\s\S]*?)(?=<\/parameter>|<parameter=|<\/function>|$)/g;
  for (const match of body.matchAll(pattern)) {
    const key = match[1];
    const raw = match[2].replace(/^\n/, "").replace(/\n+$/, "");
    const parsed = properties[key]?.type === "string" ? undefined : parseJson(raw.trim());
    args[key] = parsed === undefined ? raw : parsed;
  }
  return { name: head[1], arguments: JSON.stringify(args) };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The index just past the JSON object or array starting at `start` (after spaces), or -1. */
function jsonEnd(text: string, start: number): number {
  let at = start;
  while (at < text.length && /\s/.test(text[at])) at++;
  if (text[at] !== "{" && text[at] !== "[") return -1;
  let depth = 0;
  let inString = false;
  for (; at < text.length; at++) {
    const char = text[at];
    if (inString) {
      if (char === "\\") at++;
      else if (char === '"') inString = false;
    } else if (char === '"') inString = true;
    else if (char === "{" || char === "[") depth++;
    else if (char === "}" || char === "]") {
      depth--;
      if (depth === 0) return at + 1;
    }
  }
  return -1;
}

/**
 * Where markup is not a call, as [from, to) ranges: Markdown code (fenced
 * blocks, inline spans), and a `<think>` block a server left in the text (a
 * model drafts calls there before it makes them).
 */
function codeRanges(text: string): Array<[number, number]> {
  const ranges: Array<[number, number]> = [];
  const pattern = /<think>[\s\S]*?(?:<\/think>|$)|```[\s\S]*?(?:```|$)|`[^`\n]+`/g;
  for (const match of text.matchAll(pattern)) {
    ranges.push([match.index, match.index + match[0].length]);
  }
  return ranges;
}

function firstOutside(text: string, marker: RegExp, outside: (index: number) => boolean): number {
  const global = new RegExp(marker.source, "g");
  for (const match of text.matchAll(global)) if (outside(match.index)) return match.index;
  return -1;
}

function without(text: string, spans: Array<[number, number]>): string {
  let kept = "";
  let at = 0;
  for (const [from, to] of spans) {
    kept += text.slice(at, from);
    at = to;
  }
  return (kept + text.slice(at)).replace(/\n{3,}/g, "\n\n").trim();
}

/**
 * The user-facing words for markup that could not be read: what the model
 * wrote, and the server settings under which the server reads it itself.
 */
export function unreadableMessage(
  reading: Extract<TextToolCallReading, { kind: "unreadable" }>,
  model: string,
  setting: TextToolCallSetting,
): string {
  const parser = familyOf(model)?.vllmParser ?? "hermes";
  const otherFormat = setting !== "auto" && setting !== "off"
    ? ` Or let skiff read every format it knows: "provider": {"models": {"${model}": ` +
      `{"textToolCalls": "auto"}}}.`
    : "";
  return `the model wrote a tool call as text (${reading.looksLike}) that skiff could not read: ` +
    `${reading.reason}. The server is not parsing the model's tool calls: start llama.cpp's ` +
    `server with --jinja, or vLLM with --enable-auto-tool-choice --tool-call-parser ${parser} ` +
    `(docs/models.md, "Tool calls written as text").${otherFormat}`;
}

/**
 * `provider`, reading calls the model wrote as text when the server
 * returned none (`settingFor` says how, per model). Held-back text is
 * delivered through `onText` once the answer ends; unreadable markup is a
 * ProviderError naming the fix.
 */
export function withTextToolCalls(
  provider: ChatProvider,
  settingFor: (model: string) => TextToolCallSetting,
  newCallId: () => string = () => `call_${crypto.randomUUID().replaceAll("-", "").slice(0, 24)}`,
): ChatProvider {
  return {
    baseURL: provider.baseURL,
    async stream(request, handlers, signal) {
      const setting = settingFor(request.model);
      if (setting === "off" || request.tools.length === 0) {
        return provider.stream(request, handlers, signal);
      }
      const hold = new MarkupHold((text) => handlers.onText?.(text));
      let response;
      try {
        response = await provider.stream(
          request,
          { ...handlers, onText: (delta) => hold.offer(delta) },
          signal,
        );
      } catch (error) {
        // An answer cut short (stopped, failed) shows all it said, as without this reading.
        try {
          hold.release();
        } catch {
          // The failure that ended the answer is the one to report.
        }
        throw error;
      }
      if (response.toolCalls.length) {
        hold.release();
        return response;
      }
      const reading = readTextToolCalls(response.text, setting, request.tools);
      if (reading.kind === "none") {
        hold.release();
        return response;
      }
      if (reading.kind === "unreadable") {
        hold.release();
        throw new ProviderError(
          unreadableMessage(reading, request.model, setting),
          undefined,
          provider.baseURL,
        );
      }
      hold.finish(reading.text);
      const toolCalls: ToolCall[] = reading.calls.map((call) => ({ id: newCallId(), ...call }));
      return { ...response, text: reading.text, toolCalls, finishReason: "tool_calls" };
    },
  };
}
