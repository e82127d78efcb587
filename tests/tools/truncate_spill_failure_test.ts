/**
 * A spill file that cannot be written loses nothing silently: the history
 * keeps head and tail, the notice says the rest could not be saved and why,
 * and the text stays within the limit (so it is never cut again).
 */
import { assert, assertEquals, assertStringIncludes } from "../support/assert.ts";
import * as path from "node:path";
import { OutputSpool, truncateOutput } from "../../src/tools/truncate.ts";

/** A data folder that is a regular file: no spill folder can be created under it. */
async function unwritableDataDir(): Promise<{ root: string; dataDir: string }> {
  const root = await Deno.makeTempDir({ prefix: "skiff-spill-fail-" });
  const dataDir = path.join(root, "data");
  await Deno.writeTextFile(dataDir, "not a folder\n");
  return { root, dataDir };
}

const lines = (count: number) => Array.from({ length: count }, (_, i) => `line ${i}\n`).join("");

Deno.test("the spool keeps head and tail and says why when its spill file cannot be created", async () => {
  const { root, dataDir } = await unwritableDataDir();
  try {
    const spool = new OutputSpool({ callId: "c1", sessionId: "s1", dataDir, limit: 2_000 });
    for (let i = 0; i < 20_000; i++) spool.append(`line ${i}\n`);
    const text = spool.finish();
    assert(text.length <= 2_000, `the history text has ${text.length} characters`);
    assert(text.startsWith("line 0\nline 1\n"), text.slice(0, 40));
    assert(text.endsWith("line 19998\nline 19999\n"), text.slice(-40));
    assertStringIncludes(text, "the full output could not be saved (");
    assertStringIncludes(text, "characters truncated and lost");
    assertEquals(spool.cut, true);
    assertEquals(spool.spilled, false);
    assertEquals(spool.file, "");
    assert(spool.notKept && spool.notKept.length > 0, "notKept names the reason");
    assertStringIncludes(text, spool.notKept!);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("truncateOutput keeps head and tail and says why when its spill file cannot be created", async () => {
  const { root, dataDir } = await unwritableDataDir();
  try {
    const text = await truncateOutput(lines(20_000), {
      callId: "c1",
      sessionId: "s1",
      dataDir,
      limit: 2_000,
    });
    assert(text.length <= 2_000, `the history text has ${text.length} characters`);
    assert(text.startsWith("line 0\n"));
    assert(text.endsWith("line 19999\n"));
    assertStringIncludes(text, "the full output could not be saved (");
    // Within the limit: truncating it again changes nothing.
    assertEquals(
      await truncateOutput(text, { callId: "c1", sessionId: "s1", dataDir, limit: 2_000 }),
      text,
    );
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("a spill file that fails part-way keeps what it got, and the notice says it holds only that", async () => {
  // `ulimit -f` makes writes past 32 KiB fail (EFBIG; SIGXFSZ ignored so the process lives).
  const root = await Deno.makeTempDir({ prefix: "skiff-spill-partial-" });
  try {
    const script = path.join(root, "spool.ts");
    await Deno.writeTextFile(
      script,
      `import { OutputSpool } from ${
        JSON.stringify(new URL("../../src/tools/truncate.ts", import.meta.url).href)
      };
const spool = new OutputSpool({ callId: "c1", sessionId: "s1", dataDir: Deno.args[0], limit: 2_000 });
for (let i = 0; i < 20_000; i++) spool.append(\`line \${i}\\n\`);
console.log(JSON.stringify({ text: spool.finish(), notKept: spool.notKept, file: spool.file }));
`,
    );
    const dataDir = path.join(root, "data");
    const output = await new Deno.Command("sh", {
      args: [
        "-c",
        `trap '' XFSZ; ulimit -f 64; exec "$0" run --allow-all --no-check "$1" "$2"`,
        Deno.execPath(),
        script,
        dataDir,
      ],
      stdout: "piped",
      stderr: "piped",
    }).output();
    const stderr = new TextDecoder().decode(output.stderr);
    assert(output.success, `the spool script failed: ${stderr}`);
    const result = JSON.parse(new TextDecoder().decode(output.stdout));
    const size = (await Deno.stat(result.file)).size;
    assert(size > 0 && size < lines(20_000).length, `the spill file holds ${size} bytes`);
    assertEquals(await Deno.readTextFile(result.file), lines(20_000).slice(0, size));
    assert(result.text.length <= 2_000, `the history text has ${result.text.length} characters`);
    assert(result.text.startsWith("line 0\n"));
    assert(result.text.endsWith("line 19999\n"));
    assertStringIncludes(result.text, `${result.file} holds only the first ${size} bytes`);
    assertStringIncludes(result.text, `could not be saved (${result.notKept})`);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
