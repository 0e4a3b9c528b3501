/** A well-formed UUID v7 that names no row: the id of every "unknown resource" case. */
export const MISSING = '01935f4e-5b7a-7c3d-9e2f-1a2b3c4d5e6f';
