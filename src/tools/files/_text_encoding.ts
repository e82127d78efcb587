/**
 * How a text file's bytes become the text the tools work on, and back again
 * byte for byte: UTF-8 (with or without a BOM), UTF-16 (by its BOM, or by
 * the NUL in every other byte that mostly-ASCII UTF-16 has), and, for text
 * that is not UTF-8 but has no NUL and reads as text, Windows-1252 (Latin-1
 * with printable characters in 0x80–0x9F). The line-ending style is kept
 * too. Anything else is binary. A write encodes the way the file was read,
 * so editing a Latin-1 or UTF-16 file leaves every other byte as it was.
 */
import { ToolError } from "../tool.ts";

export type TextEncodingName = "utf-8" | "utf-16le" | "utf-16be" | "windows-1252";

/** How a text file is laid out on disk, beyond its characters. */
export interface TextDocument {
  /** Content with the BOM removed and, for a CRLF file, every CRLF turned into LF. */
  text: string;
  /** The file started with a byte-order mark. */
  bom: boolean;
  /** "\r\n" only when every line break in the file is CRLF; mixed files stay as they are. */
  eol: "\n" | "\r\n";
  /** How the characters are stored; a write stores them the same way. */
  encoding: TextEncodingName;
}

/** How the encoding is named to the model and the user. */
export const ENCODING_LABELS: Record<TextEncodingName, string> = {
  "utf-8": "UTF-8",
  "utf-16le": "UTF-16LE",
  "utf-16be": "UTF-16BE",
  "windows-1252": "Windows-1252 (Latin-1)",
};

const BOM = "\uFEFF";
/** Bytes looked at to tell text from binary: enough to tell, and cheap on a huge file. */
const SAMPLE_BYTES = 8192;
const encoder = new TextEncoder();

/** Which line break a file uses: CRLF only when no bare LF appears. */
export function detectEol(text: string): "\n" | "\r\n" {
  const crlf = text.split("\r\n").length - 1;
  if (crlf === 0) return "\n";
  const lf = text.split("\n").length - 1;
  return crlf === lf ? "\r\n" : "\n";
}

// One analysis per buffer: callers ask looksBinary, then decodeText, of the same bytes.
const analysed = new WeakMap<Uint8Array, TextDocument | null>();

/** The file as text, or null when it is binary. */
export function readTextDocument(bytes: Uint8Array): TextDocument | null {
  if (analysed.has(bytes)) return analysed.get(bytes)!;
  const decoded = decodeAny(bytes);
  const document = decoded ? layout(decoded.text, decoded.encoding) : null;
  analysed.set(bytes, document);
  return document;
}

function layout(decoded: string, encoding: TextEncodingName): TextDocument {
  let text = decoded;
  const bom = text.startsWith(BOM);
  if (bom) text = text.slice(1);
  const eol = detectEol(text);
  if (eol === "\r\n") text = text.replaceAll("\r\n", "\n");
  return { text, bom, eol, encoding };
}

/**
 * A file is binary when it is none of the encodings above: a NUL byte (other
 * than UTF-16's), or mostly control characters.
 */
export function looksBinary(bytes: Uint8Array): boolean {
  return readTextDocument(bytes) === null;
}

/** The file as text; bytes that are binary come back as lossy UTF-8 (check looksBinary first). */
export function decodeText(bytes: Uint8Array): TextDocument {
  return readTextDocument(bytes) ??
    layout(new TextDecoder("utf-8", { ignoreBOM: true }).decode(bytes), "utf-8");
}

/** The bytes for `text` (LF form) laid out like `like`: same endings, BOM and encoding. */
export function encodeText(
  text: string,
  like: Pick<TextDocument, "bom" | "eol"> & { encoding?: TextEncodingName },
): Uint8Array {
  let out = like.eol === "\r\n" ? text.replaceAll("\r\n", "\n").replaceAll("\n", "\r\n") : text;
  if (like.bom && !out.startsWith(BOM)) out = BOM + out;
  switch (like.encoding ?? "utf-8") {
    case "utf-8":
      return encoder.encode(out);
    case "utf-16le":
      return encodeUtf16(out, true);
    case "utf-16be":
      return encodeUtf16(out, false);
    case "windows-1252":
      return encodeWindows1252(out);
  }
}

