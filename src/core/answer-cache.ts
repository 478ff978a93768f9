/**
 * The last manifest answer and its ETag, kept so a check with nothing new moves no body: the
 * request carries If-None-Match and a 304 hands back these bytes, which then go through the
 * same verification as a fresh answer (docs/PROTOCOL.md §2.7.6, Conditional requests).
 * Nothing here is trusted: a cache that lost or mangled its bytes only costs a full answer.
 */
export interface CachedAnswer {
  readonly etag: string;
  readonly bytes: Uint8Array;
}

export interface AnswerCache {
  /** The kept answer, or undefined when there is none or it is not intact. */
  load(): Promise<CachedAnswer | undefined>;
  /** Keeps an answer received with an ETag (replacing the last one). */
  save(answer: CachedAnswer): Promise<void>;
}
