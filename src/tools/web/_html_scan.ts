/**
 * One pass over HTML, linear in its length whatever the page holds:
 * unclosed `<`, comments or `<script>`s cost no more than closed ones,
 * because every search for a closing text (`>`, `-->`, `</script`)
 * remembers where it found it, or that it is not there, and is never run
 * again over the same stretch. The page text converters are built on it
 * (`_html.ts`), as is the judgement of what a page hides from a reader.
 */

/** Elements whose content is never page text; skipped whole. */
const RAW_ELEMENTS = new Set(["script", "style", "noscript", "template", "title"]);

/** Elements that have no content, so never open a level. */
export const VOID_ELEMENTS: ReadonlySet<string> = new Set([
  "area",
  "base",
  "br",
  "col",
  "embed",
  "hr",
  "img",
  "input",
  "link",
  "meta",
  "param",
  "source",
  "track",
  "wbr",
]);

export interface HtmlVisitor {
  text(text: string): void;
  /** `attributes`: the tag's text after its name, up to `>`. */
  open(name: string, attributes: string, selfClosing: boolean): void;
  close(name: string): void;
}

/** `indexOf` that never searches the same stretch twice for the same text. */
class Finder {
  readonly #found = new Map<string, number>();
  constructor(readonly source: string) {}

  next(needle: string, from: number): number {
    const known = this.#found.get(needle);
    if (known === -1 || (known !== undefined && known >= from)) return known;
    const at = this.source.indexOf(needle, from);
    this.#found.set(needle, at);
    return at;
  }
}

function isNameStart(code: number): boolean {
  return (code >= 97 && code <= 122) || (code >= 65 && code <= 90);
}

function isNameChar(code: number): boolean {
  return isNameStart(code) || (code >= 48 && code <= 57) || code === 45 || code === 58;
}

/** Walk `html`, telling `visitor` of text and tags; raw elements' content is skipped. */
export function scanHtml(html: string, visitor: HtmlVisitor): void {
  const lower = html.toLowerCase();
  const find = new Finder(html);
  const findLower = new Finder(lower);
  const length = html.length;
  let at = 0;
  while (at < length) {
    const lt = find.next("<", at);
    if (lt < 0) {
      visitor.text(html.slice(at));
      return;
    }
    if (lt > at) visitor.text(html.slice(at, lt));
    if (html.startsWith("<!--", lt)) {
      const end = find.next("-->", lt + 4);
      if (end < 0) return;
      at = end + 3;
      continue;
    }
    const next = html.charCodeAt(lt + 1);
    if (next === 33 || next === 63) { // <!doctype …>, <?…>
      const gt = find.next(">", lt + 1);
      if (gt < 0) return;
      at = gt + 1;
      continue;
    }
    const closing = next === 47;
    const nameStart = closing ? lt + 2 : lt + 1;
    let nameEnd = nameStart;
    if (nameEnd < length && isNameStart(html.charCodeAt(nameEnd))) {
      while (nameEnd < length && isNameChar(html.charCodeAt(nameEnd))) nameEnd++;
    }
    if (nameEnd === nameStart) {
      visitor.text("<");
      at = lt + 1;
      continue;
    }
    const gt = find.next(">", nameEnd);
    if (gt < 0) {
      // No tag closes any more: the rest is text, as a browser shows it.
      visitor.text(html.slice(lt));
      return;
    }
    const name = lower.slice(nameStart, nameEnd);
    at = gt + 1;
    if (closing) {
      visitor.close(name);
      continue;
    }
    const attributes = html.slice(nameEnd, gt);
    const selfClosing = attributes.endsWith("/");
    if (RAW_ELEMENTS.has(name) && !selfClosing) {
      const end = findLower.next(`</${name}`, at);
      if (end < 0) return;
      const endGt = find.next(">", end);
      if (endGt < 0) return;
      at = endGt + 1;
      continue;
    }
    visitor.open(name, attributes, selfClosing);
  }
}

