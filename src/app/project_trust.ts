/**
 * A project config file arrives with the repository, so it is not trusted to
 * widen what skiff may do on the user's machine. It may tighten anything and
 * choose models and rules inside the sandbox, but these need the user's own
 * word (global config, environment or a flag):
 * - `sandbox.mode: "full-access"` and `sandbox.network: true`;
 * - `sandbox.addDirs` outside the project;
 * - `sandbox.env`: passing the user's environment variables to commands;
 * - sending the user's API key to a `provider.baseURL` the project chose.
 */
import * as path from "node:path";
import type { Config } from "../config/schema.ts";
import { isWithin } from "../sandbox/paths.ts";

export interface TrustInput {
  /** The merged config. */
  config: Config;
  /** The project file's own content, when there is one. */
  project?: { file: string; root: string; config: Config };
  /** What the user said themselves: global config, environment, flags. */
  user: {
    mode?: string;
    network?: boolean;
    baseURL?: string;
    apiKeyFromProject: boolean;
    /** `sandbox.env` names from the global config. */
    envNames?: string[];
  };
}

export interface TrustResult {
  config: Config;
  /** True when the API key must not be sent to this base URL. */
  withholdApiKey: boolean;
  warnings: string[];
}

export function limitProjectConfig(input: TrustInput): TrustResult {
  const { project, user } = input;
  const config: Config = structuredClone(input.config);
  const warnings: string[] = [];
  if (!project) return { config, withholdApiKey: false, warnings };
  const projectSandbox = project.config.sandbox ?? {};
  const file = project.file;

  if (projectSandbox.mode === "full-access" && user.mode !== "full-access") {
    const mode = (user.mode ?? "workspace-write") as NonNullable<Config["sandbox"]>["mode"];
    config.sandbox = { ...config.sandbox, mode };
    warnings.push(
      `${file} asks for sandbox mode full-access; ignored (running ${mode}). A project file cannot lift the sandbox: pass --sandbox full-access or set it in your global config.`,
    );
  }
  if (projectSandbox.network === true && user.network !== true) {
    config.sandbox = { ...config.sandbox, network: false };
    warnings.push(
      `${file} turns on network access for commands; ignored. Set sandbox.network in your global config to allow it.`,
    );
  }
  if (projectSandbox.addDirs?.length) {
    const outside = projectSandbox.addDirs
      .map((dir) => path.resolve(project.root, dir))
      .filter((dir) => !isWithin(project.root, dir));
    if (outside.length) {
      config.sandbox = {
        ...config.sandbox,
        addDirs: (config.sandbox?.addDirs ?? []).filter((dir) =>
          !outside.includes(path.resolve(project.root, dir))
        ),
      };
      warnings.push(
        `${file} adds folders outside the project (${
          outside.join(", ")
        }); ignored. Use --add-dir to allow them.`,
      );
    }
  }
  // A database URL or a cloud key in the user's environment is not the
  // project's to hand to commands (whose output the model reads).
  const untrustedEnv = (projectSandbox.env ?? []).filter(
    (name) => !(user.envNames ?? []).includes(name),
  );
  if (untrustedEnv.length) {
    config.sandbox = {
      ...config.sandbox,
      env: (config.sandbox?.env ?? []).filter((name) => !untrustedEnv.includes(name)),
    };
    warnings.push(
      `${file} passes environment variables to commands (${
        untrustedEnv.join(", ")
      }); ignored. List them in sandbox.env of your global config to allow it.`,
    );
  }
  const projectBaseURL = project.config.provider?.baseURL;
  const withholdApiKey = projectBaseURL !== undefined &&
    config.provider?.baseURL === projectBaseURL &&
    user.baseURL !== projectBaseURL &&
    !user.apiKeyFromProject &&
    config.provider?.apiKey !== undefined;
  if (withholdApiKey) {
    warnings.push(
      `${file} points the provider at ${projectBaseURL}; your API key is not sent there. Set OPENAI_BASE_URL or provider.baseURL in your global config to trust it.`,
    );
  }
  return { config, withholdApiKey, warnings };
}
