package dev.quartermaster.store.registry;

import dev.quartermaster.api.meta.ApiObject;
import dev.quartermaster.store.Txn.Compare;
import java.util.List;

/**
 * Rules a write must keep that span several objects. Each check reads what it needs through {@link
 * Reads} and returns those reads as compares: the registry adds them to the write's transaction, so
 * the check and the write are one atomic step (a concurrent change to anything the check read makes
 * the transaction fail, and the registry checks again). Inside a batch the reads see the batch's
 * earlier writes, and compares on keys the batch writes are left to those writes' own.
 */
interface WriteRules {
  /** Throws an {@code ApiException} if creating {@code next} breaks a rule. None by default. */
  default List<Compare> beforeCreate(Reads reads, ApiObject next) {
    return List.of();
  }

  /** Throws an {@code ApiException} if replacing {@code current} by {@code next} breaks a rule. */
  List<Compare> beforeWrite(Reads reads, ApiObject current, ApiObject next);

  /**
   * Throws an {@code ApiException} if deleting (or marking for deletion) {@code current} breaks a
   * rule. None by default.
   */
  default List<Compare> beforeDelete(Reads reads, ApiObject current) {
    return List.of();
  }

  /**
   * Every rule of {@code all}: each may refuse; the compares of all join the write's transaction.
   */
  static WriteRules all(List<WriteRules> all) {
    return new WriteRules() {
      @Override
      public List<Compare> beforeCreate(Reads reads, ApiObject next) {
        return all.stream().flatMap(r -> r.beforeCreate(reads, next).stream()).toList();
      }

      @Override
      public List<Compare> beforeWrite(Reads reads, ApiObject current, ApiObject next) {
        return all.stream().flatMap(r -> r.beforeWrite(reads, current, next).stream()).toList();
      }

      @Override
      public List<Compare> beforeDelete(Reads reads, ApiObject current) {
        return all.stream().flatMap(r -> r.beforeDelete(reads, current).stream()).toList();
      }
    };
  }

  /**
   * No rules: the store takes any valid write. Only tests use it, to show what the rules prevent.
   */
  WriteRules NONE =
      new WriteRules() {
        @Override
        public List<Compare> beforeCreate(Reads reads, ApiObject next) {
          return List.of();
        }

        @Override
        public List<Compare> beforeWrite(Reads reads, ApiObject current, ApiObject next) {
          return List.of();
        }

        @Override
        public List<Compare> beforeDelete(Reads reads, ApiObject current) {
          return List.of();
        }
      };
}