/** `name="value"` pairs of a tag's attribute text, names lower-cased. */
export function tagAttributes(text: string): Map<string, string> {
  const attributes = new Map<string, string>();
  const pattern = /([^\s"'=<>\/]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'=<>`]+)))?/g;
  for (const match of text.matchAll(pattern)) {
    const name = match[1].toLowerCase();
    if (!attributes.has(name)) attributes.set(name, match[2] ?? match[3] ?? match[4] ?? "");
  }
  return attributes;
}

/**
 * Why an element with these attributes is not shown to a reader, or null:
 * `hidden`, `aria-hidden="true"`, or an inline style that hides it or makes
 * its text zero-size. Stylesheets and classes are not evaluated.
 */
export function hiddenReason(attribute: (name: string) => string | null): string | null {
  if (attribute("hidden") !== null) return "hidden";
  if ((attribute("aria-hidden") ?? "").trim().toLowerCase() === "true") return "aria-hidden";
  const style = (attribute("style") ?? "").toLowerCase().replace(/\s+/g, "");
  if (!style) return null;
  const has = (pattern: RegExp) => pattern.test(style);
  if (has(/(?:^|;)display:none/)) return "display:none";
  if (has(/(?:^|;)visibility:(?:hidden|collapse)/)) return "visibility:hidden";
  if (has(/(?:^|;)opacity:0*(?:\.0*)?(?:;|!|$)/)) return "opacity:0";
  if (has(/(?:^|;)font-size:0*(?:\.0*)?(?:[a-z%]*)(?:;|!|$)/)) return "font-size:0";
  const zero = (property: string) =>
    new RegExp(`(?:^|;)${property}:0*(?:\\.0*)?(?:[a-z%]*)(?:;|!|$)`).test(style);
  if (
    (zero("width") || zero("height") || zero("max-height") || zero("max-width")) &&
    has(/(?:^|;)overflow:hidden/)
  ) {
    return "zero-size";
  }
  if (has(/(?:^|;)clip:rect\(0/) || has(/(?:^|;)clip-path:inset\((?:50|100)%/)) return "clipped";
  if (has(/(?:^|;)(?:left|top|text-indent):-\d{4,}/)) return "off-screen";
  return null;
}

/**
 * Elements a parser closes by itself when a sibling opens (`<p>`, `<li>`,
 * a table's cells): they cannot nest without an element between that is
 * counted, so they are not counted as levels.
 */
const SELF_ENDING = new Set([
  "p",
  "li",
  "dt",
  "dd",
  "tr",
  "td",
  "th",
  "option",
  "optgroup",
  "thead",
  "tbody",
  "tfoot",
  "colgroup",
  "caption",
  "rp",
  "rt",
  "html",
  "head",
  "body",
]);

/**
 * Formatting elements: a parser re-opens those left unclosed inside each
 * later block (HTML's "reconstruct the active formatting elements"), so
 * each one left open adds a level, whatever closed around it.
 */
const FORMATTING = new Set([
  "a",
  "b",
  "big",
  "code",
  "em",
  "font",
  "i",
  "nobr",
  "s",
  "small",
  "strike",
  "strong",
  "tt",
  "u",
]);

export interface HtmlShape {
  /** Tags opened. */
  elements: number;
  /** The deepest nesting of elements, by their open and close tags. */
  depth: number;
}

/**
 * How many elements `html` opens and how deep they nest, measured in one
 * pass and given up on (returning what was seen) once either passes its
 * limit, so a page too big or too deep to convert costs one linear scan.
 */
export function htmlShape(html: string, limits: HtmlShape): HtmlShape {
  const open: string[] = [];
  const counts = new Map<string, number>();
  /** Formatting elements opened and not closed by their own end tag. */
  const formatting = new Map<string, number>();
  let unclosedFormatting = 0;
  const shape = { elements: 0, depth: 0 };
  const over = () => shape.elements > limits.elements || shape.depth > limits.depth;
  try {
    scanHtml(html, {
      text() {},
      open(name, _attributes, selfClosing) {
        shape.elements++;
        if (selfClosing || VOID_ELEMENTS.has(name)) {
          // No content, no level.
        } else if (FORMATTING.has(name)) {
          formatting.set(name, (formatting.get(name) ?? 0) + 1);
          unclosedFormatting++;
        } else if (!SELF_ENDING.has(name)) {
          open.push(name);
          counts.set(name, (counts.get(name) ?? 0) + 1);
        }
        shape.depth = Math.max(shape.depth, open.length + unclosedFormatting);
        if (over()) throw shape;
      },
      close(name) {
        if (FORMATTING.has(name)) {
          if (!formatting.get(name)) return;
          formatting.set(name, formatting.get(name)! - 1);
          unclosedFormatting--;
          return;
        }
        // A close tag with no open element of its name is ignored, as a parser ignores it.
        if (!counts.get(name)) return;
        for (;;) {
          const popped = open.pop()!;
          counts.set(popped, counts.get(popped)! - 1);
          if (popped === name) break;
        }
      },
    });
  } catch (error) {
    if (error !== shape) throw error;
  }
  return shape;
}
