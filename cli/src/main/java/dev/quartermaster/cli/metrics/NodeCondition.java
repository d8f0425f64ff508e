package dev.quartermaster.cli.metrics;

import dev.quartermaster.api.meta.Condition;

/** The labels of one {@code qm_nodes} series: a condition type and its status. */
public record NodeCondition(String type, Condition.Status status) {}