function decodeAny(bytes: Uint8Array): { text: string; encoding: TextEncodingName } | null {
  const sample = bytes.subarray(0, SAMPLE_BYTES);
  const utf16 = utf16ByBom(sample) ?? utf16ByNuls(sample);
  if (utf16) {
    const text = decodeStrict(bytes, utf16);
    return text !== null && mostlyText(text.slice(0, SAMPLE_BYTES / 2), 0.1)
      ? { text, encoding: utf16 }
      : null;
  }
  if (sample.includes(0)) return null;
  const utf8 = decodeStrict(bytes, "utf-8");
  if (utf8 !== null) {
    return mostlyText(utf8.slice(0, SAMPLE_BYTES), 0.1) ? { text: utf8, encoding: "utf-8" } : null;
  }
  // Not UTF-8: a single-byte encoding, when it reads as text. Every byte has
  // a character in Windows-1252, so a write gives back the very same bytes.
  const single = new TextDecoder("windows-1252").decode(bytes);
  return mostlyText(single.slice(0, SAMPLE_BYTES), 0.05)
    ? { text: single, encoding: "windows-1252" }
    : null;
}

/** The text, its BOM kept as U+FEFF; null when the bytes are not valid in `encoding`. */
function decodeStrict(bytes: Uint8Array, encoding: TextEncodingName): string | null {
  try {
    return new TextDecoder(encoding, { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    return null;
  }
}

function utf16ByBom(sample: Uint8Array): TextEncodingName | null {
  if (sample[0] === 0xff && sample[1] === 0xfe) return "utf-16le";
  if (sample[0] === 0xfe && sample[1] === 0xff) return "utf-16be";
  return null;
}

/** UTF-16 without a BOM: mostly-ASCII text has a NUL in every other byte, and only there. */
function utf16ByNuls(sample: Uint8Array): TextEncodingName | null {
  const pairs = Math.floor(sample.length / 2);
  if (pairs < 2) return null;
  let evenNuls = 0;
  let oddNuls = 0;
  for (let i = 0; i < pairs * 2; i += 2) {
    if (sample[i] === 0) evenNuls++;
    if (sample[i + 1] === 0) oddNuls++;
  }
  if (oddNuls >= pairs * 0.4 && evenNuls <= pairs * 0.02) return "utf-16le";
  if (evenNuls >= pairs * 0.4 && oddNuls <= pairs * 0.02) return "utf-16be";
  return null;
}

/** At most `share` of the characters are controls other than tab, newline, CR and form feed. */
function mostlyText(text: string, share: number): boolean {
  if (text.length === 0) return true;
  let control = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    const isControl = (code < 32 && code !== 9 && code !== 10 && code !== 13 && code !== 12) ||
      (code >= 0x7f && code <= 0x9f);
    if (isControl) control++;
  }
  return control / text.length <= share;
}

function encodeUtf16(text: string, littleEndian: boolean): Uint8Array {
  const bytes = new Uint8Array(text.length * 2);
  const view = new DataView(bytes.buffer);
  for (let i = 0; i < text.length; i++) view.setUint16(i * 2, text.charCodeAt(i), littleEndian);
  return bytes;
}

let windows1252Bytes: Map<string, number> | undefined;

function encodeWindows1252(text: string): Uint8Array {
  if (!windows1252Bytes) {
    // Each of the 256 bytes decodes to its own character, so the reverse is exact.
    const all = new TextDecoder("windows-1252").decode(
      Uint8Array.from({ length: 256 }, (_, i) => i),
    );
    windows1252Bytes = new Map([...all].map((char, byte) => [char, byte]));
  }
  const bytes = new Uint8Array(text.length);
  let length = 0;
  for (const char of text) {
    const byte = windows1252Bytes.get(char);
    if (byte === undefined) throw unencodable(char, text);
    bytes[length++] = byte;
  }
  return bytes.subarray(0, length);
}

function unencodable(char: string, text: string): ToolError {
  const code = char.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0");
  const line = text.slice(0, text.indexOf(char)).split("\n").length;
  return new ToolError(
    "bad_input",
    `The file is stored as Windows-1252 (Latin-1), which has no "${char}" (U+${code}, line ${line} of the new text); nothing was written.`,
    "Write that character another way (an ASCII spelling, or one Latin-1 has), or convert the file to UTF-8 first with bash: iconv -f WINDOWS-1252 -t UTF-8.",
    { encoding: "windows-1252" },
  );
}
