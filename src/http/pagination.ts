/**
 * Pagination and sorting rules shared by the collection endpoints (spec 1.3–1.4, issue "Foundation" §4):
 * `page` from 1, `per_page` a number (default 20, larger values capped at 1,000) or `all` (no limit,
 * answered as `per_page: 0` like listmonk), and `order` `asc`/`desc` in any letter case.
 */

/** Default page size (listmonk's). */
export const DEFAULT_PER_PAGE = 20;
/** Largest page size honoured; larger requests are capped (listmonk has no cap). */
export const MAX_PER_PAGE = 1000;

/** A resolved page request. `limit` is null for `per_page=all`. */
export interface PageRequest {
  page: number;
  /** The page size reported back: 0 for `all` (listmonk), otherwise the effective size. */
  perPage: number;
  limit: number | null;
  offset: number;
}

/** Resolves `page`/`per_page` query values (already schema-validated) into limit and offset. */
export function pageRequest(query: { page?: number; per_page?: number | 'all' }): PageRequest {
  const page = query.page ?? 1;
  if (query.per_page === 'all') return { page: 1, perPage: 0, limit: null, offset: 0 };
  const perPage = Math.min(query.per_page ?? DEFAULT_PER_PAGE, MAX_PER_PAGE);
  return { page, perPage, limit: perPage, offset: (page - 1) * perPage };
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
