/**
 * `deno task bench`'s phase line (scripts/bench.ts): the terminal side's
 * marks as lengths from the mark before, the engine Worker's (`worker:…`)
 * as times since the start, never subtracted from the terminal side's.
 */
import { assertEquals } from "../support/assert.ts";
import { parseTimings, phaseLine } from "../../scripts/bench.ts";

Deno.test("phaseLine: the Worker's marks are medians since the start, apart from the phases", () => {
  const runs = [
    "skiff timings: bundle=40 config=70 exit=100 worker:init=75 worker:session-open=90",
    "skiff timings: bundle=44 config=80 exit=110 worker:init=85 worker:session-open=96",
    "skiff timings: bundle=42 config=72 exit=104 worker:init=79 worker:session-open=92",
  ].map(parseTimings);
  assertEquals(
    phaseLine(runs, 30).split("\n"),
    [
      "  phases (ms, median; each from the previous mark): runtime ~30, bundle 42, config 30, exit 30",
      "  the Worker's marks (ms since the start, median): init 79, session-open 92",
    ],
  );
});

Deno.test("phaseLine: a start without Worker marks prints the phases alone", () => {
  const runs = [parseTimings("skiff timings: bundle=40 exit=90")];
  assertEquals(
    phaseLine(runs, 30),
    "  phases (ms, median; each from the previous mark): runtime ~30, bundle 40, exit 50",
  );
});
