/**
 * `skiff doctor`'s "Not covered here": the gaps of docs/security.md that
 * apply on the machine at hand, by backend, Landlock ABI, user and Yama.
 */
import { assert, assertEquals } from "../../support/assert.ts";
import { type GapFacts, gapLines } from "../../../src/cli/doctor/doctor_gaps.ts";

const base: GapFacts = { chosen: "landlock", landlockAbi: 7, uid: 1000, ptraceScope: 1 };

Deno.test("doctor gaps: under Landlock, sockets by path and chmod outside the workspace are named", () => {
  const text = gapLines(base).join("\n");
  assert(text.includes("Unix sockets reached by path"), text);
  assert(!text.includes("abstract"), "ABI 7 scopes abstract sockets");
  assert(text.includes("chmod, utimes and extended attributes"), text);
  assert(text.includes("bubblewrap covers these"), text);
  assert(text.includes("git credential in the workspace's .git/config"), text);
  assert(text.includes("persist-credentials: false"), text);
  assert(!text.includes("signals"), "ABI 7 scopes signals");
});

Deno.test("doctor gaps: below ABI 6 signals and abstract sockets", () => {
  const text = gapLines({ ...base, landlockAbi: 3 }).join("\n");
  assert(text.includes("abstract ones too (Landlock ABI 3"), text);
  assert(text.includes("signals: a command can signal skiff"), text);
});

Deno.test("doctor gaps: under bubblewrap the hard-link and full-access lines, judged by user and Yama", () => {
  const lines = (over: Partial<GapFacts>) => gapLines({ ...base, chosen: "bwrap", ...over });
  assertEquals(lines({}).length, 2);
  assert(lines({}).join("").includes("hard link made before the session"));
  assert(lines({}).join("").includes("cannot read skiff's memory (Yama ptrace_scope 1)"));
  assert(lines({ ptraceScope: null }).join("").includes("can read skiff's memory"));
  assert(lines({ ptraceScope: 0 }).join("").includes("can read skiff's memory"));
  assert(lines({ uid: 0 }).join("").includes("as root it can read skiff's memory"));
});
