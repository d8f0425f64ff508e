package dev.quartermaster.cli.describe;

import dev.quartermaster.api.meta.ApiObject;

/**
 * Writes the kind-specific part of {@code qm describe} for one kind; the metadata is written before
 * it.
 */
@FunctionalInterface
public interface Describer<T extends ApiObject> {

  void describe(T object, DescribeContext context, Description out);
}
