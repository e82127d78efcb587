/**
 * `skiff doctor`: what works on this machine. Which OS sandbox backend runs
 * commands here and why the others do not (each is probed with a tiny
 * command), the shell commands get, the Deno, bubblewrap and ripgrep
 * versions, the config and data folders, and whether the endpoint answers
 * (a short timeout; how to configure it when it does not). With `--model`,
 * what the endpoint does with that model and what skiff will do about it
 * (doctor_model.ts). It ends with what a run needs (a config that loads, a
 * model, a key where the endpoint needs one, an endpoint that answers and
 * takes the key, a sandbox backend), each with what to do: exit 0 when
 * every one holds, 1 otherwise. A broken config is one failed check among
 * the others, which are then made with the environment alone.
 */
import { loadConfig, type LoadedConfig } from "../../config/load.ts";
import { ConfigError } from "../../config/errors.ts";
import { DEFAULT_BASE_URL, endpointNeedsKey } from "../../host/setup.ts";
import { applyProjectTrust, isProjectTrusted } from "../../trust/project_trust.ts";
import { type AvailableSandboxes, probeSandboxes } from "../../sandbox/choose.ts";
import type { LandlockProbeCache } from "../../sandbox/landlock/probe_cache.ts";
import { landlockProbeKey } from "../../sandbox/landlock/probe_key.ts";
import { commandShell } from "../../sandbox/shell.ts";
import { endpointHeaders } from "../../provider/auth_headers.ts";
import { resolveDataDir } from "../../store/data_dir.ts";
import { neutraliseControls } from "../../ui/safe_text.ts";
import { VERSION } from "../../version.ts";
import { ExitCode } from "../exit_codes.ts";
import { output } from "../../lib/spawn.ts";
import { BUNDLE_DIR, BUNDLE_ROOT_PATH, type BundleState, bundleState } from "../../boot/bundle.ts";
import { reportFatal } from "../report_fatal.ts";
import { gapLines, readPtraceScope } from "./doctor_gaps.ts";
import { type ModelFacts, modelLines, modelWouldFail } from "./doctor_model.ts";
import { probeEndpoint } from "../../provider/endpoint_probe.ts";
import { resolveModelLimits } from "../../provider/model_limits.ts";
import { modelDialect } from "../../provider/dialects/model_dialect.ts";

/** Everything the report says, gathered first so the report itself is pure. */
export interface DoctorFacts {
  platform: typeof Deno.build.os;
  sandboxes: AvailableSandboxes;
  /** `sandbox.backend` as configured (flag, environment, config), or "auto". */
  backend: string;
  shell: string;
  versions: { deno: string; bwrap: string | null; rg: string | null };
  configDir: string;
  dataDir: string;
  baseURL: string;
  /** How the endpoint answered: an HTTP status, or why it did not. */
  endpoint: { status: number } | { error: string };
  /** Which code runs (the CLI and the engine's Worker): the bundle, or the sources and why. */
  code: { state: BundleState; optedOut: boolean; standalone: boolean; root: string };
  /** The user skiff runs as (0: root); null where there is none (Windows). */
  uid?: number | null;
  /** Yama's `ptrace_scope`; null where the kernel has no Yama. */
  ptraceScope?: number | null;
  /** `--model`: what the endpoint does with that model. */
  model?: ModelFacts;
  /** What a run needs besides the sandbox; absent in facts made by hand (tests of other parts). */
  needs?: RunNeeds;
}

/** What a run needs that the config and the environment give. */
export interface RunNeeds {
  /** The config's problem (a file that does not parse, a wrong value), else undefined. */
  configError?: string;
  /** The model a run would use (`--model`, else the config's), if any. */
  model?: string;
  /** Whether a key is set (OPENAI_API_KEY or provider.apiKey). */
  keySet: boolean;
  /** Whether the endpoint needs one: the hosted default does; a local server need not. */
  keyNeeded: boolean;
}

/** One line of "What a run needs": whether it holds, and what to do when it does not. */
interface Check {
  ok: boolean;
  text: string;
}

