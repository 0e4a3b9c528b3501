import { Injectable, OnModuleInit } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { declarePort, unboundPortMessage } from '@/modules/ports';
import type { Call } from './call.entity';

/**
 * What follows a call's end elsewhere (outbound: the campaign task settled, the campaign's next calls placed). The
 * calls module declares it; PortBindingsModule binds the list of listeners.
 */
export const CALL_END_LISTENERS = declarePort('CALL_END_LISTENERS', 'calls');

export interface CallEndListener {
  /** Whether the listener has work for this ended call: only then does its `withinEnd` run (a savepoint each). */
  follows(call: Call): boolean;
  /**
   * Work in the ending transaction itself, behind a savepoint, so that a failure there (left to `ended` then) never
   * undoes the call's end. Answers whether it did its work.
   */
  withinEnd(m: EntityManager, call: Call): Promise<boolean>;
  /**
   * After the commit, once the call's slot is free; `withEnd`: its `withinEnd` did its work. A failure is logged
   * (outbound's dispatcher pass settles what it missed).
   */
  ended(call: Call, followed: { withEnd: boolean }): Promise<void>;
}

/**
 * The listeners bound to CALL_END_LISTENERS, as the lifecycle reads them. They depend on calls themselves (outbound
 * places calls), so the lifecycle cannot take them in its constructor: the port's binding hands them over here
 * while the application is built, and a start where nothing did stops at init naming the port.
 */
@Injectable()
export class CallEndListeners implements OnModuleInit {
  private bound: readonly CallEndListener[] | null = null;

  /** Done once, by the port's binding (its value is the list). */
  bind(listeners: CallEndListener[]): readonly CallEndListener[] {
    if (this.bound) throw new Error('CALL_END_LISTENERS is bound twice');
    this.bound = Object.freeze([...listeners]);
    return this.bound;
  }

  get all(): readonly CallEndListener[] {
    if (!this.bound) throw new Error(unboundPortMessage(CALL_END_LISTENERS));
    return this.bound;
  }

  onModuleInit(): void {
    if (!this.bound) throw new Error(unboundPortMessage(CALL_END_LISTENERS));
  }
}
