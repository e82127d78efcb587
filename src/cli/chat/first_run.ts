/**
 * The first-run setup: plain `skiff` at a terminal with no model or no key
 * asks for what is missing instead of stopping — the endpoint (the default,
 * or a local server's URL), the API key (from OPENAI_API_KEY, or typed
 * hidden), the model (picked from the endpoint's `GET /models`, or typed
 * when there is no list) — and writes the answers to the global config
 * through the one config editor, a new file private to the user. Esc or
 * Ctrl-C at any question leaves with nothing written.
 */
import { DEFAULT_BASE_URL, type Missing } from "../../host/setup.ts";
import { editConfigFile } from "../../config/jsonc.ts";
import { API_KEY_TEXT, apiKeyProblem } from "../../config/api_key_text.ts";
import { neutraliseControls } from "../../ui/safe_text.ts";
import { KeyDecoder } from "../../ui/chat/input/keys.ts";
import { wrapWords } from "../../ui/chat/width.ts";
import { closeModelNames, listModels } from "./commands/model.ts";

/** The person at the terminal, one question at a time. */
export interface SetupTerminal {
  write(text: string): void;
  /** The answer typed (Enter ends it), or undefined when the person cancelled (Esc, Ctrl-C). */
  ask(question: string, options?: { hidden?: boolean }): Promise<string | undefined>;
}

/** What the setup reads and writes through; a test passes its own. */
export interface SetupDeps {
  /** @default fetch */
  fetch?: typeof fetch;
  /** @default Deno.env.get */
  getEnv?: (name: string) => string | undefined;
  /** Writes the answers to the global config. @default editConfigFile with a 0600 new file */
  save?: (file: string, answers: SetupAnswers) => Promise<void>;
}

/** What the setup learnt; only what is set is written. */
export interface SetupAnswers {
  baseURL?: string;
  apiKey?: string;
  model?: string;
}

/** The most models listed by number; more are typed by name. */
const LISTED = 40;

/**
 * Asks for what `missing` names and writes it to `missing.globalFile`;
 * resolves true once written, false when the person cancelled (nothing written).
 */
export async function firstRunSetup(
  missing: Missing,
  terminal: SetupTerminal,
  deps: SetupDeps = {},
): Promise<boolean> {
  const getEnv = deps.getEnv ?? ((name: string) => Deno.env.get(name));
  terminal.write(
    "skiff is not set up yet: a few questions, then the chat opens.\n" +
      `The answers go to ${missing.globalFile}. Esc cancels; nothing is written before the end.\n\n`,
  );
  const answers: SetupAnswers = {};
  let baseURL = missing.baseURL;
  let apiKey = missing.knownKey;
  if (missing.apiKey) {
    const endpoint = await askEndpoint(terminal);
    if (endpoint === undefined) return false;
    baseURL = endpoint;
    if (endpoint !== DEFAULT_BASE_URL) answers.baseURL = endpoint;
    const key = await askKey(terminal, endpoint !== DEFAULT_BASE_URL);
    if (key === undefined) return false;
    if (key) answers.apiKey = apiKey = key;
  } else {
    terminal.write(neutraliseControls(`Endpoint: ${baseURL}\n`));
    if (getEnv("OPENAI_API_KEY")) {
      terminal.write("API key: OPENAI_API_KEY from the environment (not written to the config)\n");
    }
  }
  if (missing.model) {
    const model = await askModel(terminal, baseURL, apiKey, deps.fetch ?? fetch);
    if (model === undefined) return false;
    answers.model = model;
  }
  await (deps.save ?? saveAnswers)(missing.globalFile, answers);
  terminal.write(neutraliseControls(`\nSaved to ${missing.globalFile}. Opening the chat.\n\n`));
  return true;
}

async function askEndpoint(terminal: SetupTerminal): Promise<string | undefined> {
  for (;;) {
    const answer = await terminal.ask(
      `Endpoint: Enter for ${DEFAULT_BASE_URL}, or a local server's URL ` +
        "(such as http://127.0.0.1:11434/v1): ",
    );
    if (answer === undefined) return undefined;
    if (!answer.trim()) return DEFAULT_BASE_URL;
    const url = URL.parse(answer.trim());
    if (url && (url.protocol === "http:" || url.protocol === "https:")) {
      return url.toString().replace(/\/+$/, "");
    }
    terminal.write(
      neutraliseControls(`"${answer.trim()}" is not an http:// or https:// URL; try again.\n`),
    );
  }
}

/** The key typed, hidden; "" when none is needed and none was typed. */
async function askKey(terminal: SetupTerminal, optional: boolean): Promise<string | undefined> {
  for (;;) {
    const answer = await terminal.ask(
      optional ? "API key (hidden; Enter for none): " : "API key (hidden): ",
      { hidden: true },
    );
    if (answer === undefined) return undefined;
    const key = answer.trim();
    if (!key && optional) return "";
    if (!key) {
      terminal.write(
        `${DEFAULT_BASE_URL} needs a key; type it, or Esc and set OPENAI_API_KEY.\n`,
      );
      continue;
    }
    if (API_KEY_TEXT.test(key)) return key;
    terminal.write(`The key ${apiKeyProblem(key)}.\n`);
  }
}

