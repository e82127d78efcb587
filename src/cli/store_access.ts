/**
 * The one way a command reaches the session store: the data folder this
 * environment names, opened for the work and closed after it, also when the
 * work fails. A folder or database that cannot be opened is a `StoreError`
 * that says what to do (src/store/data_dir.ts, src/store/store.ts), which
 * the command's `reportFatal` prints.
 */
import { resolveDataDir } from "../store/data_dir.ts";
import { openStore, type Store } from "../store/store.ts";

/**
 * The data folder of this environment: `$SKIFF_DATA_DIR`, else
 * `$XDG_DATA_HOME/skiff`, else `~/.local/share/skiff`.
 */
export function commandDataDir(): string {
  return resolveDataDir(Deno.env.toObject());
}

/**
 * Runs `work` with the store open and closes it once `work` is done (when
 * its promise settles, if it returns one). `dataDir` is this environment's
 * unless given (a chat passes its session's). Needs `--allow-env`, and
 * `--allow-read` and `--allow-write` on the data folder.
 */
export function withStore<T>(
  work: (store: Store, dataDir: string) => T,
  dataDir: string = commandDataDir(),
): T {
  const store = openStore(dataDir);
  let result: T;
  try {
    result = work(store, dataDir);
  } catch (error) {
    store.close();
    throw error;
  }
  if (result instanceof Promise) return result.finally(() => store.close()) as T;
  store.close();
  return result;
}

/** What a command says of a session id the store does not hold, and where the ids are listed. */
export function noSuchSession(id: string): string {
  return `no session "${id}". List them with: skiff sessions list --all`;
}
