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

/**
 * `resource` is the manifest URL an answer came from. An ETag names one version of one resource
 * (RFC 9110 §8.8.3), so a kept answer is only ever offered back to the URL that gave it: a
 * registry moved to another URL (or a bench serving each release under its own base) whose new
 * answer happened to carry the same ETag (nginx derives it from mtime and size) would otherwise
 * get a 304 and the old answer for the new one.
 */
export interface AnswerCache {
  /** The answer kept for `resource`, or undefined when there is none, it came from another
   *  URL, or it is not intact. */
  load(resource: string): Promise<CachedAnswer | undefined>;
  /** Keeps an answer `resource` gave with an ETag (replacing the last one). */
  save(resource: string, answer: CachedAnswer): Promise<void>;
}
