/**
 * A user-facing error thrown inside the engine Worker reaches the CLI whole:
 * its kind, message and hint survive the crossing, and the CLI prints them
 * and exits with the code of its kind (docs/cli.md).
 */
import { assert, assertEquals, assertRejects } from "../support/assert.ts";
import { startInWorker } from "../../src/host/worker_client.ts";
import { SkiffError } from "../../src/contracts/errors.ts";
import { reportFatal } from "../../src/cli/report_fatal.ts";
import { testSpec } from "../engine/_spec.ts";

/** What `reportFatal` prints and returns for `error`. */
function report(error: unknown): { code: number; printed: string[] } {
  const printed: string[] = [];
  const original = console.error;
  console.error = (...args: unknown[]) => printed.push(args.join(" "));
  try {
    return { code: reportFatal(error), printed };
  } finally {
    console.error = original;
  }
}

/** The error the stand-in engine Worker throws for `name`, as the CLI receives it. */
async function thrownInWorker(name: string): Promise<Error> {
  const dir = await Deno.makeTempDir({ prefix: "skiff-errors-" });
  try {
    const handle = await startInWorker(
      testSpec({ workspace: dir, dataDir: dir, configDir: dir }),
      { event: () => {}, ask: () => Promise.resolve("deny") },
      new URL("./fixtures/throwing_worker.ts", import.meta.url),
    );
    try {
      return await assertRejects(() => handle.open({ sessionId: name }));
    } finally {
      await handle.close();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

for (const kind of ["usage", "config", "store"] as const) {
  Deno.test(`a ${kind} error from the engine Worker keeps its kind, message and hint and exits 2`, async () => {
    const error = await thrownInWorker(kind) as SkiffError;
    assert(error instanceof SkiffError, `${error.name} arrived as a plain Error`);
    assertEquals([error.kind, error.message, error.hint], [
      kind,
      `a ${kind} mistake`,
      `fix the ${kind} and retry`,
    ]);
    assertEquals(report(error), {
      code: 2,
      printed: [`skiff: a ${kind} mistake`, `fix the ${kind} and retry`],
    });
  });
}

Deno.test("UsageError, ConfigError and StoreError from the engine Worker print their message and exit 2", async () => {
  const expected = {
    UsageError: ["usage", "skiff: --dir /nowhere does not exist."],
    ConfigError: [
      "config",
      'skiff: /home/me/.config/skiff/config.json: provider.maxRetries: expected a number, got "five"\n' +
      "Fix the config and run skiff again; every key is described in docs/config.md.",
    ],
    StoreError: ["store", "skiff: no session ses_x. List sessions with: skiff sessions list"],
  };
  for (const [name, [kind, printed]] of Object.entries(expected)) {
    const error = await thrownInWorker(name) as SkiffError;
    assert(error instanceof SkiffError, `${error.name} arrived as a plain Error`);
    assertEquals([error.name, error.kind], [name, kind]);
    assertEquals(report(error), { code: 2, printed: [printed] });
  }
});

Deno.test("any other error from the engine Worker is reported as a bug, exit 1", () => {
  const { code, printed } = report(new Error("engine bug"));
  assertEquals(code, 1);
  assertEquals(printed[1], "This is a bug in skiff; please report it with the command you ran.");
});
