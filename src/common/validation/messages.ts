/** The message of an `IsIn` check that names the allowed values. */
export const oneOf = (field: string, values: readonly string[]) => ({
  message: `${field} must be one of ${values.join(', ')}`,
});
