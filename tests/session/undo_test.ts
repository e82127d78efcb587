/**
 * Undo of one prompt from its snapshots: a path that cannot be put back (a
 * folder now stands where the file was, its parent became a file) is refused
 * and named, and the other files of the prompt are still put back.
 */
import { assertEquals, assertStringIncludes } from "../support/assert.ts";
import { undoSnapshots } from "../../src/session/undo.ts";
import { hashContent } from "../../src/tools/file_ledger.ts";

const bytes = (text: string) => new TextEncoder().encode(text);

async function withDir(work: (dir: string) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "skiff-undo-" });
  try {
    await work(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("a folder where the file was is refused; the other files are still put back", async () => {
  await withDir(async (dir) => {
    const file = `${dir}/a.txt`;
    const other = `${dir}/b.txt`;
    await Deno.mkdir(file); // a person replaced the file with a folder
    await Deno.writeTextFile(other, "by skiff\n");
    const report = undoSnapshots(
      [{ path: file, content: bytes("old a\n") }, { path: other, content: bytes("old b\n") }],
      new Map([[other, hashContent("by skiff\n")]]),
    );
    assertEquals(report.restored, [other]);
    assertEquals(report.refused.map((refusal) => refusal.path), [file]);
    assertStringIncludes(report.refused[0].reason, "left as it is");
    assertEquals(await Deno.readTextFile(other), "old b\n");
    assertEquals((await Deno.stat(file)).isDirectory, true, "the folder stays");
  });
});

Deno.test("a file deleted whose folder is now a file is refused, not a crash", async () => {
  await withDir(async (dir) => {
    await Deno.writeTextFile(`${dir}/sub`, "a file where the folder was\n");
    const gone = `${dir}/sub/c.txt`;
    const report = undoSnapshots([{ path: gone, content: bytes("old c\n") }], new Map());
    assertEquals(report.restored, []);
    assertEquals(report.refused.map((refusal) => refusal.path), [gone]);
    assertStringIncludes(report.refused[0].reason, "could not put it back");
    assertEquals(await Deno.readTextFile(`${dir}/sub`), "a file where the folder was\n");
  });
});

Deno.test("a file deleted by the prompt comes back, and an executable keeps its mode", async () => {
  await withDir(async (dir) => {
    const script = `${dir}/run.sh`;
    await Deno.writeTextFile(script, "echo new\n");
    await Deno.chmod(script, 0o755);
    const deleted = `${dir}/gone.txt`;
    const report = undoSnapshots(
      [{ path: script, content: bytes("echo old\n") }, { path: deleted, content: bytes("back\n") }],
      new Map([[script, hashContent("echo new\n")]]),
    );
    assertEquals(report.refused, []);
    assertEquals(await Deno.readTextFile(deleted), "back\n");
    assertEquals(await Deno.readTextFile(script), "echo old\n");
    assertEquals((await Deno.stat(script)).mode! & 0o777, 0o755);
  });
});