export interface DoctorDeps {
  probe?: () => Promise<AvailableSandboxes>;
  /** The first line a program prints for `--version`, or null when it cannot run. */
  version?: (program: string) => Promise<string | null>;
  fetch?: typeof fetch;
  env?: Record<string, string | undefined>;
  /** @default 3000 */
  timeoutMs?: number;
  /** Probe this model at the endpoint (`--model`). */
  model?: string;
}

async function firstVersionLine(program: string): Promise<string | null> {
  try {
    const result = await output(program, { args: ["--version"], stderr: "null" });
    if (!result.success) return null;
    return new TextDecoder().decode(result.stdout).split("\n")[0].trim() || null;
  } catch {
    return null;
  }
}

/** The one-line verdict per backend: works, or why not. */
export function backendLines(facts: DoctorFacts): string[] {
  const { sandboxes, platform } = facts;
  if (platform === "darwin") {
    return [`  sandbox-exec: ${sandboxes.sandboxExec ? "works" : "does not work here"}`];
  }
  if (platform !== "linux") return [`  none: no process sandbox is supported on ${platform}`];
  return [
    sandboxes.bwrap
      ? `  bwrap:    works (${sandboxes.bwrap})`
      : `  bwrap:    does not work: ${sandboxes.reasons?.bwrap ?? "not found"}`,
    sandboxes.landlock
      ? `  landlock: works (kernel ABI ${sandboxes.landlock})`
      : `  landlock: does not work: ${sandboxes.reasons?.landlock ?? "not probed"}`,
  ];
}

/** Which backend a run would use with the configured choice. */
export function chosenBackend(facts: DoctorFacts): string {
  const { sandboxes, backend } = facts;
  const works = { bwrap: !!sandboxes.bwrap, landlock: !!sandboxes.landlock };
  if (facts.platform === "darwin") return sandboxes.sandboxExec ? "sandbox-exec" : "none";
  if (backend === "bwrap" || backend === "landlock") {
    return works[backend]
      ? backend
      : `none: '${backend}' is forced (sandbox.backend) and does not work here`;
  }
  return works.bwrap ? "bwrap" : works.landlock ? "landlock" : "none";
}

/** The code's line: the bundle, or the sources and how to build the bundle. */
export function codeLine(code: DoctorFacts["code"]): string {
  const build = `\`cd ${code.root} && deno task build\``;
  if (code.optedOut) return "from the sources (SKIFF_BUNDLE=0)";
  const state = code.state;
  if (state.kind === "fresh") {
    return code.standalone ? "bundled (in this binary)" : `bundled (${code.root}/${BUNDLE_DIR})`;
  }
  if (state.kind === "stale") {
    return `from the sources: the bundle is stale (${state.reason}); ${build} rebuilds it`;
  }
  return `from the sources: not built; ${build} makes each start faster (docs/performance.md)`;
}

/** What a run needs, one check each, each failing one saying what to do. */
export function readinessChecks(facts: DoctorFacts): Check[] {
  const needs = facts.needs;
  const checks: Check[] = [];
  if (needs) {
    checks.push(
      needs.configError === undefined
        ? { ok: true, text: "config: loads" }
        : { ok: false, text: `config: ${needs.configError.replaceAll("\n", " ")}` },
      needs.model ? { ok: true, text: `model: ${needs.model}` } : {
        ok: false,
        text: 'model: none set. Pass --model <name>, set SKIFF_MODEL, or put "provider": ' +
          `{"model": "…"} in ${facts.configDir}/config.json`,
      },
      needs.keySet ? { ok: true, text: "API key: set" } : needs.keyNeeded
        ? {
          ok: false,
          text: `API key: none, and ${facts.baseURL} needs one. Set OPENAI_API_KEY, or point ` +
            "OPENAI_BASE_URL / provider.baseURL at a local server",
        }
        : { ok: true, text: `API key: none (${facts.baseURL} may need none)` },
    );
  }
  const status = "status" in facts.endpoint ? facts.endpoint.status : undefined;
  checks.push(
    status === undefined
      ? { ok: false, text: "endpoint: does not answer (see Endpoint above)" }
      : status === 401 || status === 403
      ? {
        ok: false,
        text: `endpoint: refuses the key (HTTP ${status}). Check OPENAI_API_KEY or provider.apiKey`,
      }
      : { ok: true, text: `endpoint: answers (HTTP ${status})` },
  );
  const chosen = chosenBackend(facts);
  checks.push(
    chosen.startsWith("none")
      ? { ok: false, text: "sandbox: no backend works; commands are refused (see above)" }
      : { ok: true, text: `sandbox: ${chosen}` },
  );
  if (facts.model) {
    const fails = modelWouldFail(facts.model);
    checks.push({
      ok: !fails,
      text: `--model ${facts.model.id}: ${fails ? "would fail (see Model above)" : "works"}`,
    });
  }
  return checks;
}

