/**
 * When a start runs the bundle (src/boot/bundle.ts): only
 * while every source of the stamp has its recorded size and mtime, and the
 * same Deno built it; a stamp that is missing, of another format or
 * malformed means no bundle; a compiled binary trusts a present build. And
 * what a start from the bundle keeps: the sandbox probe's answer.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { makeSandbox, runSkiff } from "../support/cli.ts";
import {
  BUNDLE_DIR,
  BUNDLE_STAMP,
  bundleCandidate,
  bundleState,
  ENGINE_BUNDLE_DIR,
  STAMP_FORMAT,
} from "../../src/boot/bundle.ts";
import { BWRAP_PROBE_CACHE_FILE } from "../../src/sandbox/bwrap/probe_cache.ts";
import { sha256Hex } from "../../src/lib/sha256.ts";

async function withRoot(run: (root: URL, dir: string) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "skiff-bundle-state-" });
  try {
    await Deno.mkdir(`${dir}/${BUNDLE_DIR}`, { recursive: true });
    await Deno.mkdir(`${dir}/src/app`, { recursive: true });
    await Deno.writeTextFile(`${dir}/src/app/a.ts`, "export const a = 1;\n");
    await Deno.writeTextFile(`${dir}/deno.json`, "{}\n");
    await run(new URL(`file://${dir}/`), dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

function stampFor(dir: string, files: string[], deno = Deno.version.deno): unknown {
  const sources: Record<string, [number, number, string]> = {};
  for (const file of files) {
    const info = Deno.statSync(`${dir}/${file}`);
    sources[file] = [
      info.size,
      info.mtime!.getTime(),
      sha256Hex(Deno.readFileSync(`${dir}/${file}`)),
    ];
  }
  return { format: STAMP_FORMAT, deno, sources };
}

function writeStamp(dir: string, stamp: unknown): Promise<void> {
  return Deno.writeTextFile(`${dir}/${BUNDLE_DIR}/${BUNDLE_STAMP}`, JSON.stringify(stamp));
}

const SOURCES = ["src/app/a.ts", "deno.json"];

Deno.test("bundleState: a stamp matching every source is fresh, and names the bundle's folder", async () => {
  await withRoot(async (root, dir) => {
    await writeStamp(dir, stampFor(dir, SOURCES));
    const state = bundleState(root, false);
    assertEquals(state.kind, "fresh");
    assertEquals(
      state.kind === "fresh" ? state.dir.href : "",
      new URL(`${BUNDLE_DIR}/`, root).href,
    );
    const engine = new URL(`${ENGINE_BUNDLE_DIR}/worker_main.js`, root).href;
    assertEquals(bundleCandidate(root)?.href, engine);
  });
});

Deno.test("bundleState: an edited, resized, touched or removed source makes the build stale", async () => {
  await withRoot(async (root, dir) => {
    await writeStamp(dir, stampFor(dir, SOURCES));
    // Same size, new content and mtime (an editor writing in place).
    await Deno.writeTextFile(`${dir}/src/app/a.ts`, "export const a = 2;\n");
    const later = new Date(Date.now() + 5000);
    await Deno.utime(`${dir}/src/app/a.ts`, later, later);
    assertEquals(bundleState(root, false), {
      kind: "stale",
      reason: "src/app/a.ts changed since the build",
    });

    await writeStamp(dir, stampFor(dir, SOURCES));
    assertEquals(bundleState(root, false).kind, "fresh");
    // Another size, mtime put back: still stale.
    const before = Deno.statSync(`${dir}/deno.json`).mtime!;
    await Deno.writeTextFile(`${dir}/deno.json`, '{ "imports": {} }\n');
    await Deno.utime(`${dir}/deno.json`, before, before);
    assertEquals(bundleState(root, false).kind, "stale");

    await writeStamp(dir, stampFor(dir, SOURCES));
    await Deno.remove(`${dir}/src/app/a.ts`);
    assertEquals(bundleState(root, false), { kind: "stale", reason: "src/app/a.ts is gone" });
  });
});

Deno.test("bundleState: a source whose time changed but whose content did not (a checkout putting it back) keeps the build fresh", async () => {
  await withRoot(async (root, dir) => {
    await writeStamp(dir, stampFor(dir, SOURCES));
    const file = `${dir}/src/app/a.ts`;
    const original = await Deno.readTextFile(file);
    await Deno.writeTextFile(file, "export const a = 9;\n");
    await Deno.writeTextFile(file, original);
    const later = new Date(Date.now() + 5000);
    await Deno.utime(file, later, later);
    assertEquals(bundleState(root, false).kind, "fresh");
    // The same time trick with other content of the same size is still found.
    await Deno.writeTextFile(file, "export const a = 7;\n");
    await Deno.utime(file, later, later);
    assertEquals(bundleState(root, false), {
      kind: "stale",
      reason: "src/app/a.ts changed since the build",
    });
  });
});

Deno.test("bundleState: a build by another Deno is stale; a compiled binary trusts what it carries", async () => {
  await withRoot(async (root, dir) => {
    await writeStamp(dir, stampFor(dir, SOURCES, "1.0.0"));
    assertEquals(bundleState(root, false), {
      kind: "stale",
      reason: `built by Deno 1.0.0, running ${Deno.version.deno}`,
    });
    assertEquals(bundleState(root, true).kind, "fresh");
  });
});

Deno.test("bundleState: no stamp, another format or a malformed one is no build at all", async () => {
  await withRoot(async (root, dir) => {
    assertEquals(bundleState(root, false), { kind: "absent" });
    assertEquals(bundleState(root, true), { kind: "absent" });
    assertEquals(bundleCandidate(root), undefined);
    const good = stampFor(dir, SOURCES) as Record<string, unknown>;
    const bad: unknown[] = [
      { ...good, format: STAMP_FORMAT + 1 },
      { ...good, sources: {} },
      { ...good, sources: { "deno.json": [1] } },
      { ...good, sources: { "deno.json": ["1", 2] } },
      { ...good, sources: { "deno.json": [1, 2] } },
      { ...good, sources: { "deno.json": [1, 2, 3] } },
      { ...good, deno: 2 },
      null,
      [],
    ];
    for (const stamp of bad) {
      await writeStamp(dir, stamp);
      assertEquals(bundleState(root, true), { kind: "absent" }, JSON.stringify(stamp));
    }
    await Deno.writeTextFile(`${dir}/${BUNDLE_DIR}/${BUNDLE_STAMP}`, "{ not json");
    assertEquals(bundleState(root, true), { kind: "absent" });
  });
});

const bwrapWorks = Deno.build.os === "linux" &&
  (await new Deno.Command("bwrap", {
    args: ["--ro-bind", "/", "/", "--unshare-net", "--", "true"],
    stdout: "null",
    stderr: "null",
  }).output().then((out) => out.success, () => false));

Deno.test({
  name: "a start from the bundle keeps bubblewrap's probe answer for the next start",
  ignore: !bwrapWorks || bundleState().kind !== "fresh",
  async fn() {
    // The probe's key stamps the exec step's sources: named from the bundle's own chunk, they
    // named nothing, no key was made, and every bundled start ran bubblewrap again.
    const sandbox = await makeSandbox();
    try {
      await Deno.writeTextFile(`${sandbox.workspace}/a.txt`, "a\n");
      const result = await runSkiff(["tool", "read", '{"file_path":"a.txt"}'], sandbox);
      assertEquals(result.code, 0, result.stderr);
      const kept = await Deno.stat(`${sandbox.dataDir}/${BWRAP_PROBE_CACHE_FILE}`).catch(() =>
        null
      );
      assert(kept?.isFile, "no bwrap-probe.json after a bundled start");
    } finally {
      await sandbox.cleanup();
    }
  },
});
