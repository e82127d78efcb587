/**
 * A folder's entries, or none when it cannot be read (missing, not a folder,
 * no permission): the protected-path searches treat all of these alike.
 */
export function dirEntriesOrNone(folder: string): Deno.DirEntry[] {
  try {
    return [...Deno.readDirSync(folder)];
  } catch {
    return [];
  }
}

/** What one listing of a path's folder tells about the path. */
export type Presence = "absent" | "listed" | "unknown";

/** One folder's names as `presenceOf` compares them. */
interface Listing {
  names: Set<string>;
  /** Some name holds a non-ASCII character. */
  nonAscii: boolean;
}

/** Each folder's listing (null: could not be listed), for one caller's checks in a row. */
export type Listings = Map<string, Listing | null>;

/**
 * Whether `target` (absolute) exists, as far as a listing of its folder
 * tells, so a caller can skip the lstat of a missing path: Deno builds an
 * error object for each failed call, about ten times the cost of a
 * successful one, and the protected-path checks ask about a dozen mostly
 * missing paths around every command (docs/performance.md).
 *
 * `absent` only when the folder was listed and none of its names could be
 * `target`'s: names are compared ignoring ASCII case, and a folder holding
 * a non-ASCII name, or a non-ASCII `target`, answers `unknown` (a
 * case-insensitive filesystem finds `.Claude` for `.claude`, and folds
 * more than ASCII); also when a listing already kept in `listings` says
 * the folder itself is absent. `listed`: the exact name is there.
 * `unknown` (the folder cannot be listed: missing, no read permission, not
 * a folder): the caller asks the filesystem as before. `listings` is the
 * caller's, kept for one search only, never across commands.
 */
export function presenceOf(target: string, listings: Listings = new Map()): Presence {
  const slash = target.lastIndexOf("/");
  if (slash < 0 || slash === target.length - 1) return "unknown";
  const folder = target.slice(0, slash) || "/";
  const name = target.slice(slash + 1);
  // A listing never holds these, and they always exist.
  if (name === "." || name === "..") return "unknown";
  if (!listings.has(folder) && cachedPresence(folder, listings) === "absent") return "absent";
  let listing = listings.get(folder);
  if (listing === undefined) {
    listing = listFolder(folder);
    listings.set(folder, listing);
  }
  return judge(name, listing);
}

/** The presence of `target` from listings already kept only; `unknown` when none is. */
function cachedPresence(target: string, listings: Listings): Presence {
  const slash = target.lastIndexOf("/");
  if (slash <= 0) return "unknown";
  const folder = target.slice(0, slash);
  const listing = listings.get(folder);
  if (listing === undefined) {
    return cachedPresence(folder, listings) === "absent" ? "absent" : "unknown";
  }
  return judge(target.slice(slash + 1), listing);
}

function listFolder(folder: string): Listing | null {
  const names = new Set<string>();
  try {
    for (const entry of Deno.readDirSync(folder)) names.add(entry.name);
  } catch {
    return null;
  }
  // deno-lint-ignore no-control-regex
  return { names, nonAscii: /[^\x00-\x7f]/.test([...names].join("")) };
}

function judge(name: string, listing: Listing | null): Presence {
  if (listing === null) return "unknown";
  if (listing.names.has(name)) return "listed";
  // deno-lint-ignore no-control-regex
  if (listing.nonAscii || /[^\x00-\x7f]/.test(name)) return "unknown";
  // Only ASCII names are left: a name that equals it ignoring case has its length.
  const lower = name.toLowerCase();
  for (const other of listing.names) {
    if (other.length === name.length && other.toLowerCase() === lower) return "unknown";
  }
  return "absent";
}
