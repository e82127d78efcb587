/**
 * Asking a server for a file's diagnostics instead of waiting for it to
 * publish them: with LSP's `textDocument/diagnostic` where the server offers
 * it, or, for typescript-language-server (which offers no such request), with
 * tsserver's own synchronous diagnostics through the server's
 * `typescript.tsserverRequest` command. An answer is about the text sent
 * last, so no quiet window and no guess about the server's own delay.
 */
import type { MessageConnection } from "vscode-jsonrpc/node";
import type {
  Diagnostic,
  DiagnosticSeverity,
  DocumentDiagnosticReport,
  ServerCapabilities,
} from "vscode-languageserver-protocol";
import type { ServerDefinition } from "./servers.ts";

/** How a server can be asked: LSP's request, tsserver's through its command, or not at all. */
export type PullKind = "lsp" | "tsserver";

const TSSERVER_COMMAND = "typescript.tsserverRequest";

/** How `capabilities` (the `initialize` answer) let `definition`'s server be asked, if at all. */
export function pullKindOf(
  definition: ServerDefinition,
  capabilities: ServerCapabilities | undefined,
): PullKind | undefined {
  if (capabilities?.diagnosticProvider || definition.pull === "lsp") return "lsp";
  const commands = capabilities?.executeCommandProvider?.commands ?? [];
  if (definition.pull === "tsserver" && commands.includes(TSSERVER_COMMAND)) return "tsserver";
  return undefined;
}

/**
 * The diagnostics of `uri` as the server has them now; throws when the
 * answer is not one (an error, a cancelled or empty tsserver response), so
 * the caller falls back to what the server publishes.
 */
export async function pullDiagnostics(
  connection: MessageConnection,
  kind: PullKind,
  uri: string,
): Promise<Diagnostic[]> {
  if (kind === "lsp") {
    const report: DocumentDiagnosticReport = await connection.sendRequest(
      "textDocument/diagnostic",
      { textDocument: { uri } },
    );
    if (report?.kind !== "full" || !Array.isArray(report.items)) {
      throw new Error("the server answered without a full report");
    }
    return report.items;
  }
  const ask = (command: string) =>
    connection.sendRequest("workspace/executeCommand", {
      command: TSSERVER_COMMAND,
      arguments: [command, { file: uri }],
    });
  // Both go out at once; the server answers them in order.
  const [syntactic, semantic] = await Promise.all([
    ask("syntacticDiagnosticsSync"),
    ask("semanticDiagnosticsSync"),
  ]);
  return [...tsserverDiagnostics(syntactic), ...tsserverDiagnostics(semantic)];
}

/** tsserver's diagnostic as its protocol writes it (1-based line and offset). */
interface TsserverDiagnostic {
  start: { line: number; offset: number };
  end: { line: number; offset: number };
  text: string;
  code?: number;
  category?: string;
  source?: string;
}

const SEVERITY: Record<string, DiagnosticSeverity> = {
  error: 1,
  warning: 2,
  message: 3,
  suggestion: 4,
};

/** A tsserver response's diagnostics in LSP's shape; throws when it carries none. */
export function tsserverDiagnostics(response: unknown): Diagnostic[] {
  const body = response as { success?: boolean; body?: unknown } | null | undefined;
  if (!body || body.success === false || !Array.isArray(body.body)) {
    throw new Error("tsserver gave no diagnostics for the file");
  }
  return (body.body as TsserverDiagnostic[]).map((diagnostic) => ({
    range: {
      start: { line: diagnostic.start.line - 1, character: diagnostic.start.offset - 1 },
      end: { line: diagnostic.end.line - 1, character: diagnostic.end.offset - 1 },
    },
    message: diagnostic.text,
    severity: SEVERITY[diagnostic.category ?? "error"] ?? 1,
    code: diagnostic.code,
    source: diagnostic.source ?? "typescript",
  }));
}

/** An answer asked for one version of a file: pending, then its diagnostics (undefined: failed). */
interface Asked {
  version: number;
  answer: Promise<Diagnostic[] | undefined>;
  diagnostics?: Diagnostic[];
}

/** One server's answers when asked: once per version of a file, the latest version's kept. */
export class DiagnosticsAsker {
  readonly kind: PullKind;
  #connection: MessageConnection;
  #answered: () => void;
  #asked = new Map<string, Asked>();

  /** `answered` is called at each answer, an error included. */
  constructor(connection: MessageConnection, kind: PullKind, answered: () => void) {
    this.#connection = connection;
    this.kind = kind;
    this.#answered = answered;
  }

  /** The diagnostics of `version` of `uri`, asked once per version; null when asking failed. */
  ask(uri: string, version: number): Promise<Diagnostic[] | null> {
    let asked = this.#asked.get(uri);
    if (asked?.version !== version) {
      const entry: Asked = {
        version,
        answer: pullDiagnostics(this.#connection, this.kind, uri).then(
          (diagnostics) => {
            this.#answered();
            entry.diagnostics = diagnostics;
            return diagnostics;
          },
          () => {
            this.#answered();
            return undefined;
          },
        ),
      };
      asked = entry;
      this.#asked.set(uri, entry);
    }
    return asked.answer.then((diagnostics) => diagnostics ?? null);
  }

  /** The answer about `version` of `uri`, when it has come. */
  answered(uri: string, version: number): Diagnostic[] | undefined {
    const asked = this.#asked.get(uri);
    return asked?.version === version ? asked.diagnostics : undefined;
  }
}
