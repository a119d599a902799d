/**
 * Mocha root hooks: keep logs silent unless asked, and stop anything a test left running.
 */
process.env.NODE_ENV = process.env.NODE_ENV ?? 'test';

type Stoppable = () => Promise<void> | void;
const leftovers = new Set<Stoppable>();

/** Registers a cleanup that runs after every test file, in case a test forgot it. Returns the remover. */
export function registerLeftover(stop: Stoppable): () => void {
  leftovers.add(stop);
  return () => leftovers.delete(stop);
}

export const mochaHooks = {
  async afterAll(): Promise<void> {
    const all = [...leftovers];
    leftovers.clear();
    await Promise.allSettled(all.map((stop) => stop()));
  },
};
