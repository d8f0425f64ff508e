/**
 * Per-key serialization of asynchronous calls, such as the controller calls of one CSI plugin or
 * volume, which the storage system may not handle concurrently: {@link
 * dev.quartermaster.core.serial.KeyedSerializer} starts them one at a time per key, in submission
 * order, without holding a thread while they wait.
 */
package dev.quartermaster.core.serial;