/** The report's last section: each check, and whether skiff can run here. */
function readinessLines(facts: DoctorFacts): string[] {
  const checks = readinessChecks(facts);
  const failed = checks.filter((check) => !check.ok).length;
  return [
    "What a run needs:",
    ...checks.map((check) => `  ${check.ok ? "ok  " : "FAIL"} ${check.text}`),
    failed === 0
      ? "skiff can run here."
      : `skiff cannot run here yet: ${failed} of ${checks.length} checks failed (FAIL above).`,
  ];
}

export function doctorReport(facts: DoctorFacts): string[] {
  const chosen = chosenBackend(facts);
  const endpoint = "status" in facts.endpoint
    ? `answers (HTTP ${facts.endpoint.status})`
    : `does not answer (${facts.endpoint.error}). Set OPENAI_BASE_URL or provider.baseURL ` +
      "in the config to your endpoint, e.g. http://localhost:11434/v1";
  return [
    `skiff ${VERSION}`,
    "",
    "Sandbox backends (each probed with a tiny command):",
    ...backendLines(facts),
    `  commands run with: ${chosen}${
      chosen.startsWith("none")
        ? " (commands are refused; " +
          "see docs/security.md, or --sandbox full-access to run them unsandboxed)"
        : ""
    }`,
    `  sandbox.backend: ${facts.backend}`,
    `  shell: ${facts.shell}`,
    ...(facts.platform === "linux"
      ? [
        "",
        "Not covered here (docs/security.md):",
        ...gapLines({
          chosen,
          landlockAbi: facts.sandboxes.landlock ?? 0,
          uid: facts.uid ?? null,
          ptraceScope: facts.ptraceScope ?? null,
        }),
      ]
      : []),
    "",
    "Versions:",
    `  deno: ${facts.versions.deno}`,
    `  code: ${codeLine(facts.code)}`,
    `  bwrap: ${facts.versions.bwrap ?? "not installed"}`,
    `  rg: ${facts.versions.rg ?? "not installed (grep uses its built-in search)"}`,
    "",
    "Folders:",
    `  config: ${facts.configDir}`,
    `  data: ${facts.dataDir}`,
    "",
    `Endpoint ${facts.baseURL}: ${endpoint}`,
    ...(facts.model ? ["", ...modelLines(facts.model)] : []),
    "",
    ...readinessLines(facts),
  ];
}

function doctorCache(env: Record<string, string | undefined>): LandlockProbeCache | undefined {
  const key = landlockProbeKey();
  return key ? { dataDir: resolveDataDir(env), key } : undefined;
}

