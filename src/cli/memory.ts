/**
 * `skiff memory list|show|rm|export`: the harness memory of this workspace
 * (or repository) is the user's data — what sessions remembered (m<id>) and
 * recorded (h<id>) can be read, deleted and exported here. `--all` widens
 * list and export to every workspace.
 */
import { withStore } from "./store_access.ts";
import type { HarnessRecord, MemoryEntry, MemoryPlace } from "../store/memory.ts";
import { resolveWorkspace } from "../host/setup.ts";
import { changedSince, handoffPacketText, memoryPlace } from "../tools/session/mod.ts";
import { writeAll } from "../ui/jsonl.ts";
import { neutraliseControls } from "../ui/safe_text.ts";
import { ExitCode, UsageError } from "./exit_codes.ts";
import { reportFatal } from "./report_fatal.ts";

export interface MemoryOptions {
  dir?: string;
  all?: boolean;
  json?: boolean;
}

type Ref = { table: "memory" | "record"; id: number };

/** "m12" is a remembered entry, "h7" a harness record. */
export function parseMemoryRef(text: string): Ref {
  const match = /^([mh])(\d+)$/.exec(text.trim());
  if (!match) {
    throw new UsageError(
      `'${text}' is not a memory id: use m<number> for a remembered entry or h<number> for a record, as skiff memory list shows them.`,
    );
  }
  return { table: match[1] === "m" ? "memory" : "record", id: Number(match[2]) };
}

const when = (ms: number) => new Date(ms).toISOString().slice(0, 16).replace("T", " ");
const print = (text: string) => writeAll(Deno.stdout, neutraliseControls(text) + "\n");

function entryLine(entry: MemoryEntry): string {
  const stale = changedSince(entry.scope, entry.files, entry.updated).length ? " (stale)" : "";
  return `m${entry.id}  ${when(entry.updated)}  ${entry.kind}: ${entry.subject}${stale}`;
}

function recordLine(record: HarnessRecord): string {
  return `h${record.id}  ${when(record.created)}  ${record.kind}: ${record.summary}`;
}

function placeOf(options: MemoryOptions): MemoryPlace | undefined {
  return options.all ? undefined : memoryPlace(resolveWorkspace(options.dir));
}

export function memoryList(options: MemoryOptions): number {
  try {
    const place = placeOf(options);
    return withStore((store) => {
      const entries = store.memory.memories(place, 1000);
      const records = store.memory.records(place, { limit: 1000 });
      const legacy = place ? store.memory.legacyMemories(place) : { memories: [], records: [] };
      if (options.json) {
        print(JSON.stringify(
          {
            scope: place?.root ?? null,
            repository: place?.repository ?? null,
            memories: entries,
            records,
            notShown: legacy,
          },
          null,
          2,
        ));
        return ExitCode.ok;
      }
      if (entries.length) print(["Remembered:", ...entries.map(entryLine)].join("\n"));
      if (records.length) print(["Records:", ...records.map(recordLine)].join("\n"));
      if (legacy.memories.length || legacy.records.length) {
        print(
          [
            `Not shown to sessions: stored for ${
              place!.root
            } by an older skiff, before memory was ` +
            "kept per repository, and the repository there now is newer than them (or its creation " +
            "time is unknown), so they may be another checkout's. Read them with skiff memory show; " +
            "delete them with skiff memory rm.",
            ...legacy.memories.map(entryLine),
            ...legacy.records.map(recordLine),
          ].join("\n"),
        );
      } else if (!entries.length && !records.length) {
        print(`Nothing remembered${place ? ` for ${place.root}` : ""}.`);
      }
      return ExitCode.ok;
    });
  } catch (error) {
    return reportFatal(error);
  }
}

export function memoryShow(id: string, options: MemoryOptions): number {
  try {
    const ref = parseMemoryRef(id);
    return withStore((store) => {
      const found = ref.table === "memory"
        ? store.memory.memory(ref.id)
        : store.memory.harnessRecord(ref.id);
      if (!found) {
        throw new UsageError(`no ${id} in the store; skiff memory list --all shows every id.`);
      }
      if (options.json) {
        print(JSON.stringify(found, null, 2));
      } else if ("subject" in found) {
        const changed = changedSince(found.scope, found.files, found.updated);
        print(
          [
            entryLine(found),
            `scope: ${found.scope}`,
            `learned: ${when(found.created)}${found.commit ? ` at commit ${found.commit}` : ""}`,
            found.files.length ? `files: ${found.files.join(", ")}` : "",
            changed.length ? `stale: ${changed.join(", ")} changed since` : "",
            "",
            found.body,
          ].filter((line, i) => line !== "" || i === 5).join("\n"),
        );
      } else {
        print(
          [
            recordLine(found),
            `scope: ${found.scope}`,
            found.sessionId ? `session: ${found.sessionId}` : "",
            found.commitSha ? `commit: ${found.commitSha}` : "",
            found.command ? `command: ${found.command}` : "",
            found.sourcePaths.length ? `paths: ${found.sourcePaths.join(", ")}` : "",
            found.evidenceRefs.length ? `evidence: ${found.evidenceRefs.join(", ")}` : "",
            `importance: ${found.importance}`,
            "",
            (found.kind === "handoff" ? handoffPacketText(found) : null) ?? found.details ?? "",
          ].filter((line, i) => line !== "" || i === 8).join("\n"),
        );
      }
      return ExitCode.ok;
    });
  } catch (error) {
    return reportFatal(error);
  }
}

export function memoryRemove(ids: string[]): number {
  try {
    const refs = ids.map(parseMemoryRef);
    return withStore((store) => {
      let missing = 0;
      for (const [index, ref] of refs.entries()) {
        const gone = ref.table === "memory"
          ? store.memory.deleteMemory(ref.id)
          : store.memory.deleteRecord(ref.id);
        if (gone) print(`deleted ${ids[index]}`);
        else {
          console.error(
            `skiff: no ${ids[index]} in the store (skiff memory list --all shows every id).`,
          );
          missing++;
        }
      }
      return missing ? ExitCode.failed : ExitCode.ok;
    });
  } catch (error) {
    return reportFatal(error);
  }
}

/** Everything of the scope (or of every scope with --all) as one JSON document. */
export function memoryExport(options: MemoryOptions): number {
  try {
    const place = placeOf(options);
    return withStore((store) => {
      const legacy = place ? store.memory.legacyMemories(place) : { memories: [], records: [] };
      print(JSON.stringify(
        {
          exported: new Date().toISOString(),
          scope: place?.root ?? null,
          repository: place?.repository ?? null,
          memories: [...store.memory.memories(place, 100_000), ...legacy.memories],
          records: [...store.memory.records(place, { limit: 100_000 }), ...legacy.records],
        },
        null,
        2,
      ));
      return ExitCode.ok;
    });
  } catch (error) {
    return reportFatal(error);
  }
}
