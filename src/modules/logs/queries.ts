/** The logs module's named queries (queries.sql), loaded once for the writer and the service. */
import { loadQueries } from '../../db/queries.js';

/** log-lines-insert/-trim/-expire (writer.ts) and log-lines-recent (service.ts). */
export const Q = loadQueries(new URL('./queries.sql', import.meta.url), ['log-lines-insert', 'log-lines-trim', 'log-lines-expire', 'log-lines-recent']);
