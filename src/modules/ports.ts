/**
 * Ports between modules. A lower module that needs a higher one declares a port here (`declarePort`, the token, with
 * its interface beside it in the lower module's folder) and injects it, required; PortBindingsModule binds every
 * port to its implementation in one place. The start refuses a declared port left unbound, naming it and its module
 * (`assertPortsBound`); the token's description names both too, so Nest's own messages do.
 */
export interface PortDeclaration {
  token: symbol;
  name: string;
  /** The module that declares (and injects) the port. */
  declaredBy: string;
}

const declared = new Map<symbol, PortDeclaration>();

/** A port of module `declaredBy`, named `name` (the token's constant). */
export function declarePort(name: string, declaredBy: string): symbol {
  const token = Symbol(`${name}, the ${declaredBy} module's port`);
  declared.set(token, { token, name, declaredBy });
  return token;
}

/** Every port declared by the modules loaded so far. */
export function declaredPorts(): PortDeclaration[] {
  return [...declared.values()];
}

/** What a start without the port's binding says. */
export function unboundPortMessage(token: symbol): string {
  const port = declared.get(token);
  const name = port
    ? `port ${port.name}, declared by the ${port.declaredBy} module,`
    : `port ${String(token)}`;
  return `${name} is not bound: bind it in PortBindingsModule (src/modules/port-bindings.module.ts)`;
}

/** Throws, naming each, unless every declared port is among the `bound` tokens. */
export function assertPortsBound(bound: Iterable<unknown>): void {
  const tokens = new Set(bound);
  const missing = declaredPorts().filter((p) => !tokens.has(p.token));
  if (missing.length) throw new Error(missing.map((p) => unboundPortMessage(p.token)).join('; '));
}
