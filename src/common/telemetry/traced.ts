import {
  contextBinder,
  followInSpan,
  leftOutHere,
  SpanAttributes,
  SpanHandle,
  SpanOptions,
  tracingEnabled,
  withSpan,
} from './telemetry';

/** How a traced method's span is made from its arguments and completed from its result. */
export interface TracedSpec<A extends unknown[], R> {
  /** Attributes from the arguments (ids, sizes, settings: never a secret, never message text). */
  attributes?: (...args: A) => SpanAttributes;
  /** Span options from the arguments (a call's trace, reuse of a current span of the same name). */
  options?: (...args: A) => SpanOptions;
  /**
   * Arguments to call the method with instead (to time a callback, say); `span` is the method's span, and `outside`
   * binds a callback to the caller's context (so what it does is not a child of this span).
   */
  around?: (span: SpanHandle, started: number, args: A, outside: Binder) => A;
  /** Completes the span from what the method answered (awaited when a promise) and the arguments it was given. */
  result?: (span: SpanHandle, result: Awaited<R>, started: number, args: A) => void;
  /**
   * The method answers an async iterable (a stream): the span lasts until it is consumed, and `item` sees each
   * item (its index and when the span started).
   */
  item?: (
    span: SpanHandle,
    item: R extends AsyncIterable<infer I> ? I : never,
    index: number,
    started: number,
  ) => void;
}

type Method<A extends unknown[], R> = (...args: A) => R;
type Binder = ReturnType<typeof contextBinder>;

/**
 * Method decorator: each call runs in a span named `name` (see `withSpan`). Decided when the class is defined: with
 * tracing off the method is left untouched, so tracing costs nothing then.
 */
export function Traced<A extends unknown[], R>(name: string, spec: TracedSpec<A, R> = {}) {
  return <M>(_target: object, _key: string | symbol, descriptor: TypedPropertyDescriptor<M>): void => {
    const original = descriptor.value as Method<A, R> | undefined;
    if (!original || !tracingEnabled()) return;
    const traced = function (this: unknown, ...args: A): R {
      const options = spec.options?.(...args);
      // A trace the sampler left out: the method as it is (its span would not be made). A stream still goes through
      // followInSpan, which keeps its steps in this context.
      if (!spec.item && leftOutHere(options)) return original.apply(this, args);
      const started = Date.now();
      const attributes = () => spec.attributes?.(...args) ?? {};
      const outside = contextBinder();
      if (spec.item) {
        const source = (span: SpanHandle) =>
          original.apply(
            this,
            spec.around ? spec.around(span, started, args, outside) : args,
          ) as AsyncIterable<unknown>;
        return followInSpan(name, attributes, source, (span, item, index) =>
          spec.item!(span, item as never, index, started),
        ) as R;
      }
      return withSpan(
        name,
        attributes,
        (span) => {
          const out = original.apply(this, spec.around ? spec.around(span, started, args, outside) : args);
          if (!spec.result) return out;
          if (out instanceof Promise)
            return out.then((value: Awaited<R>) => {
              spec.result!(span, value, started, args);
              return value;
            }) as R;
          spec.result(span, out as Awaited<R>, started, args);
          return out;
        },
        options,
      );
    };
    for (const key of Reflect.getMetadataKeys?.(original) ?? [])
      Reflect.defineMetadata(key, Reflect.getMetadata(key, original), traced);
    Object.defineProperty(traced, 'name', { value: original.name });
    Object.defineProperty(traced, 'length', { value: original.length });
    descriptor.value = traced as M;
  };
}
