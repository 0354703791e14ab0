import type { DynamoDBDocumentClient, QueryCommandInput } from "@aws-sdk/lib-dynamodb";
import { QueryCommand } from "@aws-sdk/lib-dynamodb";
import type { Item } from "../ports/index.ts";

/** The largest page a caller may ask for: a page view is bounded whatever the query string says. */
export const MAX_PAGE = 100;

/** A DynamoDB LastEvaluatedKey as a URL-safe cursor. */
export function encodeCursor(key: Record<string, unknown>): string {
  return Buffer.from(JSON.stringify(key), "utf8").toString("base64url");
}

/**
 * A cursor back into an ExclusiveStartKey. It comes from a query string, so it is checked: exactly the index's key
 * attributes, short strings only, and the partition value the query is about (a cursor from another partition or
 * another list is ignored, and the list starts from its first page). Never throws.
 */
export function decodeCursor(
  cursor: string | undefined,
  names: readonly string[],
  fixed: Record<string, string> = {},
): Record<string, string> | undefined {
  if (!cursor || cursor.length > 4096) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
  } catch {
    return undefined;
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) return undefined;
  const entries = Object.entries(value as Record<string, unknown>);
  if (entries.length !== names.length) return undefined;
  const out: Record<string, string> = {};
  for (const name of names) {
    const v = (value as Record<string, unknown>)[name];
    if (typeof v !== "string" || v.length === 0 || v.length > 1024) return undefined;
    out[name] = v;
  }
  for (const [k, v] of Object.entries(fixed)) if (out[k] !== v) return undefined;
  return out;
}

export const clampLimit = (limit: number): number =>
  Number.isInteger(limit) && limit > 0 ? Math.min(limit, MAX_PAGE) : 20;

/**
 * One page of a query: up to `limit` items and the cursor after the last one, or none when nothing follows. It asks
 * for one item more than the page, so "is there a next page" is known, not guessed: DynamoDB returns a
 * LastEvaluatedKey whenever it stops at its Limit, even on the very last item, and a cursor built from that led to
 * an empty page with another "Older" link. `keys` names the table's and the index's key attributes, from which the
 * cursor after the page's last item is built. DynamoDB may stop early (1 MB, or a filter), so it follows
 * LastEvaluatedKey until the page is full; at most `maxCalls` calls, then the page is short and the cursor
 * continues where it stopped.
 */
export async function queryPage(
  dynamo: DynamoDBDocumentClient,
  input: QueryCommandInput,
  req: {
    limit: number;
    start?: Record<string, unknown> | undefined;
    maxCalls?: number;
    keys: readonly string[];
  },
): Promise<{ items: Item[]; last: Record<string, unknown> | undefined }> {
  const items: Item[] = [];
  const want = req.limit + 1;
  let start = req.start;
  for (let calls = 0; calls < (req.maxCalls ?? 5); calls++) {
    const page = await dynamo.send(
      new QueryCommand({ ...input, ExclusiveStartKey: start, Limit: want - items.length }),
    );
    items.push(...((page.Items ?? []) as Item[]));
    start = page.LastEvaluatedKey;
    if (!start || items.length >= want) break;
  }
  if (items.length <= req.limit) return { items, last: start };
  const shown = items.slice(0, req.limit);
  const lastItem = shown[shown.length - 1] ?? {};
  return { items: shown, last: Object.fromEntries(req.keys.map((k) => [k, lastItem[k]])) };
}
