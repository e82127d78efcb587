/**
 * Content of NATIVE_FROM_BYTES or more is hashed by `node:crypto`, reached
 * when first needed (src/lib/sha256.ts): there the Node layer's start
 * costs less than hashing in TypeScript (~100–150 MB/s) would. Smaller
 * content never reaches for it. In a file of its own: the native hash is
 * looked up once per process.
 */
import { createHash } from "node:crypto";
import { assertEquals } from "../support/assert.ts";
import { NATIVE_FROM_BYTES, sha256Hex } from "../../src/lib/sha256.ts";

Deno.test("sha256Hex: small content stays in TypeScript, large content goes to node:crypto, same digests", () => {
  const process = (globalThis as unknown as {
    process: { getBuiltinModule(name: string): unknown };
  }).process;
  const lookup = process.getBuiltinModule;
  const asked: string[] = [];
  process.getBuiltinModule = (name: string) => {
    asked.push(name);
    return lookup.call(process, name);
  };
  try {
    const small = new Uint8Array(NATIVE_FROM_BYTES - 1).fill(7);
    const large = new Uint8Array(NATIVE_FROM_BYTES).fill(7);
    const expected = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");
    assertEquals(sha256Hex(small), expected(small));
    assertEquals(asked, []);
    assertEquals(sha256Hex(large), expected(large));
    assertEquals(asked, ["node:crypto"]);
    // A large string is measured in its UTF-8 bytes.
    const text = "é".repeat(NATIVE_FROM_BYTES / 2);
    assertEquals(sha256Hex(text), createHash("sha256").update(text).digest("hex"));
  } finally {
    process.getBuiltinModule = lookup;
  }
});
