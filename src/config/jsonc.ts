/**
 * The one reader and editor of skiff's config files, JSON with comments, on
 * jsonc-parser. Reading accepts `//` and `/* *\/` comments and trailing
 * commas, leaves strings alone (a URL's `//` is text) and stops at the
 * first mistake with its line and column, so the user can go straight to
 * it. Editing changes only the places whose value changed
 * (src/config/_jsonc_edit.ts), so the user's comments, key order and layout
 * survive a write; config files are edited here and nowhere else.
 */
import { visit } from "jsonc-parser";
import { type HostWriteOptions, writeHostFile } from "../sandbox/writer/host_write.ts";
import { type Container, describeError, type Expecting, lineOf } from "./_jsonc_mistakes.ts";
import { editedText } from "./_jsonc_edit.ts";

/** A syntax error at a 1-based line and column. */
export class JsoncSyntaxError extends Error {
  constructor(
    readonly reason: string,
    readonly line: number,
    readonly column: number,
    readonly offset: number,
  ) {
    super(`line ${line}, column ${column}: ${reason}`);
    this.name = "JsoncSyntaxError";
  }
}

/** Parse JSONC text into a value. Throws `JsoncSyntaxError`. */
export function parseJsonc(text: string): unknown {
  // A BOM is not content; a space in its place keeps every offset.
  const source = text.charCodeAt(0) === 0xfeff ? " " + text.slice(1) : text;
  const stack: Container[] = [];
  let expecting: Expecting = "value";
  /** The container just closed and what it expected, for a closing bracket that never came. */
  let closed: { container: Container; expecting: Expecting } | undefined;
  let root: unknown;

  const fail = (reason: string, offset: number): never => {
    throw syntaxError(text, reason, offset);
  };
  const afterValue = () => {
    const top = stack.at(-1);
    expecting = !top ? "end" : Array.isArray(top.value) ? "comma in list" : "comma in object";
  };
  const place = (value: unknown, offset: number, length: number) => {
    if (typeof value === "number" && !Number.isFinite(value)) {
      fail(`the number ${text.slice(offset, offset + length)} is too large`, offset);
    }
    const top = stack.at(-1);
    if (!top) root = value;
    else if (Array.isArray(top.value)) top.value.push(value);
    else {
      // defineProperty, so a key named __proto__ stays a plain key.
      Object.defineProperty(top.value, top.key!, {
        value,
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
  };
  const open = (value: Container["value"], offset: number) => {
    place(value, offset, 1);
    stack.push(Array.isArray(value) ? { value } : { value, keyAt: new Map() });
    expecting = Array.isArray(value) ? "value" : "property";
  };
  const close = () => {
    closed = { container: stack.pop()!, expecting };
    afterValue();
  };

  visit(source, {
    onObjectBegin: (offset) => open({}, offset),
    onArrayBegin: (offset) => open([], offset),
    onObjectEnd: close,
    onArrayEnd: close,
    onObjectProperty: (key, offset) => {
      const top = stack.at(-1)!;
      const earlier = top.keyAt!.get(key);
      if (earlier !== undefined) {
        fail(
          `"${key}" appears twice in this object (first on line ${lineOf(text, earlier)}); ` +
            "keep one, since the second would silently replace the first",
          offset,
        );
      }
      top.keyAt!.set(key, offset);
      top.key = key;
      expecting = "colon";
    },
    onLiteralValue: (value, offset, length) => {
      place(value, offset, length);
      afterValue();
    },
    onSeparator: (separator) => {
      const top = stack.at(-1)!;
      expecting = separator === ":" ? "value" : Array.isArray(top.value) ? "value" : "property";
    },
    onError: (code, offset, length) => {
      const mistake = describeError(text, code, offset, length, expecting, stack.at(-1), closed);
      fail(mistake.reason, mistake.offset);
    },
  }, { allowTrailingComma: true, disallowComments: false, allowEmptyContent: false });
  return root;
}

function syntaxError(text: string, reason: string, offset: number): JsoncSyntaxError {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < offset && i < text.length; i++) {
    if (text[i] === "\n") {
      line++;
      lineStart = i + 1;
    }
  }
  return new JsoncSyntaxError(reason, line, offset - lineStart + 1, offset);
}

/** Reads and writes a config file; tests may replace it. */
export interface ConfigFileIo {
  /** The file's text, or null when it does not exist. */
  readText(file: string): Promise<string | null>;
  /** Replaces the file's text through the host writer. */
  write(file: string, text: string, options: HostWriteOptions): Promise<void>;
}

/**
 * Real file access, writing through src/sandbox/writer/host_write.ts. Needs
 * read and write access to the file's folder.
 */
export const hostConfigIo: ConfigFileIo = {
  async readText(file) {
    try {
      return await Deno.readTextFile(file);
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) return null;
      throw error;
    }
  },
  async write(file, text, options) {
    await writeHostFile(file, text, options);
  },
};

export interface ConfigEditOptions {
  /** Opens an error, saying what could not be done: "Cannot save the rule". */
  purpose: string;
  /** Ends an error about a broken file, saying what to do: "Fix the file, then answer again." */
  fix: string;
  /** How the host writer may write the file (the folder it may not leave, a new file's mode). */
  write: HostWriteOptions;
  /** @default hostConfigIo */
  io?: ConfigFileIo;
}

/**
 * Change a config file: `change` gets the file's object (an empty one when
 * the file is absent or blank) and alters it in place; the file is then
 * rewritten with only the changed places edited, so its comments, key order
 * and layout stay. Throws, leaving the file alone, when it does not parse or
 * its top is not an object.
 */
export async function editConfigFile(
  file: string,
  change: (config: Record<string, unknown>) => void,
  options: ConfigEditOptions,
): Promise<void> {
  const io = options.io ?? hostConfigIo;
  const text = (await io.readText(file)) ?? "";
  let config: unknown = {};
  if (text.trim()) {
    try {
      config = parseJsonc(text);
    } catch (error) {
      if (!(error instanceof JsoncSyntaxError)) throw error;
      throw new Error(
        `${options.purpose}: ${file} is not valid JSON (${error.message}). ${options.fix}`,
      );
    }
  }
  if (!isPlainObject(config)) {
    throw new Error(`${options.purpose}: ${file} does not hold a JSON object. ${options.fix}`);
  }
  change(config);
  await io.write(file, updateJsonc(text, config), options.write);
}

/**
 * `text` changed so that it holds `next`, editing only the places whose
 * value differs: comments, key order and layout elsewhere stay. A key that
 * `next` moves to a later place is removed and added at the end, since the
 * order of rules is their meaning. Throws `JsoncSyntaxError` when `text`
 * does not parse.
 */
export function updateJsonc(text: string, next: unknown): string {
  const before = text.trim() === "" ? undefined : parseJsonc(text);
  const result = editedText(text, before, next);
  if (JSON.stringify(parseJsonc(result)) !== JSON.stringify(next)) {
    // Never write a config that says something else than what was meant.
    throw new Error("the config edit did not give the intended settings; the file is unchanged");
  }
  return result;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
