/**
 * The text edits behind `updateJsonc` (src/config/jsonc.ts): from a config
 * file's text, the value it holds and the value wanted, the text with only
 * the changed places edited, by jsonc-parser's `modify` and `applyEdits`.
 */
import {
  applyEdits,
  createScanner,
  type Edit,
  findNodeAtLocation,
  type FormattingOptions,
  modify,
  parseTree,
} from "jsonc-parser";

/**
 * `text`, which holds `before` (undefined for a blank file), edited to hold
 * `next`: only the places that differ change.
 */
export function editedText(text: string, before: unknown, next: unknown): string {
  const formattingOptions = formattingOf(text);
  if (before === undefined) {
    return JSON.stringify(next, null, formattingOptions.tabSize) + formattingOptions.eol;
  }
  let result = text;
  const apply = (edits: Edit[]) => result = applyEdits(result, edits);
  const editor: PlaceEditor = {
    remove: (path) => apply(removalOf(result, path)),
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
  changePlaces(before, next, [], editor);
  return result;
}

type JsonPath = (string | number)[];

interface PlaceEditor {
  /** Remove the key at `path` (the last part) from its object. */
  remove(path: JsonPath): void;
  /** Replace the value at `path`. */
  set(path: JsonPath, value: unknown): void;
  /** Add `value` at the end of the list at `path`, or under `key` at the end of its object. */
  append(path: JsonPath, key: string | undefined, value: unknown): void;
}

/** Edit, through `editor`, each place of `before` that `next` changes. */
function changePlaces(before: unknown, next: unknown, path: JsonPath, editor: PlaceEditor): void {
  if (sameJson(before, next)) return;
  if (isPlainObject(before) && isPlainObject(next)) {
    const beforeKeys = Object.keys(before);
    for (const key of beforeKeys) {
      if (!Object.hasOwn(next, key)) editor.remove([...path, key]);
    }
    // Keys still in their old order are edited in place; from the first one
    // out of order on, each is added at the end.
    let lastIndex = -1;
    let inPlace = true;
    for (const key of Object.keys(next)) {
      const index = beforeKeys.indexOf(key);
      inPlace &&= index > lastIndex;
      if (inPlace) {
        lastIndex = index;
        changePlaces(before[key], next[key], [...path, key], editor);
      } else {
        if (index !== -1) editor.remove([...path, key]);
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
 * undefined for a value spread over lines.
 */
function replaceOnOneLine(text: string, path: JsonPath, value: unknown): Edit[] | undefined {
  const root = parseTree(text);
  const node = root && findNodeAtLocation(root, path);
  if (!node || /[\r\n]/.test(text.slice(node.offset, node.offset + node.length))) return undefined;
  // JSON escapes a line break inside a string, so each one here is layout.
  const content = JSON.stringify(value, null, 1).replace(/\n */g, " ");
  return [{ offset: node.offset, length: node.length, content }];
}

/** jsonc-parser's token kinds met after an item (its `SyntaxKind` is a type-only const enum). */
const TOKEN = {
  comma: 5,
  lineComment: 12,
  blockComment: 13,
  lineBreak: 14,
  blank: 15,
  end: 17,
} as const;

/**
 * The edits removing the property at `path` with its comma. A property on a
 * line of its own goes with that line (and the comment ending it); the
 * comments on other lines stay. jsonc-parser's removal would also take the
 * comments between the property and its neighbour, and leaves a lone comma
 * when the property was the only one.
 */
function removalOf(text: string, path: JsonPath): Edit[] {
  const property = findNodeAtLocation(parseTree(text)!, path)?.parent;
  const siblings = property?.parent?.children;
  if (!property || !siblings) return [];
  const end = property.offset + property.length;
  const lineStart = text.lastIndexOf("\n", property.offset) + 1;
  const ownLine = text.slice(lineStart, property.offset).trim() === "";
  const scanner = createScanner(text, false);
  scanner.setPosition(end);
  let commaEnd: number | undefined;
  let lineEnd: number | undefined;
  for (;;) {
    const token: number = scanner.scan();
    if (token === TOKEN.comma && commaEnd === undefined) commaEnd = scanner.getPosition();
    else if (token === TOKEN.lineBreak) {
      lineEnd = scanner.getPosition();
      break;
    } else if (
      token !== TOKEN.blank && token !== TOKEN.lineComment && token !== TOKEN.blockComment
    ) {
      break;
    }
  }
  const edits: Edit[] = ownLine && lineEnd !== undefined
    ? [{ offset: lineStart, length: lineEnd - lineStart, content: "" }]
    : [{ offset: property.offset, length: (commaEnd ?? end) - property.offset, content: "" }];
  const index = siblings.indexOf(property);
  if (commaEnd === undefined && index > 0) {
    // The last property had no comma: the one before it loses its own.
    const previous = siblings[index - 1];
    const before = createScanner(text, false);
    before.setPosition(previous.offset + previous.length);
    let token: number;
    do token = before.scan(); while (token !== TOKEN.comma && token !== TOKEN.end);
    if (token === TOKEN.comma) {
      edits.push({ offset: before.getTokenOffset(), length: 1, content: "" });
    }
  }
  return edits;
}

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