async function askModel(
  terminal: SetupTerminal,
  baseURL: string,
  apiKey: string,
  fetchImpl: typeof fetch,
): Promise<string | undefined> {
  const listed = await listModels({ baseURL, apiKey }, fetchImpl);
  const models = listed.ok ? listed.models : [];
  if (listed.ok) {
    const shown = models.slice(0, LISTED);
    terminal.write(neutraliseControls(
      `\nModels at ${baseURL}:\n${
        shown.map((model, index) => `  ${String(index + 1).padStart(2)}. ${model}`).join("\n")
      }\n${
        models.length > shown.length
          ? `  (${models.length - shown.length} more: type a name)\n`
          : ""
      }`,
    ));
  } else {
    terminal.write(neutraliseControls(`\nNo model list: ${listed.why}.\n`));
  }
  for (;;) {
    const answer = await terminal.ask(
      listed.ok ? "Model (a number or a name): " : "Model name (as the endpoint knows it): ",
    );
    if (answer === undefined) return undefined;
    const typed = answer.trim();
    if (!typed) continue;
    if (!listed.ok) return typed;
    const number = /^\d+$/.test(typed) ? Number(typed) : 0;
    if (number >= 1 && number <= models.length) return models[number - 1];
    if (models.includes(typed)) return typed;
    const close = closeModelNames(typed, models);
    terminal.write(neutraliseControls(
      `"${typed}" is not in the list${
        close.length ? `; did you mean ${close.join(", ")}?` : "."
      }\n`,
    ));
  }
}

/** The answers into the global config's `provider`, the file's other keys and comments kept. */
async function saveAnswers(file: string, answers: SetupAnswers): Promise<void> {
  await editConfigFile(file, (config) => {
    const provider = typeof config.provider === "object" && config.provider !== null &&
        !Array.isArray(config.provider)
      ? config.provider as Record<string, unknown>
      : {};
    if (answers.baseURL) provider.baseURL = answers.baseURL;
    if (answers.apiKey) provider.apiKey = answers.apiKey;
    if (answers.model) provider.model = answers.model;
    config.provider = provider;
  }, {
    purpose: "Cannot save the setup",
    fix: "Fix the file, or set the model and key by hand (docs/config.md).",
    // It may hold the API key: a new file is the user's alone.
    write: { newMode: 0o600 },
  });
}

/** The terminal's width, or 80 where it cannot be read. */
function columns(): number {
  try {
    return Deno.consoleSize().columns;
  } catch {
    return 80;
  }
}

/**
 * Questions on the real terminal: raw mode while one is asked, its answer
 * echoed unless hidden. Stdin is read only while a question waits, so
 * nothing is left reading when the chat takes the keys.
 */
export function terminalQuestions(
  input: { read(buffer: Uint8Array): Promise<number | null>; setRaw(raw: boolean): void } =
    Deno.stdin,
  write: (text: string) => void = (text) => Deno.stdout.writeSync(new TextEncoder().encode(text)),
): SetupTerminal {
  const decoder = new KeyDecoder();
  const buffer = new Uint8Array(1024);
  let reading: Promise<number | null> | undefined;
  /** The next keys; a lone Esc once nothing follows it for a moment. */
  const nextKeys = async () => {
    reading ??= input.read(buffer);
    const timer = decoder.waiting
      ? new Promise<"escape">((resolve) => setTimeout(() => resolve("escape"), 50))
      : undefined;
    const count = await (timer ? Promise.race([reading, timer]) : reading);
    if (count === "escape") return decoder.flush();
    reading = undefined;
    if (count === null) return null;
    return decoder.feed(buffer.subarray(0, count));
  };
  return {
    write: (text) => write(wrapWords(text, columns())),
    async ask(question, options = {}) {
      write(wrapWords(question, columns()));
      input.setRaw(true);
      let answer = "";
      try {
        for (;;) {
          const keys = await nextKeys();
          if (keys === null) return undefined;
          for (const key of keys) {
            if (key.kind === "escape" || key.kind === "ctrl-c" || key.kind === "ctrl-d") {
              write("\n");
              return undefined;
            }
            if (key.kind === "enter" || key.kind === "newline") {
              write("\n");
              return answer;
            }
            if (key.kind === "backspace" && answer) {
              answer = [...answer].slice(0, -1).join("");
              if (!options.hidden) write("\b \b");
            } else if (key.kind === "text" || key.kind === "paste") {
              const text = key.text.replace(/[\r\n]+/g, "");
              answer += text;
              if (!options.hidden) write(neutraliseControls(text));
            }
          }
        }
      } finally {
        input.setRaw(false);
      }
    },
  };
}
