/**
 * The plain-TypeScript SHA-256 the engine hashes file contents with
 * (src/lib/sha256.ts): the same digests as `node:crypto`, which undo
 * snapshots stored before it was used were made with, at every length
 * around the block and padding boundaries, for bytes and UTF-8 strings.
 */
import { createHash } from "node:crypto";
import { assertEquals } from "../support/assert.ts";
import { sha256Hex } from "../../src/lib/sha256.ts";

const nodeSha256 = (content: Uint8Array | string) =>
  createHash("sha256").update(content).digest("hex");

Deno.test("sha256Hex: the FIPS 180-4 test vectors", () => {
  assertEquals(
    sha256Hex(""),
    "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
  );
  assertEquals(
    sha256Hex("abc"),
    "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
  );
  assertEquals(
    sha256Hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
    "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1",
  );
});

Deno.test("sha256Hex: the same digest as node:crypto at every length up to 300 bytes", () => {
  for (let length = 0; length <= 300; length++) {
    const bytes = crypto.getRandomValues(new Uint8Array(length));
    assertEquals(sha256Hex(bytes), nodeSha256(bytes), `length ${length}`);
  }
});

Deno.test("sha256Hex: strings are hashed as UTF-8, large inputs and views too", () => {
  for (const text of ["héllo wörld ✓ 🚀", "line\r\n".repeat(5000), "\u0000\uffff"]) {
    assertEquals(sha256Hex(text), nodeSha256(text));
  }
  const big = new Uint8Array(3 * 1024 * 1024 + 17);
  for (let at = 0; at < big.length; at += 65536) {
    crypto.getRandomValues(big.subarray(at, Math.min(big.length, at + 65536)));
  }
  assertEquals(sha256Hex(big), nodeSha256(big));
  // A view into a larger buffer hashes only its own bytes.
  const view = big.subarray(1000, 1000 + 4099);
  assertEquals(sha256Hex(view), nodeSha256(view));
});
