/**
 * SHA-256 (FIPS 180-4), synchronous, in plain TypeScript. The engine's
 * Worker hashes every file it reads or writes (the file ledger, undo
 * snapshots), and `node:crypto` would start Deno's Node compatibility layer
 * in it (a large part of its start, docs/performance.md); WebCrypto's digest is
 * asynchronous only. Same digests as `createHash("sha256")`; strings are
 * hashed as UTF-8. Content of 4 MB or more goes to `node:crypto` after all
 * (NATIVE_FROM_BYTES): there the Node layer's start costs less than hashing
 * here would.
 */

const ROUND_CONSTANTS = new Int32Array([
  0x428a2f98,
  0x71374491,
  0xb5c0fbcf,
  0xe9b5dba5,
  0x3956c25b,
  0x59f111f1,
  0x923f82a4,
  0xab1c5ed5,
  0xd807aa98,
  0x12835b01,
  0x243185be,
  0x550c7dc3,
  0x72be5d74,
  0x80deb1fe,
  0x9bdc06a7,
  0xc19bf174,
  0xe49b69c1,
  0xefbe4786,
  0x0fc19dc6,
  0x240ca1cc,
  0x2de92c6f,
  0x4a7484aa,
  0x5cb0a9dc,
  0x76f988da,
  0x983e5152,
  0xa831c66d,
  0xb00327c8,
  0xbf597fc7,
  0xc6e00bf3,
  0xd5a79147,
  0x06ca6351,
  0x14292967,
  0x27b70a85,
  0x2e1b2138,
  0x4d2c6dfc,
  0x53380d13,
  0x650a7354,
  0x766a0abb,
  0x81c2c92e,
  0x92722c85,
  0xa2bfe8a1,
  0xa81a664b,
  0xc24b8b70,
  0xc76c51a3,
  0xd192e819,
  0xd6990624,
  0xf40e3585,
  0x106aa070,
  0x19a4c116,
  0x1e376c08,
  0x2748774c,
  0x34b0bcb5,
  0x391c0cb3,
  0x4ed8aa4a,
  0x5b9cca4f,
  0x682e6ff3,
  0x748f82ee,
  0x78a5636f,
  0x84c87814,
  0x8cc70208,
  0x90befffa,
  0xa4506ceb,
  0xbef9a3f7,
  0xc67178f2,
]);

const encoder = new TextEncoder();
const schedule = new Int32Array(64);

/** Runs the compression function over each whole 64-byte block of `bytes` from `start`. */
function compress(state: Int32Array, bytes: Uint8Array, start: number, end: number): void {
  const w = schedule;
  const k = ROUND_CONSTANTS;
  let h0 = state[0], h1 = state[1], h2 = state[2], h3 = state[3];
  let h4 = state[4], h5 = state[5], h6 = state[6], h7 = state[7];
  for (let offset = start; offset + 64 <= end; offset += 64) {
    for (let i = 0; i < 16; i++) {
      const at = offset + i * 4;
      w[i] = (bytes[at] << 24) | (bytes[at + 1] << 16) | (bytes[at + 2] << 8) | bytes[at + 3];
    }
    for (let i = 16; i < 64; i++) {
      const a = w[i - 15], b = w[i - 2];
      const s0 = ((a >>> 7) | (a << 25)) ^ ((a >>> 18) | (a << 14)) ^ (a >>> 3);
      const s1 = ((b >>> 17) | (b << 15)) ^ ((b >>> 19) | (b << 13)) ^ (b >>> 10);
      w[i] = (w[i - 16] + s0 + w[i - 7] + s1) | 0;
    }
    let a = h0, b = h1, c = h2, d = h3, e = h4, f = h5, g = h6, h = h7;
    for (let i = 0; i < 64; i++) {
      const s1 = ((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7));
      const t1 = (h + s1 + ((e & f) ^ (~e & g)) + k[i] + w[i]) | 0;
      const s0 = ((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10));
      const t2 = (s0 + ((a & b) ^ (a & c) ^ (b & c))) | 0;
      h = g;
      g = f;
      f = e;
      e = (d + t1) | 0;
      d = c;
      c = b;
      b = a;
      a = (t1 + t2) | 0;
    }
    h0 = (h0 + a) | 0, h1 = (h1 + b) | 0, h2 = (h2 + c) | 0, h3 = (h3 + d) | 0;
    h4 = (h4 + e) | 0, h5 = (h5 + f) | 0, h6 = (h6 + g) | 0, h7 = (h7 + h) | 0;
  }
  state[0] = h0, state[1] = h1, state[2] = h2, state[3] = h3;
  state[4] = h4, state[5] = h5, state[6] = h6, state[7] = h7;
}

/**
 * From this size up the native digest is worth starting Deno's Node layer
 * for: it hashes several times faster than this code, and the layer's start
 * costs once about what hashing this much costs here.
 */
export const NATIVE_FROM_BYTES = 4 * 1024 * 1024;

type NativeHash = (bytes: Uint8Array) => string;
let native: NativeHash | null | undefined;

/**
 * `node:crypto`'s SHA-256, reached synchronously and only when first needed
 * (`process.getBuiltinModule`, so nothing imports it at start); null where
 * the runtime has no such call.
 */
function nativeHash(): NativeHash | null {
  if (native !== undefined) return native;
  native = null;
  try {
    const process = (globalThis as {
      process?: { getBuiltinModule?(name: string): unknown };
    }).process;
    const crypto = process?.getBuiltinModule?.("node:crypto") as
      | { createHash(name: string): { update(data: Uint8Array): { digest(as: "hex"): string } } }
      | undefined;
    if (crypto) native = (bytes) => crypto.createHash("sha256").update(bytes).digest("hex");
  } catch { /* no Node layer here: the digest below serves every size */ }
  return native;
}

/** The SHA-256 digest of `content` (a string as UTF-8), as 64 lowercase hex digits. */
export function sha256Hex(content: Uint8Array | string): string {
  const bytes = typeof content === "string" ? encoder.encode(content) : content;
  if (bytes.length >= NATIVE_FROM_BYTES) {
    const hash = nativeHash();
    if (hash) return hash(bytes);
  }
  const state = new Int32Array([
    0x6a09e667,
    0xbb67ae85,
    0x3c6ef372,
    0xa54ff53a,
    0x510e527f,
    0x9b05688c,
    0x1f83d9ab,
    0x5be0cd19,
  ]);
  const whole = bytes.length - (bytes.length % 64);
  compress(state, bytes, 0, whole);
  // The last partial block, the 0x80 marker and the length in bits (big-endian, 64 bits).
  const rest = bytes.length - whole;
  const tail = new Uint8Array(rest < 56 ? 64 : 128);
  tail.set(bytes.subarray(whole));
  tail[rest] = 0x80;
  const bits = bytes.length * 8;
  const view = new DataView(tail.buffer);
  view.setUint32(tail.length - 8, Math.floor(bits / 0x100000000));
  view.setUint32(tail.length - 4, bits >>> 0);
  compress(state, tail, 0, tail.length);
  let hex = "";
  for (const word of state) hex += (word >>> 0).toString(16).padStart(8, "0");
  return hex;
}
