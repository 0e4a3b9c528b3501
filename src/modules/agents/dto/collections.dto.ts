// The bodies of the agent collections, one file per family.
export * from './notes.dto';
export * from './intents.dto';
export * from './rules.dto';
