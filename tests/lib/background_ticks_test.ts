/**
 * The background timers (a run's heartbeat, a model request's watchdogs):
 * they fire while the process lives for other reasons, stop when told,
 * survive a tick that throws, and never keep a process alive on their own.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { backgroundTicks, backgroundTimeout } from "../../src/lib/background_ticks.ts";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** "ticked" when `reached` settles within 5 s, else "timed out"; no timer is left behind. */
async function within5s(reached: Promise<void>): Promise<string> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<string>((resolve) => {
    timer = setTimeout(() => resolve("timed out"), 5000);
  });
  try {
    return await Promise.race([reached.then(() => "ticked"), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

Deno.test("ticks repeatedly, then no more once stopped", async () => {
  let ticks = 0;
  let third: () => void = () => {};
  const reachedThird = new Promise<void>((resolve) => third = resolve);
  const stop = backgroundTicks(20, () => {
    ticks++;
    if (ticks === 3) third();
  });
  assertEquals(await within5s(reachedThird), "ticked");
  stop();
  const atStop = ticks;
  await sleep(150);
  assertEquals(ticks, atStop, "no tick after stop");
  stop(); // twice is harmless
});

Deno.test("a tick that throws goes to onError, and the ticks go on", async () => {
  const errors: unknown[] = [];
  let ticks = 0;
  let done: () => void = () => {};
  const twoAfterFailure = new Promise<void>((resolve) => done = resolve);
  const stop = backgroundTicks(15, () => {
    ticks++;
    if (ticks === 1) throw new Error("busy");
    if (ticks === 3) done();
  }, (error) => errors.push(error));
  try {
    assertEquals(await within5s(twoAfterFailure), "ticked");
    assertEquals(errors.length, 1);
    assertEquals((errors[0] as Error).message, "busy");
  } finally {
    stop();
  }
});

Deno.test("a process with only the ticks pending ends at once", async () => {
  const module = new URL("../../src/lib/background_ticks.ts", import.meta.url).href;
  const script = `import { backgroundTicks } from "${module}";
backgroundTicks(60_000, () => console.log("tick"));
console.log("armed");`;
  const started = performance.now();
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["eval", "--no-config", script],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const ms = performance.now() - started;
  assertEquals(new TextDecoder().decode(output.stderr), "");
  assertEquals(new TextDecoder().decode(output.stdout), "armed\n");
  assert(output.success);
  assert(ms < 30_000, `ended after ${ms.toFixed(0)} ms; the 60 s wait kept it alive`);
});

Deno.test("a background timeout fires once, on time; a cancelled one never", async () => {
  const started = performance.now();
  let fired = 0;
  let done: () => void = () => {};
  const firing = new Promise<void>((resolve) => done = resolve);
  backgroundTimeout(40, () => {
    fired++;
    done();
  });
  let cancelledFired = false;
  const cancel = backgroundTimeout(20, () => cancelledFired = true);
  cancel();
  cancel(); // twice is harmless
  assertEquals(await within5s(firing), "ticked");
  const waited = performance.now() - started;
  assert(waited >= 35, `fired after ${waited.toFixed(1)} ms, before its 40`);
  await sleep(60);
  assertEquals(fired, 1);
  assertEquals(cancelledFired, false);
});
