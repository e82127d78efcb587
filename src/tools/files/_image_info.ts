/**
 * Recognises common image formats by their first bytes and reads their
 * dimensions from the header when that is cheap, so `read` can describe an
 * image instead of refusing it as binary. SVG is text and is read as text.
 */

export interface ImageInfo {
  /** "PNG", "JPEG", "GIF", "WebP", "BMP". */
  format: string;
  mime: string;
  width?: number;
  height?: number;
}

const startsWith = (bytes: Uint8Array, prefix: number[], at = 0) =>
  bytes.length >= at + prefix.length && prefix.every((value, i) => bytes[at + i] === value);

const ascii = (text: string) => [...text].map((c) => c.charCodeAt(0));

function jpegSize(
  bytes: Uint8Array,
  view: DataView,
): { width: number; height: number } | undefined {
  let offset = 2;
  while (offset + 9 < bytes.length) {
    if (bytes[offset] !== 0xff) return undefined;
    const marker = bytes[offset + 1];
    if (marker === 0xff) {
      offset++; // fill byte
      continue;
    }
    const length = view.getUint16(offset + 2);
    // SOF0..SOF15 carry the frame size; C4 (DHT), C8 (JPG) and CC (DAC) do not.
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      return { height: view.getUint16(offset + 5), width: view.getUint16(offset + 7) };
    }
    offset += 2 + length;
  }
  return undefined;
}

function webpSize(
  bytes: Uint8Array,
  view: DataView,
): { width: number; height: number } | undefined {
  const chunk = String.fromCharCode(...bytes.subarray(12, 16));
  if (chunk === "VP8 " && bytes.length >= 30) {
    return { width: view.getUint16(26, true) & 0x3fff, height: view.getUint16(28, true) & 0x3fff };
  }
  if (chunk === "VP8L" && bytes.length >= 25) {
    const [b0, b1, b2, b3] = bytes.subarray(21, 25);
    return {
      width: 1 + (((b1 & 0x3f) << 8) | b0),
      height: 1 + (((b3 & 0x0f) << 10) | (b2 << 2) | ((b1 & 0xc0) >> 6)),
    };
  }
  if (chunk === "VP8X" && bytes.length >= 30) {
    const u24 = (at: number) => bytes[at] | (bytes[at + 1] << 8) | (bytes[at + 2] << 16);
    return { width: 1 + u24(24), height: 1 + u24(27) };
  }
  return undefined;
}

/** The image format and size of `bytes`, or null when it is not an image we know. */
export function imageInfo(bytes: Uint8Array): ImageInfo | null {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (startsWith(bytes, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) {
    const size = bytes.length >= 24
      ? { width: view.getUint32(16), height: view.getUint32(20) }
      : {};
    return { format: "PNG", mime: "image/png", ...size };
  }
  if (startsWith(bytes, [0xff, 0xd8, 0xff])) {
    return { format: "JPEG", mime: "image/jpeg", ...jpegSize(bytes, view) };
  }
  if (startsWith(bytes, ascii("GIF87a")) || startsWith(bytes, ascii("GIF89a"))) {
    const size = bytes.length >= 10
      ? { width: view.getUint16(6, true), height: view.getUint16(8, true) }
      : {};
    return { format: "GIF", mime: "image/gif", ...size };
  }
  if (startsWith(bytes, ascii("RIFF")) && startsWith(bytes, ascii("WEBP"), 8)) {
    return { format: "WebP", mime: "image/webp", ...webpSize(bytes, view) };
  }
  if (startsWith(bytes, ascii("BM")) && bytes.length >= 26) {
    return {
      format: "BMP",
      mime: "image/bmp",
      width: Math.abs(view.getInt32(18, true)),
      height: Math.abs(view.getInt32(22, true)),
    };
  }
  return null;
}
