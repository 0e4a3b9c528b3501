/** Keys pressed in one go, as the customer's message and the model read them: `(pressed 1 2)`. */
export function pressedKeys(digits: string): string {
  return `(pressed ${[...digits].join(' ')})`;
}
