/**
 * Gangs: worker groups placed all together or not at all, with their topology rules. The allocator
 * places them (see {@code dev.quartermaster.control.allocator}); the API only describes them.
 */
package dev.quartermaster.api.gang;
