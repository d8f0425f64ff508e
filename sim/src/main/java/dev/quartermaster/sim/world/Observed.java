package dev.quartermaster.sim.world;

import dev.quartermaster.core.env.Env;

/**
 * What promises over the store read: the store's state as its commits left it, and a clock for
 * their bounds. The whole simulated cluster is one; a real store's history is another ({@link
 * HistoryPromises}).
 */
interface Observed {
  StoreView view();

  Env env();
}
