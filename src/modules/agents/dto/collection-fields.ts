export { oneOf } from '@/common/validation/messages';

/** The longest free text a collection item holds. */
export const TEXT = 20000;
