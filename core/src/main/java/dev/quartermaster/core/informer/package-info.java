/**
 * A generic informer: a watch-fed, indexed cache of a {@link
 * dev.quartermaster.core.informer.ListerWatcher}'s objects that re-lists when its watch falls
 * behind, reports changes to handlers, and tells how far it has caught up (for read-your-own-writes
 * checks).
 */
package dev.quartermaster.core.informer;
