/**
 * Pagination and sorting rules shared by the collection endpoints (spec 1.3–1.4, issue "Foundation" §4):
 * `page` from 1, `per_page` any positive number (default 20; honoured however large, as listmonk does,
 * issue 15 item 4) or `all` (no limit, answered as `per_page: 0` like listmonk), and `order`
 * `asc`/`desc` in any letter case.
 */

/** Default page size (listmonk's). */
export const DEFAULT_PER_PAGE = 20;
/**
 * Largest `per_page` accepted (the largest integer a JSON number holds exactly); beyond it the
 * schema answers 400 naming `per_page`. Any size up to it is honoured (listmonk has no cap).
 */
export const MAX_PER_PAGE = Number.MAX_SAFE_INTEGER;

/** A resolved page request. `limit` is null for `per_page=all`. */
export interface PageRequest {
  page: number;
  /** The page size reported back: 0 for `all` (listmonk), otherwise the size asked for. */
  perPage: number;
  limit: number | null;
  /** Rows skipped; capped at {@link MAX_PER_PAGE} (any offset past the last row gives an empty page). */
  offset: number;
}

/** Resolves `page`/`per_page` query values (already schema-validated) into limit and offset. */
export function pageRequest(query: { page?: number; per_page?: number | 'all' }): PageRequest {
  const page = query.page ?? 1;
  if (query.per_page === 'all') return { page: 1, perPage: 0, limit: null, offset: 0 };
  const perPage = query.per_page ?? DEFAULT_PER_PAGE;
  return { page, perPage, limit: perPage, offset: Math.min((page - 1) * perPage, MAX_PER_PAGE) };
}

/** Builds the paginated answer body from one page of results and the total count. */
export function pageResult<T>(results: T[], total: number, req: PageRequest) {
  return { results, total, per_page: req.perPage, page: req.page };
}

/** SQL sort keyword for an `order` value already validated as asc/desc in any case; `fallback` when absent. */
export function sortDirection(order: string | undefined, fallback: 'ASC' | 'DESC'): 'ASC' | 'DESC' {
  if (order === undefined) return fallback;
  return order.toUpperCase() === 'ASC' ? 'ASC' : 'DESC';
}
