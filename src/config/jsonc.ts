/**
 * The one reader and editor of skiff's config files, JSON with comments, on
 * jsonc-parser. Reading accepts `//` and `/* *\/` comments and trailing
 * commas, leaves strings alone (a URL's `//` is text) and stops at the
 * first mistake with its line and column, so the user can go straight to
 * it. Editing changes only the places whose value changed, so the user's
 * comments, key order and layout survive a write.
 */
import {
  applyEdits,
  createScanner,
  type Edit,
  findNodeAtLocation,
  type FormattingOptions,
  modify,
  parseTree,
  visit,
} from "jsonc-parser";
import { type HostWriteOptions, writeHostFile } from "../sandbox/writer/host_write.ts";
import { type Container, describeError, type Expecting, lineOf } from "./_jsonc_mistakes.ts";

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

/** Real file access, writes through src/sandbox/writer/host_write.ts. Needs read and write access to the file's folder. */
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
  const formattingOptions = formattingOf(text);
  if (text.trim() === "") {
    return JSON.stringify(next, null, formattingOptions.tabSize) + formattingOptions.eol;
  }
  let result = text;
  const apply = (edits: Edit[]) => result = applyEdits(result, edits);
  const editor: PlaceEditor = {
    set: (path, value) =>
      apply(
        replaceOnOneLine(result, path, value) ?? modify(result, path, value, { formattingOptions }),
      ),
    append: (path, key, value) =>
      apply(
        appendOnOwnLine(result, path, key, value, formattingOptions) ??
          modify(result, [...path, key ?? -1], value, {
            formattingOptions,
            isArrayInsertion: true,
          }),
      ),
  };
  changePlaces(parseJsonc(text), next, [], editor);
  if (JSON.stringify(parseJsonc(result)) !== JSON.stringify(next)) {
    // Never write a config that says something else than what was meant.
    throw new Error("the config edit did not give the intended settings; the file is unchanged");
  }
  return result;
}

type JsonPath = (string | number)[];

interface PlaceEditor {
  /** Replace the value at `path`; undefined removes it. */
  set(path: JsonPath, value: unknown): void;
  /** Add `value` at the end of the list at `path`, or under `key` at the end of the object there. */
  append(path: JsonPath, key: string | undefined, value: unknown): void;
}

/** Edit, through `editor`, each place of `before` that `next` changes. */
function changePlaces(before: unknown, next: unknown, path: JsonPath, editor: PlaceEditor): void {
  if (sameJson(before, next)) return;
  if (isPlainObject(before) && isPlainObject(next)) {
    const beforeKeys = Object.keys(before);
    for (const key of beforeKeys) {
      if (!Object.hasOwn(next, key)) editor.set([...path, key], undefined);
    }
    // Keys still in their old order are edited in place; from the first one out of order on, each is added at the end.
    let lastIndex = -1;
    let inPlace = true;
    for (const key of Object.keys(next)) {
      const index = beforeKeys.indexOf(key);
      inPlace &&= index > lastIndex;
      if (inPlace) {
        lastIndex = index;
        changePlaces(before[key], next[key], [...path, key], editor);
      } else {
        if (index !== -1) editor.set([...path, key], undefined);
        editor.append(path, key, next[key]);
      }
    }
  } else if (
    Array.isArray(before) && Array.isArray(next) && next.length > before.length &&
    before.every((item, index) => sameJson(item, next[index]))
  ) {
    for (const item of next.slice(before.length)) editor.append(path, undefined, item);
  } else {
    editor.set(path, next);
  }
}

/**
 * The edit replacing a value that stands on one line with the new value on
 * one line too (`{ "*": "ask", "npm *": "allow" }`), as the file had it;
 * undefined for a removal or a value spread over lines.
 */
function replaceOnOneLine(text: string, path: JsonPath, value: unknown): Edit[] | undefined {
  const root = parseTree(text);
  const node = root && value !== undefined ? findNodeAtLocation(root, path) : undefined;
  if (!node || /[\r\n]/.test(text.slice(node.offset, node.offset + node.length))) return undefined;
  // JSON escapes a line break inside a string, so each one here is layout.
  const content = JSON.stringify(value, null, 1).replace(/\n */g, " ");
  return [{ offset: node.offset, length: node.length, content }];
}

/** jsonc-parser's token kinds met after an item (its `SyntaxKind` is a type-only const enum). */
const TOKEN = { comma: 5, lineComment: 12, blockComment: 13, lineBreak: 14, blank: 15 } as const;

/**
 * The edits adding an item after the last one of the object or list at
 * `path`, on a line of its own below that item's comments, when items stand
 * one per line. jsonc-parser adds right after the last value, which would
 * leave a comment on the last item's line describing the new one. Undefined
 * when the container is empty or holds its items on one line.
 */
function appendOnOwnLine(
  text: string,
  path: JsonPath,
  key: string | undefined,
  value: unknown,
  formatting: FormattingOptions,
): Edit[] | undefined {
  const root = parseTree(text);
  const last = root && findNodeAtLocation(root, path)?.children?.at(-1);
  if (!last) return undefined;
  const lineStart = text.lastIndexOf("\n", last.offset) + 1;
  const indent = text.slice(lineStart, last.offset);
  if (indent.trim() !== "") return undefined;
  const lastEnd = last.offset + last.length;
  const scanner = createScanner(text, false);
  scanner.setPosition(lastEnd);
  let comma = false;
  for (;;) {
    const token: number = scanner.scan();
    if (token === TOKEN.lineBreak) break;
    if (token === TOKEN.comma) comma = true;
    else if (token !== TOKEN.blank && token !== TOKEN.lineComment && token !== TOKEN.blockComment) {
      return undefined;
    }
  }
  const unit = formatting.insertSpaces ? " ".repeat(formatting.tabSize ?? 2) : "\t";
  const json = JSON.stringify(value, null, unit).replaceAll(
    "\n",
    (formatting.eol ?? "\n") + indent,
  );
  const item = key === undefined ? json : `${JSON.stringify(key)}: ${json}`;
  return [
    // A trailing comma stays the file's style: the new last item gets one too.
    ...(comma ? [] : [{ offset: lastEnd, length: 0, content: "," }]),
    {
      offset: scanner.getTokenOffset(),
      length: 0,
      content: (formatting.eol ?? "\n") + indent + item + (comma ? "," : ""),
    },
  ];
}

function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The indentation and line ending `text` uses, so added lines look like their neighbours. */
function formattingOf(text: string): FormattingOptions {
  const indent = /^([ \t]+)\S/m.exec(text)?.[1];
  const tabs = indent?.startsWith("\t") ?? false;
  return {
    insertSpaces: !tabs,
    tabSize: indent && !tabs ? indent.length : 2,
    eol: text.includes("\r\n") ? "\r\n" : "\n",
  };
}
