/** Keys a caller can press: 0-9, * and #. */
export const DTMF_KEYS = /^[0-9*#]+$/;

/** Keys the agent presses on a call (the `send_dtmf` tool, the `dtmf` live action): `w` waits half a second. */
export const DTMF_SEQUENCE = /^[0-9*#w]{1,32}$/;
export const DTMF_SEQUENCE_RULE = '1 to 32 of 0-9, *, # and w (a half-second pause)';
