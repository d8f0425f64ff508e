/**
 * CDI (Container Device Interface) specs: one file per prepared claim, vendor {@code
 * quartermaster.dev}, device names {@code <claim-uid>-<device>}, minimum {@code cdiVersion},
 * written atomically and removed on unprepare.
 */
package dev.quartermaster.agent.cdi;
