package dev.quartermaster.control.allocator;

import dev.quartermaster.api.gang.Gang;
import dev.quartermaster.api.workload.Workload;
import dev.quartermaster.control.allocator.AllocatorKey.ForGang;

/** A gang as the caches show it: its key, its workload, and what the spec makes of it. */
record CachedGang(ForGang key, Workload workload, Gang spec) {}
