/**
 * What the session sandbox's holder empties between commands, decided from
 * the sandbox's bwrap arguments (src/sandbox/bwrap/pool_steps.ts): only its
 * own tmpfs folders, and never an entry holding a mount of the user's files.
 */
import { assertEquals } from "../../support/assert.ts";
import { bwrapArgs } from "../../../src/sandbox/bwrap/bwrap.ts";
import { heldBack, indexOf } from "../../../src/sandbox/pool/pool.ts";
import {
  entriesHoldingMounts,
  foldersToClean,
  runRequest,
} from "../../../src/sandbox/bwrap/pool_steps.ts";
import type { SandboxSettings } from "../../../src/sandbox/modes.ts";

/** read-only for real folders: workspace-write would search them for repositories. */
function argsFor(
  workspace: string,
  addDirs: string[] = [],
  mode: SandboxSettings["mode"] = "workspace-write",
): string[] {
  const settings: SandboxSettings = {
    mode,
    workspace,
    addDirs,
    network: false,
    envNames: [],
  };
  return bwrapArgs(settings, workspace, {});
}

Deno.test("pool steps: a workspace elsewhere leaves /tmp, /dev/shm and /run to empty whole", () => {
  const args = argsFor("/srv/project-that-does-not-exist");
  assertEquals(foldersToClean(args), ["/tmp", "/dev/shm", "/run"]);
  assertEquals(entriesHoldingMounts(args).filter((entry) => entry.startsWith("/tmp")), []);
});

Deno.test("pool steps: a workspace in /tmp is kept whole, at any depth", () => {
  assertEquals(entriesHoldingMounts(argsFor("/tmp/proj")).includes("/tmp/proj"), true);
  assertEquals(entriesHoldingMounts(argsFor("/tmp/a/b/ws")).includes("/tmp/a"), true);
  assertEquals(
    entriesHoldingMounts(argsFor("/srv/x", ["/dev/shm/data"])).includes("/dev/shm/data"),
    true,
  );
});

Deno.test("pool steps: a workspace that is /tmp itself (or above it) stops /tmp being emptied", () => {
  assertEquals(foldersToClean(argsFor("/tmp", [], "read-only")), ["/dev/shm", "/run"]);
  assertEquals(foldersToClean(argsFor("/run", [], "read-only")), ["/tmp", "/dev/shm"]);
  assertEquals(foldersToClean(argsFor("/", [], "read-only")), []);
});

Deno.test("pool steps: the DNS resolver's folder under /run is kept", () => {
  assertEquals(entriesHoldingMounts(argsFor("/srv/x")).includes("/run/systemd"), true);
});

Deno.test("pool steps: a /var/run of its own (a folder, not a link to /run) is emptied too", () => {
  const args = ["--ro-bind", "/", "/", "--tmpfs", "/run", "--tmpfs", "/var/run", "--chdir", "/srv"];
  assertEquals(foldersToClean(args), ["/run", "/var/run"]);
});

Deno.test("pool steps: a run request puts each line after '|' and ends with '.'", () => {
  assertEquals(runRequest("t1", "echo a\n.\n|b\n"), "run t1\n|echo a\n|.\n||b\n|\n.\n");
  assertEquals(runRequest("t2", "true"), "run t2\n|true\n.\n");
  // No shell argument can carry a NUL byte: such a script is never sent.
  assertEquals(runRequest("t3", "echo a\0b"), null);
});

Deno.test("pool output: a mark is found across any split, and only its possible start waits", () => {
  const encode = (text: string) => new TextEncoder().encode(text);
  const mark = encode("tok>");
  assertEquals(indexOf(encode("abctok>rest"), mark), 3);
  assertEquals(indexOf(encode("tottok"), mark), -1);
  assertEquals(indexOf(encode("tok"), mark), -1);
  // What may begin the mark is held back; everything before it goes out now.
  assertEquals(heldBack(encode("output to"), mark), 7);
  assertEquals(heldBack(encode("output t"), mark), 7);
  assertEquals(heldBack(encode("output tok"), mark), 7);
  assertEquals(heldBack(encode("output"), mark), 5); // Its last "t" may begin the mark.
  assertEquals(heldBack(encode("a line\n"), mark), 7);
  assertEquals(heldBack(encode(""), mark), 0);
});
