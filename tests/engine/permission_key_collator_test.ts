/**
 * permissionKey runs at the very start of every run, tool and chat (the
 * pre-started Worker's check, src/boot/prewarm.ts): it must not be the first
 * caller of the locale collator, whose first use loads ICU's collation data
 * (10-35 ms on this machine). Its order stays deterministic and total.
 */
import { assertEquals, assertNotEquals } from "../support/assert.ts";
import { permissionKey } from "../../src/lib/permission_key.ts";

Deno.test("permissionKey never calls localeCompare", () => {
  const original = String.prototype.localeCompare;
  String.prototype.localeCompare = () => {
    throw new Error("localeCompare was called");
  };
  try {
    permissionKey({ write: ["/b", "/a"], read: ["/x"], net: true, env: ["HOME"], run: false });
  } finally {
    String.prototype.localeCompare = original;
  }
});

Deno.test("permissionKey: the same permissions in any order give one key, others another", () => {
  const one = permissionKey({ read: ["/a", "/b"], write: ["/w"], net: ["h:1"], env: false });
  const two = permissionKey({ env: false, net: ["h:1"], write: ["/w"], read: ["/b", "/a"] });
  assertEquals(one, two);
  assertNotEquals(one, permissionKey({ read: ["/a"], write: ["/w"], net: ["h:1"], env: false }));
  assertNotEquals(one, permissionKey({ read: ["/a", "/b"], write: ["/w"], net: true, env: false }));
});
