/**
 * Parses `Authorization: Bearer <machine key>` (RFC 6750 §2.1). Pure: the header text in, the
 * key or a refusal code out. Scheme names are case-insensitive (RFC 9110 §11.1); anything else
 * (another scheme, extra spaces, a comma list, a wrong key shape) is INVALID_MACHINE_KEY.
 */

/** Machine keys: "mk_" + 43 base64url characters = 256 bits of entropy. */
export const MACHINE_KEY = /^mk_[A-Za-z0-9_-]{43}$/;

const BEARER = /^[Bb][Ee][Aa][Rr][Ee][Rr] ([A-Za-z0-9\-._~+/]+=*)$/;

export type BearerResult =
  | { readonly ok: true; readonly key: string }
  | { readonly ok: false; readonly code: 'MISSING_MACHINE_KEY' | 'INVALID_MACHINE_KEY' };

/** Extracts a well-formed machine key from the Authorization header value. */
export function parseBearer(header: string | string[] | undefined): BearerResult {
  if (header === undefined || header === '') return { ok: false, code: 'MISSING_MACHINE_KEY' };
  if (typeof header !== 'string') return { ok: false, code: 'INVALID_MACHINE_KEY' };
  const m = BEARER.exec(header);
  const key = m?.[1];
  if (key === undefined || !MACHINE_KEY.test(key))
    return { ok: false, code: 'INVALID_MACHINE_KEY' };
  return { ok: true, key };
}