export async function gatherFacts(deps: DoctorDeps = {}): Promise<DoctorFacts> {
  const env = deps.env ?? Deno.env.toObject();
  const workspace = Deno.cwd();
  const { loaded, configError } = await loadOrReport(workspace, env);
  // The endpoint a session here would use, and the key it would send: the
  // user's key never goes to a base URL an untrusted project chose.
  const { config } = applyProjectTrust(loaded, isProjectTrusted(loaded, workspace));
  const baseURL = (config.provider?.baseURL ?? DEFAULT_BASE_URL).replace(/\/+$/, "");
  const version = deps.version ?? firstVersionLine;
  const [sandboxes, bwrap, rg] = await Promise.all([
    // Always probes afresh, and refreshes the answer sessions reuse (sandbox/landlock/probe_cache.ts).
    (deps.probe ??
      (() => probeSandboxes(Deno.build.os, undefined, undefined, "all", doctorCache(env))))(),
    version("bwrap"),
    version("rg"),
  ]);
  const apiKey = config.provider?.apiKey;
  const needs: RunNeeds = {
    ...(configError === undefined ? {} : { configError }),
    model: deps.model ?? config.provider?.model,
    keySet: !!apiKey,
    keyNeeded: endpointNeedsKey(baseURL),
  };
  let endpoint: DoctorFacts["endpoint"];
  try {
    const response = await (deps.fetch ?? fetch)(`${baseURL}/models`, {
      // As a session sends it: a bearer token, or Azure's api-key, and provider.headers.
      headers: endpointHeaders({ ...config.provider, baseURL, apiKey }),
      signal: AbortSignal.timeout(deps.timeoutMs ?? 3000),
    });
    await response.body?.cancel();
    endpoint = { status: response.status };
  } catch (error) {
    const name = (error as Error).name;
    endpoint = {
      error: name === "TimeoutError" ? "no answer within the timeout" : (error as Error).message,
    };
  }
  const model = deps.model
    ? await probeModel(deps.model, baseURL, apiKey, config, deps.fetch)
    : undefined;
  return {
    ...(model ? { model } : {}),
    needs,
    platform: Deno.build.os,
    sandboxes,
    backend: env.SKIFF_SANDBOX_BACKEND || loaded.config.sandbox?.backend || "auto",
    shell: commandShell().program,
    versions: { deno: Deno.version.deno, bwrap, rg },
    configDir: loaded.configDir,
    dataDir: resolveDataDir(env),
    baseURL,
    endpoint,
    code: {
      state: bundleState(),
      optedOut: env.SKIFF_BUNDLE === "0",
      standalone: Deno.build.standalone,
      root: BUNDLE_ROOT_PATH,
    },
    uid: Deno.uid(),
    ptraceScope: readPtraceScope(),
  };
}

/**
 * The config, or its problem and the config the environment alone gives: the
 * other checks are still made (a typo is one failed check, not the end of
 * the report).
 */
async function loadOrReport(
  workspace: string,
  env: Record<string, string | undefined>,
): Promise<{ loaded: LoadedConfig; configError?: string }> {
  try {
    return { loaded: await loadConfig({ workspace, env }) };
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    const noFiles = () => Promise.reject(new Deno.errors.NotFound("not read"));
    try {
      return {
        loaded: await loadConfig({ workspace, env, readTextFile: noFiles }),
        configError: error.message,
      };
    } catch {
      // The environment itself is wrong (a malformed OPENAI_BASE_URL): nothing else to go on.
      const clean = Object.fromEntries(
        Object.entries(env).filter(([name]) => !/^(OPENAI_|SKIFF_MODEL$)/.test(name)),
      );
      return {
        loaded: await loadConfig({ workspace, env: clean, readTextFile: noFiles }),
        configError: error.message,
      };
    }
  }
}

/** What the endpoint does with `id`, and the settings skiff would use for it. */
async function probeModel(
  id: string,
  baseURL: string,
  apiKey: string | undefined,
  config: Awaited<ReturnType<typeof loadConfig>>["config"],
  fetch?: typeof globalThis.fetch,
): Promise<ModelFacts> {
  // The key as a session sends it (a bearer token, or Azure's api-key), and provider.headers.
  const headers = endpointHeaders({ ...config.provider, baseURL, apiKey });
  const probe = await probeEndpoint({ baseURL, model: id, headers, fetch });
  const limits = resolveModelLimits(id, config.models);
  return {
    id,
    probe,
    ...modelDialect(id, baseURL, config.provider?.models),
    assumedContext: { tokens: limits.context, source: limits.source },
  };
}

export async function doctorCommand(deps: DoctorDeps = {}): Promise<number> {
  try {
    const facts = await gatherFacts(deps);
    // Reasons and URLs come from outside: shown, not obeyed.
    const text = doctorReport(facts).map((line) => neutraliseControls(line)).join("\n") + "\n";
    await Deno.stdout.write(new TextEncoder().encode(text));
    return readinessChecks(facts).every((check) => check.ok) ? ExitCode.ok : ExitCode.failed;
  } catch (error) {
    return reportFatal(error);
  }
}
